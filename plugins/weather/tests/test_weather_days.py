"""Reading the ``weather`` tool's ``day`` against the device's clock."""

from __future__ import annotations

import datetime as dt

import pytest
from edgeagent_weather.days import days_ahead

from edgeagent.plugin import ToolArgumentError

TUESDAY = dt.date(2026, 11, 24)


@pytest.mark.parametrize(
    ("day", "ahead"),
    [
        ("today", 0),
        ("Today", 0),
        (" TODAY ", 0),
        ("tonight", 0),
        ("tomorrow", 1),
        ("Tomorrow?", 1),
        ("day after tomorrow", 2),
        ("the day after tomorrow", 2),
        ("tuesday", 0),  # today's own name is today
        ("Wednesday", 1),
        ("monday", 6),
        ("on friday", 3),
        ("this Friday", 3),
        ("fri", 3),
        ("thurs", 2),
        ("next tuesday", 7),  # "next" is never today
        ("next friday", 3),
        ("in 3 days", 3),
        ("in three days", 3),
        ("In Ten Days", 10),
        ("in one day", 1),
        ("in a day", 1),
        ("2 days", 2),
        ("5 days from now", 5),
        ("in a week", 7),
        ("next week", 7),
        ("in 2 weeks", 14),
        ("+2", 2),
        ("2", 2),
        ("0", 0),
        (4, 4),
        (15, 15),
        ("2026-11-24", 0),
        ("2026-12-09", 15),
    ],
)
def test_accepted_forms(day: str | int, ahead: int) -> None:
    assert days_ahead(day, TUESDAY) == ahead


@pytest.mark.parametrize("day", ["someday", "next month", "in many days", "tue-day", "", True])
def test_unknown_text_names_the_value_and_the_accepted_forms(day: str | bool) -> None:
    with pytest.raises(ToolArgumentError) as info:
        days_ahead(day, TUESDAY)
    message = str(info.value)
    assert f"day {day!r} is not understood" in message
    assert "'tomorrow'" in message and "'in 3 days'" in message and "YYYY-MM-DD" in message


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        (16, "day 16 is 16 days ahead; forecasts reach 15 days ahead (until 2026-12-09)"),
        ("in 3 weeks", "is 21 days ahead"),
        ("2026-12-10", "day '2026-12-10' is 16 days ahead"),
        (-1, "day -1 is 1 day in the past (today is 2026-11-24)"),
        ("yesterday", "is 1 day in the past"),
        ("2026-11-01", "is 23 days in the past"),
    ],
)
def test_days_out_of_range_say_what_range_there_is(day: str | int, expected: str) -> None:
    with pytest.raises(ToolArgumentError) as info:
        days_ahead(day, TUESDAY)
    assert expected in str(info.value)
