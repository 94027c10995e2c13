"""The side questions for the ``weather`` tool, alone: how many forecast requests each
lets through, and how many requests that only sound like weather (general knowledge,
a sensor that is not there, a place that is no place) it refuses. Written for the
title change of 2026-11-27 (the shipped title, SHIPPED, was picked on it); none of
these requests is in bench/prompts/:

    .venv/bin/python bench/weather_titles.py

Greedy, so the figures repeat on the same model and machine.
"""

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from side_questions import shipped_checks  # noqa: E402

from edgeagent.agent.honesty import target_question  # noqa: E402

OLD = "the weather or the forecast"
SHIPPED = "the forecast for a town and a day"

YES = [
    "will it rain in Lisbon tomorrow?",
    "how cold is it in Helsinki right now",
    "weather for Toronto on saturday please",
    "do I need a jacket in Munich today?",
    "is it going to be windy in Wellington in 3 days",
    "what's the forecast for Nairobi",
    "sunny in Nice the day after tomorrow?",
    "any snow expected in Calgary this sunday?",
    "how hot will it get in Seville on friday",
    "should I take an umbrella to Dublin tomorrow",
    "Wie wird das Wetter morgen in Bremen?",
    "che tempo fa a Torino oggi?",
    "va a llover en Valencia el martes?",
    "quel temps fera-t-il à Lyon demain ?",
    "temperature in Oslo?",
    "rain chance for Vancouver, thursday",
]
NO = [
    "do frogs croak more before it rains?",
    "why is the sky blue?",
    "how do clouds form",
    "what's a cold front exactly?",
    "how far is Saturn from the sun",
    "is the humidity in this room too high for my guitar?",
    "what temperature should I keep my fridge at?",
    "can cats sense a storm coming?",
    "what's the boiling point of water at altitude",
    "what's the hottest temperature ever recorded on earth?",
    "how warm is the soldering iron right now",
    "does the temperature affect 3D print adhesion?",
    "what's the weather like on Mars?",
    "is it true lightning never strikes twice?",
    "what's the dew point, in simple terms?",
    "warum ist der Himmel blau?",
]

FOLLOW_UPS = [
    "and the day after?",
    "what about saturday?",
    "and tomorrow?",
    "und morgen?",
    "and in Madrid?",
    "how about Porto instead",
    "will it be colder then?",
    "any rain that day?",
    "e dopodomani?",
    "and next monday",
]


def forecast_question(prompt: str, _: str) -> str:
    return (
        f'Request: "{prompt}"\nDoes this request ask for the weather forecast or the '
        f"current weather of a place on Earth? Answer yes or no."
    )


def forecast_tool_question(prompt: str, _: str) -> str:
    return (
        "Tool: a weather forecast: it gives the rain, temperature and wind of a town "
        f'on a given day.\nRequest: "{prompt}"\nCan this tool answer the request? '
        "Answer yes or no."
    )


def title_question(title: str) -> Callable[[str, str], str]:
    return lambda prompt, _: target_question(prompt, title)


TITLES = [
    OLD,
    "the weather forecast of a town",
    "the weather forecast of a town (rain, temperature, wind)",
    SHIPPED,
]
QUESTIONS = {
    **{f"topic, {title!r}": title_question(title) for title in TITLES},
    "forecast or current weather of a place on Earth": forecast_question,
    "can a forecast tool answer it": forecast_tool_question,
}


async def main() -> None:
    checks, _ = shipped_checks()
    for name, question in QUESTIONS.items():
        y = [p for p in YES if await checks.ask(question(p, ""), session="w") == "yes"]
        n = [p for p in NO if await checks.ask(question(p, ""), session="w") == "yes"]
        f = [p for p in FOLLOW_UPS if await checks.ask(question(p, ""), session="w") == "yes"]
        print(
            f"{name}: forecasts yes {len(y)}/{len(YES)}; others yes {len(n)}/{len(NO)}; "
            f"follow-ups yes {len(f)}/{len(FOLLOW_UPS)}"
        )
        print("   follow-ups refused:", [p for p in FOLLOW_UPS if p not in f])
        print("   refused:", [p for p in YES if p not in y])
        print("   let through:", n)


if __name__ == "__main__":
    asyncio.run(main())
