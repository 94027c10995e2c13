"""The topic question for `led_state`'s title, alone: how many LED state questions it
lets through and how many other requests (absent devices, other tools, LED commands).
Written for the title change of 2026-11-27 (3508e53); none of these requests is in
bench/prompts/:

    .venv/bin/python bench/state_titles.py ["another title to try"]

Greedy, so the figures repeat on the same model and machine.
"""

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from side_questions import shipped_checks, topic_yes  # noqa: E402

OLD = "whether the LED strip is on, and its color and brightness now"
SHIPPED = "whether the lights (the LED strip, the lamp) are on, and their color and brightness now"

YES = [
    "is the lamp on?",
    "what colour are the lights right now",
    "is the bedroom light still on?",
    "how bright is the strip at the moment?",
    "are the leds on",
    "is the porch light lit?",
    "what color is my desk lamp set to",
    "did the kitchen lights stay on?",
    "brightness of the lights?",
    "is the night light on",
    "ist das Licht an?",
    "la lampe est allumée ?",
    "what's the strip doing",
    "are the shelf lights still green?",
    "is the reading light bright enough, what level is it at?",
]
NO = [
    "is the fan on?",
    "is the front door locked?",
    "will it rain tomorrow?",
    "where is the camera pointing?",
    "what's 12 times 7",
    "is the heater running?",
    "how much disk space is left?",
    "is the tv on",
    "what angle is the servo at",
    "is the oven still on?",
    "turn the lights blue",
    "set the lamp to 40 percent",
    "is the garage door open?",
    "how warm is it outside",
    "is the kettle on",
]


async def main() -> None:
    checks, _ = shipped_checks()
    for title in (OLD, SHIPPED, *sys.argv[1:]):
        y = await topic_yes(checks, YES, title)
        n = await topic_yes(checks, NO, title)
        print(
            f"{title!r}: state questions yes {len(y)}/{len(YES)}; "
            f"others yes {len(n)}/{len(NO)}: {n}"
        )
        print("   refused:", [p for p in YES if p not in y])


if __name__ == "__main__":
    asyncio.run(main())
