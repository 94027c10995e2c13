"""The question asked of a ``math`` call on numbers nobody gave
(``edgeagent.agent.honesty.kind_question``), alone: how many unit conversions that say
no number it lets through ("how many minutes in a day?"), and how many questions of
fact (which the model sent to ``math`` with numbers it knew: "how many planets are in
the solar system?" as ``50 * 3``, fresh72). Written on 2026-11-30; none of these
requests is in bench/prompts/:

    .venv/bin/python bench/math_given.py

Greedy, so the figures repeat on the same model and machine. Measured on 2026-11-30
(f78fa75): "Is this a unit conversion?" said yes to 12 of 12 conversions and 2 of 20
facts (both "... in fahrenheit"); "Is this request about a unit conversion?" 12 and 5;
"Does this request give the numbers to calculate with?", "Is this a question of
general knowledge?" and "Is the answer a fact to look up?" 12 and 20 each; "Can this be
worked out from units alone (like 60 minutes in an hour), with no fact to look up?" 12
and 13; the topic question ("Is this request about a math problem to calculate?") 12
and 8.
"""

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from side_questions import shipped_checks  # noqa: E402

from edgeagent.agent.honesty import kind_question, target_question  # noqa: E402

FACTS = [
    "how tall is the eiffel tower?", "what's the freezing point of water in fahrenheit?",
    "how many bones does an adult have?", "how old is the earth?",
    "how far is paris from berlin?", "what's the population of tokyo?",
    "how many teeth does a dog have?", "how deep is the mariana trench?",
    "how many strings does a violin have?", "what year did the berlin wall fall?",
    "how long is the nile?", "how many players are on a rugby team?",
    "how many calories are in an apple?", "what's the speed of sound?",
    "how many hearts does an octopus have?", "wie hoch ist die Zugspitze?",
    "¿cuántos huesos tiene el cuerpo humano?", "combien de dents a un chat ?",
    "what's normal body temperature in fahrenheit?", "how many continents are there?",
]  # fmt: skip
CONVERSIONS = [
    "how many seconds are in an hour?", "how many minutes in a day?",
    "how many hours are in a week?", "how many minutes are in a week?",
    "how many seconds in a year?", "how many inches in a yard?",
    "wie viele Sekunden hat ein Tag?", "¿cuántos minutos tiene una semana?",
    "how many hours in a year?", "how many centimetres are in a mile?",
    "how many milliseconds in a minute?", "how many days are in a fortnight?",
]  # fmt: skip


async def main() -> int:
    checks, engine = shipped_checks()
    questions = {
        "kind_question (shipped)": lambda p: kind_question(p, "a unit conversion"),
        "target_question": lambda p: target_question(p, "a unit conversion"),
        "topic question (math's title)": lambda p: target_question(
            p, "a math problem to calculate"
        ),
    }
    try:
        for name, question in questions.items():
            facts = [p for p in FACTS if await checks.ask(question(p), session="g") == "yes"]
            kept = [p for p in CONVERSIONS if await checks.ask(question(p), session="g") == "yes"]
            print(f"{name}: conversions {len(kept)}/{len(CONVERSIONS)}, "
                  f"facts {len(facts)}/{len(FACTS)} let through {facts}")  # fmt: skip
    finally:
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
