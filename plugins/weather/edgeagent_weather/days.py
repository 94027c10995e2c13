"""Which day a person means: "tomorrow", "friday", "in three days", "+2", 2026-11-24.

A small model turns "the day after tomorrow" into a day offset unreliably; it copies
words well. So the ``weather`` tool takes the words, and this module reads them against
the device's clock.
"""

from __future__ import annotations

import datetime as dt
import re

from edgeagent.plugin import ToolArgumentError

MAX_DAY = 15  # Open-Meteo forecasts 16 days: today and 15 more
ACCEPTED = (
    "'today', 'tomorrow', 'day after tomorrow', a weekday ('friday'), 'in 3 days', "
    "'+2', a number of days 0-15 or a date YYYY-MM-DD"
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
NAMED = {
    "yesterday": -1, "today": 0, "tonight": 0, "now": 0, "this evening": 0,
    "this afternoon": 0, "tomorrow": 1, "tmrw": 1, "tomorrow night": 1,
    "day after tomorrow": 2, "the day after tomorrow": 2, "overmorrow": 2,
    "next week": 7, "a week": 7, "in a week": 7,
    # the day after today, where no forecast came before (see OpenMeteo.recall)
    "the day after": 1, "day after": 1, "the next day": 1, "next day": 1,
    "the following day": 1, "the day before": -1, "day before": -1, "the same day": 0,
    "same day": 0,
}  # fmt: skip
_IN_DAYS = re.compile(r"^(?:in\s+)?(\w+)\s+(day|days|week|weeks)(?:\s+from\s+(?:now|today))?$")
_OFFSET = re.compile(r"^([+-]?)\s*(\d+)$")
_ON = re.compile(r"^(?:this coming|on|this|the|coming)\s+")


def days_ahead(day: str | int, today: dt.date) -> int:
    """How many days after ``today`` the text ``day`` means, 0-15.

    Raise :class:`ToolArgumentError` naming the value and the accepted forms.
    """
    if isinstance(day, bool):
        raise _not_understood(day)
    if isinstance(day, int):
        return _checked(day, day, today)
    text = " ".join(day.strip().lower().rstrip(".?!").split())
    offset = _read(text, today)
    if offset is None:
        raise _not_understood(day)
    return _checked(offset, day, today)


def _read(text: str, today: dt.date) -> int | None:
    if text in NAMED:
        return NAMED[text]
    if match := _OFFSET.match(text):
        return int(match.group(1) + match.group(2))
    if match := _IN_DAYS.match(text):
        count = _count(match.group(1))
        if count is None:
            return None
        return count * (7 if match.group(2).startswith("week") else 1)
    try:
        return (dt.date.fromisoformat(text) - today).days
    except ValueError:
        pass
    return _weekday(text, today)


def _count(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    return NUMBER_WORDS.get(word)


def _weekday(text: str, today: dt.date) -> int | None:
    """The next ``friday`` (today's own name is today); ``next friday`` is never today."""
    strictly_after = text.startswith("next ")
    name = _ON.sub("", text.removeprefix("next ")).strip()
    wanted = None
    for index, weekday in enumerate(WEEKDAYS):  # "fri", "tues" and "thurs" count too
        if len(name) >= 3 and weekday.startswith(name):
            wanted = index
    if wanted is None:
        return None
    ahead = (wanted - today.weekday()) % 7
    return 7 if ahead == 0 and strictly_after else ahead


def _checked(offset: int, day: str | int, today: dt.date) -> int:
    if 0 <= offset <= MAX_DAY:
        return offset
    if offset < 0:
        raise ToolArgumentError(
            f"day {day!r} is {-offset} day{'s' if offset < -1 else ''} in the past (today is "
            f"{today.isoformat()}); forecasts cover today to {MAX_DAY} days ahead"
        )
    last = today + dt.timedelta(days=MAX_DAY)
    raise ToolArgumentError(
        f"day {day!r} is {offset} days ahead; forecasts reach {MAX_DAY} days ahead "
        f"(until {last.isoformat()}). Ask for a nearer day"
    )


def _not_understood(day: object) -> ToolArgumentError:
    return ToolArgumentError(f"day {day!r} is not understood; use {ACCEPTED}")
