"""The benchmark judge scores outcomes: device state, result values, the answer."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from judge import JudgeContext, Verdict, judge_turn, numbers_in

TODAY = dt.date(2026, 11, 23)  # a Monday
TOMORROW = "2026-11-24"
START: dict[str, dict[str, Any]] = {
    "led": {"on": True, "brightness": 60, "color": "white"},
    "servo": {"angle": 20},
}
FAMILIES = {
    "led": "led", "led_state": "led", "servo": "servo", "servo_state": "servo",
    "weather": "weather", "math": "math", "shell": "shell", "ls": "shell", "grep": "shell",
    "df": "shell", "glob": "shell",
}  # fmt: skip
CONTEXT = JudgeContext(families=FAMILIES, act_tools=frozenset({"led", "servo"}))


def call(name: str, result: Any = None, *, ok: bool = True, **arguments: Any) -> dict[str, Any]:
    if ok:
        return {"name": name, "arguments": arguments, "ok": True, "result": result}
    return {"name": name, "arguments": arguments, "ok": False, "error": str(result)}


def state(
    *, led: dict[str, Any] | None = None, servo: float | None = None
) -> dict[str, dict[str, Any]]:
    return {
        "led": {**START["led"], **(led or {})},
        "servo": {"angle": START["servo"]["angle"] if servo is None else servo},
    }


def judge(
    kind: str,
    expect: Any,
    *,
    calls: list[dict[str, Any]] | None = None,
    answer: str = "Done.",
    after: dict[str, Any] | None = None,
    error: str | None = None,
    answer_any: list[str] | None = None,
    generations: list[dict[str, Any]] | None = None,
    prompt: str = "a prompt",
) -> Verdict:
    turn = {"prompt": prompt, "kind": kind, "expect": {kind: expect}}
    if answer_any:
        turn["answer_any"] = answer_any
    record = {
        "date": TODAY.isoformat(),
        "state_before": state(),
        "state_after": after or state(),
        "calls": calls or [],
        "answer": "" if error else answer,
        "error": error,
        "generations": generations or [{"raw": answer}],
    }
    return judge_turn(turn, record, CONTEXT)


# --- led and servo: the device state after the turn ---------------------------------------


def test_led_right_when_the_strip_reads_back_as_expected() -> None:
    red = state(led={"color": "red"})
    verdict = judge(
        "led", {"color": "#FF0000", "on": True}, calls=[call("led", color="red")], after=red
    )
    assert verdict.right and verdict.selected and verdict.category is None


def test_led_wrong_colour_is_a_wrong_outcome_with_the_right_tool() -> None:
    blue = state(led={"color": "blue"})
    verdict = judge("led", {"color": "red"}, calls=[call("led", color="blue")], after=blue)
    assert not verdict.right and verdict.selected
    assert verdict.category == "wrong outcome with right tool"
    assert any("color=blue" in r for r in verdict.reasons)


def test_led_off_ignores_the_colour_and_a_mixed_strip_is_not_one_colour() -> None:
    off = state(led={"on": False, "color": "black"})
    assert judge(
        "led", {"on": False, "color": "red"}, calls=[call("led", on=False)], after=off
    ).right
    mixed = {"on": True, "brightness": 60, "pixels": ["0-3: red", "4-7: white"]}
    wrong = judge("led", {"color": "red"}, calls=[call("led")], after={**state(), "led": mixed})
    assert not wrong.right and "not one colour" in wrong.reasons[0]


def test_a_device_the_turn_is_not_about_must_not_change() -> None:
    moved = state(led={"color": "red"}, servo=45)
    verdict = judge(
        "led",
        {"color": "red"},
        calls=[call("led", color="red"), call("servo", angle=45)],
        after=moved,
    )
    assert not verdict.right
    assert verdict.reasons == ["the servo changed, and this turn is about led"]


def test_servo_within_two_degrees() -> None:
    assert judge("servo", {"angle": 30}, calls=[call("servo")], after=state(servo=31.5)).right
    verdict = judge("servo", {"angle": 30}, calls=[call("servo")], after=state(servo=35))
    assert not verdict.right and verdict.reasons == ["servo angle=35, expected 30"]


def test_reading_the_state_counts_as_selecting_the_device() -> None:
    verdict = judge("servo", {"angle": 20}, calls=[call("servo_state", {"angle": 20})])
    assert verdict.selected and verdict.right


# --- weather, math, shell: values in results and answers -----------------------------------


def forecast(date: str = TOMORROW, place: str = "Berlin, Testland") -> dict[str, Any]:
    return {
        "place": place, "date": date, "weekday": "Tuesday", "description": "slight rain",
        "temp_min": "7.0 °C", "temp_max": "15.0 °C", "precipitation_probability": "0 %",
    }  # fmt: skip


BERLIN_TOMORROW = {"place": "Berlin", "day": "tomorrow"}


@pytest.mark.parametrize(
    "answer",
    ["Tomorrow in Berlin: slight rain.", "Berlin tomorrow: between 7 and 15 °C.", "High of 15."],
)
def test_weather_right_with_the_right_date_place_and_a_value_in_the_answer(answer: str) -> None:
    weather = call("weather", forecast(), location="Berlin", day="tomorrow")
    assert judge("weather", BERLIN_TOMORROW, calls=[weather], answer=answer).right


@pytest.mark.parametrize(
    ("result", "ok", "answer", "why"),
    [
        (forecast(date="2026-11-23"), True, "slight rain", "no weather result for Berlin"),
        (forecast(place="Bern, Testland"), True, "slight rain", "no weather result for Berlin"),
        (forecast(), True, "Enjoy your Tuesday in Berlin!", "mentions no value"),
        (forecast(), True, "It will be 0 degrees.", "mentions no value"),
        ("no place called 'Berlin'", False, "slight rain", "no successful weather call"),
    ],
)
def test_weather_wrong(result: Any, ok: bool, answer: str, why: str) -> None:
    weather = call("weather", result, ok=ok, location="Berlin")
    verdict = judge("weather", BERLIN_TOMORROW, calls=[weather], answer=answer)
    assert not verdict.right and why in verdict.reasons[0]


def test_weather_weekday_names_resolve_to_their_next_date() -> None:
    # TODAY is a Monday: "monday" is today, "wednesday" two days on.
    today = call("weather", forecast(date="2026-11-23"))
    assert judge(
        "weather", {"place": "berlin", "day": "Monday"}, calls=[today], answer="15 °C"
    ).right
    wednesday = call("weather", forecast(date="2026-11-25"))
    place_day = {"place": "Berlin", "day": "wednesday"}
    assert judge("weather", place_day, calls=[wednesday], answer="slight rain").right


def test_math_needs_the_value_in_a_result_and_in_the_answer() -> None:
    product = call("math", {"expression": "12*7", "result": 84}, expression="12*7")
    assert judge("math", 84, calls=[product], answer="12 times 7 is 84.").right
    assert judge("math", 84, calls=[product], answer="That is 84.0").right
    no_number = judge("math", 84, calls=[product], answer="Here you go.")
    assert not no_number.right and no_number.reasons == ["the answer does not state 84"]
    wrong = call("math", {"expression": "12+7", "result": 19}, expression="12+7")
    assert not judge("math", 84, calls=[wrong], answer="84").right
    in_head = judge("math", 84, answer="84")
    assert not in_head.right and in_head.category == "no call where one was needed"


def test_math_tolerance_and_thousands_separators() -> None:
    big = call("math", {"result": 1234567}, expression="1234567")
    assert judge("math", 1234567, calls=[big], answer="It is 1,234,567.").right
    pi = call("math", {"result": 3.14159265359})
    assert judge("math", 3.1415926, calls=[pi], answer="about 3.14").right
    assert numbers_in("on 2026-11-24 it is -3.5 and 1,000") == [-3.5, 1000.0]


def test_shell_counts_wrappers_and_reads_their_output() -> None:
    found = call("grep", {"exit_code": 0, "output": "notes.txt:1:Buy a new servo."})
    expect = {"contains_any": ["notes.txt"]}
    assert judge("shell", expect, calls=[found], answer="notes.txt").right
    other = call("ls", {"exit_code": 0, "output": "todo.md"})
    assert not judge("shell", expect, calls=[other]).right
    verdict = judge("shell", expect, calls=[call("math", {"result": 1})])
    assert not verdict.right and verdict.category == "wrong tool"


# --- none turns, answers, errors -----------------------------------------------------------


def test_none_right_when_nothing_ran_and_nothing_was_claimed() -> None:
    verdict = judge("none", True, answer="You're welcome!")
    assert verdict.right and verdict.selected


def test_none_wrong_when_a_tool_ran_or_the_answer_lies() -> None:
    peeked = judge("none", True, calls=[call("led_state", START["led"])])
    assert not peeked.right and not peeked.selected
    assert peeked.category == "called on a none turn"
    lied = judge("none", True, answer="The LED is now blue.")
    assert not lied.right and lied.category == "lie" and lied.tags == ["lie"]


def test_a_repeated_answer_is_an_echo_only_when_no_result_produced_it() -> None:
    text = "The LED strip is now red at 100% brightness."
    red = state(led={"color": "red"})
    turn = {"prompt": "red again", "kind": "led", "expect": {"led": {"color": "red"}}}
    record = {
        "date": TODAY.isoformat(), "state_before": red, "state_after": red, "answer": text,
        "error": None, "generations": [], "calls": [call("led", {"color": "red"})],
    }  # fmt: skip
    assert judge_turn(turn, record, CONTEXT, earlier=[text]).echoes == []
    parrot = judge_turn(turn, {**record, "calls": []}, CONTEXT, earlier=[text])
    assert parrot.right and parrot.tags == ["lie", "echo"]


def test_answer_any_and_an_error_ending_the_turn() -> None:
    blue = state(led={"color": "blue"})
    led = [call("led", color="blue")]
    assert judge(
        "led", {"color": "blue"}, calls=led, after=blue, answer_any=["BLUE"], answer="blue!"
    ).right
    missing = judge(
        "led", {"color": "blue"}, calls=led, after=blue, answer_any=["blue"], answer="ok"
    )
    assert not missing.right and missing.category == "wrong answer text"
    failed = judge("led", {"color": "blue"}, calls=led, after=blue, error="Stopped after 5 steps")
    assert not failed.right and failed.category == "error ended turn"


def test_parse_failures_are_counted_per_generation() -> None:
    gens: list[dict[str, Any]] = [
        {"raw": '```json\n{"name": "led"', "parse_failed": True},
        {"raw": "ok"},
    ]
    verdict = judge("led", {"on": False}, generations=gens)
    assert verdict.parse_failures == 1 and verdict.generations == 2
    assert verdict.category == "no call where one was needed"
