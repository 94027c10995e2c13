"""The topic question for the `math` tool's title, alone: how many calculations it lets
through (unit conversions among them) and how many other requests that hold numbers
(general knowledge, the weather, devices, files, chit-chat). Blind prompt sets had
"what's that in fahrenheit?" and "how many litres fit?" refused or computed without the
conversion; written on 2026-11-27 to try a title that names conversions; none of these
requests is in bench/prompts/:

    .venv/bin/python bench/math_titles.py ["another title to try"]

Greedy, so the figures repeat on the same model and machine. Measured on 2026-11-27
(0049f89): the shipped "a math problem to calculate" let through 14 of 15 calculations
(not "-5 °C in fahrenheit please") and 3 of 15 others (Jupiter's moons, the lines of
data.csv, a football team); every title tried that names a conversion ("... or a unit
conversion", "... or a temperature to convert", a list of kinds) said yes to 15 of 15
of both. The title was not changed.
"""

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from side_questions import shipped_checks, topic_yes  # noqa: E402

SHIPPED = "a math problem to calculate"
CONVERSIONS = "a calculation: arithmetic, percentages, averages or a unit conversion"

CALCULATIONS = [
    "what's 15% of 240",
    "convert 30 degrees celsius to fahrenheit",
    "how many litres is 2500 millilitres",
    "2.5 kg in grams?",
    "what's 7 squared plus 3",
    "average of 4, 8 and 15",
    "how many minutes are in 3.5 hours",
    "12 miles in kilometres",
    "if I save 40 a week, how much after 9 weeks?",
    "what is 5 factorial",
    "split 96 euros between 4 people",
    "-5 °C in fahrenheit please",
    "how many cm is 6 feet",
    "what's the square root of 144",
    "a 20 x 30 x 10 cm box, how many litres does it hold?",
]
OTHERS = [
    "how many moons does Jupiter have?",
    "what year did the Berlin wall fall?",
    "is 18 degrees warm enough to swim?",
    "will it be above 20 degrees tomorrow in Madrid?",
    "set the lamp to 40 percent",
    "turn the camera 30 degrees left",
    "how much disk space is left?",
    "how many lines are in data.csv?",
    "I ran 5 km this morning!",
    "what's the boiling point of water?",
    "how many players are on a football team?",
    "should I use 2 or 3 eggs in a sponge cake?",
    "how tall is Mount Everest?",
    "what's the population of Canada?",
    "thanks, that's 3 for 3 today",
]


async def main() -> None:
    checks, engine = shipped_checks()
    try:
        for title in (SHIPPED, CONVERSIONS, *sys.argv[1:]):
            let = await topic_yes(checks, CALCULATIONS, title)
            wrong = await topic_yes(checks, OTHERS, title)
            print(
                f"{title!r}: calculations yes {len(let)}/{len(CALCULATIONS)}; "
                f"others yes {len(wrong)}/{len(OTHERS)}: {wrong}"
            )
            print("   refused:", [p for p in CALCULATIONS if p not in let])
    finally:
        engine.close()


if __name__ == "__main__":
    asyncio.run(main())
