"""The ``math`` tool: everyday notation rewritten, then arithmetic from the syntax tree,
with limits checked before work."""

from __future__ import annotations

import asyncio
import math
import time

import edgeagent_math
import pytest
from edgeagent_math import calculate
from edgeagent_math.evaluator import FUNCTIONS, MAX_EXPRESSION_CHARS, MathError, evaluate, tidy
from edgeagent_math.notation import to_python

from edgeagent.errors import NothingEarlierError
from edgeagent.testing import load_plugin
from edgeagent.tools import make_tool
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry

VALUES = [
    ("1 + 2 * 3", 7),
    ("(1 + 2) * 3", 9),
    ("7 // 2", 3),
    ("7 % 4", 3),
    ("-2 ** 2", -4),
    ("2 ** -1", 0.5),
    ("2 ** 10", 1024),
    ("sqrt(2) ** 2", 2.0000000000000004),
    ("hypot(3, 4)", 5.0),
    ("log(8, 2)", 3.0),
    ("log10(1000)", 3.0),
    ("exp(0)", 1.0),
    ("abs(-3.5)", 3.5),
    ("round(pi, 3)", 3.142),
    ("round(2.6)", 3),
    ("floor(-1.5)", -2),
    ("ceil(1.2)", 2),
    ("min(3, 1, 2)", 1),
    ("max(3, 1, 2)", 3),
    ("degrees(pi)", 180.0),
    ("radians(180)", math.pi),
    ("sin(pi / 2) + cos(0) + tan(0)", 2.0),
    ("factorial(5)", 120),
    ("e", math.e),
    ("1e300", 1e300),
]

# What people and small models write: (expression, value).
EVERYDAY = [
    ("2^10", 1024),
    ("2 ^ 0.5", math.sqrt(2)),
    ("-2^2", -4),
    ("5!", 120),
    ("(2 + 3)!", 120),
    ("2^3!", 64),
    ("-3!", -6),
    ("factorial(5)", 120),
    ("ln(e)", 1.0),
    ("ln(1)", 0.0),
    ("log(e)", 1.0),
    ("log(8, 2)", 3.0),
    ("log2(8)", 3.0),
    ("log10(100)", 2.0),
    ("sin(30°)", 0.5),
    ("sin(30 deg)", 0.5),
    ("sin(30 degrees)", 0.5),
    ("sin 30°", 0.5),
    ("cos(90°)", 0),  # exact, not 6.1e-17
    ("cos(60 degree)", 0.5),
    ("sin(180°)", 0),
    ("tan(45°)", 1.0),
    ("sind(30)", 0.5),
    ("cosd(180)", -1),
    ("tand(-45)", -1.0),
    ("sin(radians(90))", 1),
    ("degrees(asin(1))", 90.0),
    ("12 × 7", 84),
    ("12 ÷ 4", 3.0),
    ("12 x 7", 84),
    ("3x4", 12),
    ("(1 + 2) x (3 + 4)", 21),
    ("6 · 7", 42),
    ("10 − 3", 7),
    ("1,000 + 1", 1001),
    ("1,234,567 * 2", 2469134),
    ("1,234.5 * 2", 2469.0),
    ("max(1,200,3)", 200),  # inside brackets a comma separates arguments
    ("20% of 150", 30.0),
    ("20 % of 150", 30.0),
    ("15% of 80 + 1", 13.0),
    ("150 + 20%", 180.0),  # as on a calculator
    ("150 - 20%", 120.0),
    ("50%", 0.5),
    ("200 * 15%", 30.0),
    ("7 % 4", 3),  # a remainder when a number follows
    ("sum([1, 2, 3])", 6),
    ("sum(1, 2, 3)", 6),
    ("sum([0.1, 0.2])", 0.30000000000000004),
    ("mean([1, 2, 3, 4])", 2.5),
    ("avg(2, 4)", 3.0),
    ("average([1, 2])", 1.5),
    ("median([3, 1, 2])", 2),
    ("sum([21.5] * 40)", 860.0),  # fresh66: a mean over 40 rows, as a total
    ("mean(3 * [1, 2])", 1.5),
    ("median([1, 2, 3, 4])", 2.5),
    ("min([4, 2, 8])", 2),
    ("max([4, 2], 9)", 9),
    ("abs(-7)", 7),
    ("round(2.567, 2)", 2.57),
    ("2pi", 2 * math.pi),
    ("2(3 + 4)", 14),
    ("(1 + 2)(3 + 4)", 21),
    ("sqrt 16", 4.0),
    ("√16", 4.0),
    ("3²", 9),
    ("π", math.pi),
    ("12 times 7", 84),
    ("10 divided by 4", 2.5),
    ("3 multiplied by 4", 12),
    ("2 to the power of 8", 256),
    ("5 squared", 25),
    ("2 cubed", 8),
    ("8 plus 2 minus 1", 9),
    ("10 mod 3", 1),
    ("12 * 7 =", 84),
    ("SQRT(16) + PI", 4 + math.pi),
    ("0x1F", 31),
]


@pytest.mark.parametrize(("expression", "value"), EVERYDAY)
def test_everyday_notation(expression: str, value: float) -> None:
    assert tidy(evaluate(expression)) == tidy(value)


@pytest.mark.parametrize(("expression", "value"), VALUES)
def test_values(expression: str, value: float) -> None:
    assert evaluate(expression) == value


NOT_UNDERSTOOD = "is not understood; use numbers, + - * / ^ % ( ), n!, 20% of 150"
REFUSED = [
    ("__import__('os')", f'"\'" in "__import__(\'os\')" {NOT_UNDERSTOOD}'),
    ("__import__('os').system('true')", NOT_UNDERSTOOD),
    ("open(1)", f"'open' in 'open(1)' {NOT_UNDERSTOOD}"),
    ("(1).real", f"'real' in '(1).real' {NOT_UNDERSTOOD}"),
    ("(1).e", "Attribute is not supported"),
    ("[1, 2]", "a list of numbers only goes inside average, avg, hypot, max, mean"),
    ("1, 2", "a list of numbers only goes inside"),
    ("sum([1, [2]])", "a list of numbers only goes inside"),
    ("'a' * 3", f'"\'" in "\'a\' * 3" {NOT_UNDERSTOOD}'),
    ("True + 1", f"'true' in 'True + 1' {NOT_UNDERSTOOD}"),
    ("lambda: 1", f"':' in 'lambda: 1' {NOT_UNDERSTOOD}"),
    ("x + 1", f"'x' in 'x + 1' {NOT_UNDERSTOOD}"),
    ("2 apples", f"'apples' in '2 apples' {NOT_UNDERSTOOD}"),
    ("what is 2 + 2", f"'what' in 'what is 2 + 2' {NOT_UNDERSTOOD}"),
    ("1 if 1 else 2", f"'if' in '1 if 1 else 2' {NOT_UNDERSTOOD}"),
    ("1 < 2", f"'<' in '1 < 2' {NOT_UNDERSTOOD}"),
    ("1 << 10", f"'<' in '1 << 10' {NOT_UNDERSTOOD}"),
    ("1 & 2", f"'&' in '1 & 2' {NOT_UNDERSTOOD}"),
    ("sin(x=1)", f"'=' in 'sin(x=1)' {NOT_UNDERSTOOD}"),
    ("sqrt(1, 2)", "takes 1 arguments, got 2"),
    ("max()", "1 or more arguments"),
    ("mean([])", "mean() takes 1 or more arguments, got 0"),
    ("sum([1, 2] * 0.5)", "repeated a whole number of times, 1 to 10000, not 0.5"),
    ("sum([1] * 100001)", "not 100001"),
    ("[1] * 3", "a list of numbers only goes inside"),
    ("max(*[1])", "Starred is not supported"),
    ("1 / 0", "division by zero"),
    ("5 % 0", "division by zero"),
    ("0 ** -1", "division by zero"),
    ("0^-1", "division by zero"),
    ("tan(90°)", "tan(90°) is undefined"),
    ("sqrt(-1)", "math domain error"),
    ("ln(0)", "math domain error"),
    ("(-8) ** 0.5", "not a real number"),
    ("exp(1000)", "too large"),
    ("1e999", "not a finite number"),
    ("10 ** 299 * 100", "exceeds the limit"),
    ("factorial(101)", "0..100"),
    ("101!", "0..100, got 101"),
    ("9!!", "0..100, got 362880"),
    ("factorial(2.5)", "whole number"),
    ("2.5!", "whole number"),
    ("round(1, 1000)", "-15..15"),
    ("1 +", "is not an arithmetic expression (invalid syntax); write it like '12 * 7'"),
    ("2 ^^ 3", "is not an arithmetic expression"),
    ("", "is not an arithmetic expression"),
    ("1" * (MAX_EXPRESSION_CHARS + 1), "limit is 300"),
    ("+".join(["1"] * 100), "too many parts"),
    ("+".join(["1!"] * 40), "too many parts"),  # the rewrite's nodes count too
]


@pytest.mark.parametrize(("expression", "reason"), REFUSED)
def test_refused_with_a_reason(expression: str, reason: str) -> None:
    with pytest.raises(MathError) as info:
        evaluate(expression)
    assert reason in str(info.value)


@pytest.mark.parametrize(
    "expression",
    ["9**9**9", "9^9^9", "2 ** 10 ** 10", "10.0 ** 400", "(-3) ** 9999999", "2^(50!)"],
)
def test_huge_powers_are_refused_at_once(expression: str) -> None:
    started = time.perf_counter()
    with pytest.raises(MathError, match="would be about 10\\^"):
        evaluate(expression)
    assert time.perf_counter() - started < 0.05


def test_unknown_text_names_every_accepted_function() -> None:
    with pytest.raises(MathError) as info:
        evaluate("cube(3)")
    message = str(info.value)
    assert message.startswith("'cube' in 'cube(3)' is not understood")
    assert all(name in message for name in FUNCTIONS)


def test_the_rewrite_only_changes_notation() -> None:
    assert to_python("2^10 + 5! - sin(30°)", FUNCTIONS) == (
        "2 ** 10 + factorial ( 5 ) - sin ( radians ( 30 ) )"
    )
    assert to_python("20% of 1,500", FUNCTIONS) == "percent ( 20 ) * 1500"
    assert to_python("max(1,000)", FUNCTIONS) == "max ( 1 , 000 )"
    assert to_python("2 × 3 x 4 ÷ 6", FUNCTIONS) == "2 * 3 * 4 / 6"


def test_tool_rounds_float_noise_and_shows_whole_numbers_as_ints() -> None:
    assert calculate("0.1 + 0.2") == {"expression": "0.1 + 0.2", "result": 0.3}
    assert calculate("sqrt(16)") == {"expression": "sqrt(16)", "result": 4}
    assert calculate(" 20% of 150 ") == {"expression": "20% of 150", "result": 30}
    assert calculate("sin(30°)") == {"expression": "sin(30°)", "result": 0.5}
    assert tidy(1 / 3) == 0.333333333333
    assert tidy(1e300) == 1e300


@pytest.mark.parametrize("expression", ["10", " 8 ", "-3", "2.5", "27 ="])
def test_a_number_alone_is_no_calculation_and_is_not_mended(expression: str) -> None:
    # "how many bones are there in the human hand?" came as math("10"), shown as "10 = 10".
    executor = ToolExecutor(ToolRegistry([make_tool(calculate, plugin="math")]))
    result = asyncio.run(executor.execute(ToolCall("math", {"expression": expression})))
    assert not result.ok and not result.mendable
    assert result.error is not None and "nothing to calculate" in result.error
    assert "without the math tool" in result.error  # what to do next
    # A constant or a percent alone is still a value to compute.
    assert calculate("pi")["result"] == 3.14159265359  # type: ignore[index]
    assert calculate("50%")["result"] == 0.5  # type: ignore[index]


def test_through_the_executor_errors_are_results_the_model_reads() -> None:
    executor = ToolExecutor(ToolRegistry([make_tool(calculate, plugin="math")]))
    ok = asyncio.run(executor.execute(ToolCall("math", {"expression": "2 * (3 + 4)"})))
    assert ok.to_dict() == {"ok": True, "result": {"expression": "2 * (3 + 4)", "result": 14}}
    bad = asyncio.run(executor.execute(ToolCall("math", {"expression": "9**9**9"})))
    assert not bad.ok and bad.error is not None and "above the 1e+300 limit" in bad.error
    long = asyncio.run(executor.execute(ToolCall("math", {"expression": "1" * 301})))
    assert not long.ok and long.error is not None and "invalid arguments" in long.error


def test_schema_is_short_and_exact() -> None:
    t = make_tool(calculate)
    assert t.name == "math"
    assert t.description == (
        "Evaluate arithmetic, e.g. 2^10, 5!, sin(30°), ln(2), 20% of 150, mean([1,2])."
    )
    assert t.parameters == {
        "properties": {
            "expression": {
                "description": "e.g. '2^10 + sqrt(2)*3'",
                "maxLength": 300,
                "type": "string",
            }
        },
        "required": ["expression"],
        "type": "object",
    }


@pytest.mark.parametrize(
    ("expression", "answer"),
    [
        ("12 * 7", "12 * 7 = 84"),
        ("20% of 150", "20% of 150 = 30"),
        ("1/3", "1/3 = 0.333333333333"),
        ("2^0.5", "2^0.5 = 1.41421356237"),
        (" 12*7 = ? ", "12*7 = 84"),
    ],
)
def test_answer_is_the_expression_and_its_value(expression: str, answer: str) -> None:
    t = make_tool(calculate)
    assert t.answer is not None
    assert t.answer(calculate(expression)) == answer


def assert_rewritten(
    expression: str, request_: str, written: str | None, value: float | None
) -> None:
    """The math tool's reread of ``expression`` for ``request_`` writes ``written``
    (``None``: leaves it), and that computes ``value``."""
    loaded = load_plugin(edgeagent_math, name="math")
    reread = loaded.registry.get("math").reread
    assert reread is not None
    fixed = reread({"expression": expression}, request_)
    if written is None:
        assert fixed is None
    else:
        assert fixed == {"expression": written}
        assert loaded.call("math", **fixed).result["result"] == value
    loaded.close()


@pytest.mark.parametrize(
    ("expression", "request_", "written", "value"),
    [
        # The formula with its parentheses or a term lost: the tool writes it itself.
        ("68 - 32 * 5 / 9", "convert 68 fahrenheit to celsius", "(68 - 32) * 5 / 9", 20),
        ("68 * 5 / 9", "68 degrees fahrenheit in celsius?", "(68 - 32) * 5 / 9", 20),
        ("20 * 1.8", "20°C en Fahrenheit", "20 * 9 / 5 + 32", 68),
        ("100 - 32", "100 grados Fahrenheit a Celsius", "(100 - 32) * 5 / 9", 37.7777777778),
        # The model's formula gives the right value, or no conversion is named.
        ("(68-32)*5/9", "68F in C", None, None),
        ("20*9/5+32", "what is 20 celsius in fahrenheit", None, None),
        ("2 + 2", "what is 2+2", None, None),
        ("3 * 240", "3 cups of flour for 240 guests", None, None),
        # A percentage whose sign the model dropped: the product became the percentage.
        ("12.5 * 2048", "what is 12.5% of 2048", "12.5% of 2048", 256),
        ("2400 * 7.5", "what is 7.5% of 2,400", "7.5% of 2400", 180),
        ("15 * 80", "quanto fa il 15% di 80?", "15% of 80", 12),
        ("25 * 360", "what's 25 percent of 360 btw", "25% of 360", 90),  # fresh61
        ("20 * 150", "was sind 20 Prozent von 150", "20% of 150", 30),
        # The model's percentage, another calculation, or two percentages: as written.
        ("640 * 0.15", "what's 15% of 640", None, None),
        ("15 * 80 + 3", "15% of 80, plus 3", None, None),
        ("10 * 50", "10% of 50 or 20% of 40?", None, None),
        # A sign said as a word; what comes off an earlier result, taken the wrong way.
        ("3 * 9 / 5 + 32", "convert minus 3 celsius to fahrenheit", "-3 * 9 / 5 + 32", 26.6),
        ("2381 - 2401", "take 2381 off that number", "2401 - 2381", 20),
        ("89 - 1200", "take 89 off that", "1200 - 89", 1111),
        ("1200 - 89", "take 89 off that", None, None),
        ("89 - 1200", "what is 89 minus 1200", None, None),
    ],
)
def test_a_temperature_conversion_or_percentage_the_request_names_is_written_by_the_tool(
    expression: str, request_: str, written: str | None, value: float | None
) -> None:
    assert_rewritten(expression, request_, written, value)


@pytest.mark.parametrize(
    ("expression", "request_", "written", "value"),
    [
        # Computed in the unit the numbers came in; the request asks for another.
        ("50 * 20 * 30", "a tank 50 by 20 by 30 cm, how many litres?", "(50 * 20 * 30) / 1000", 30),
        ("25 * 20 * 10", "Wie viele Liter fasst 25 x 20 x 10 cm?", "(25 * 20 * 10) / 1000", 5),
        ("250 * 6", "six bags of 250 g each, how much is that in kg", "(250 * 6) / 1000", 1.5),
        ("1.5 * 4", "4 bottles of 1.5 l, how many ml altogether?", "(1.5 * 4) * 1000", 6000),
        ("45 * 4", "I cycle 45 minutes 4 times a week: how many hours?", "(45 * 4) / 60", 3),
        ("12 * 350", "12 laps of 350 m, in km please", "(12 * 350) / 1000", 4.2),
        # Converted already, no unit asked, the same unit, or numbers in two units.
        ("50 * 20 * 30 / 1000", "50 by 20 by 30 cm in litres?", None, None),
        ("250 * 6", "six bags of 250 g each, how many grams?", None, None),
        ("250 * 6", "six bags of 250 g each, total?", None, None),
        ("250 + 50", "2 m and 50 cm of rope, how much is that in cm?", None, None),
        ("2500 / 8", "Ho 2,5 kg di impasto, 8 pagnotte: quanti grammi per pagnotta?", None, None),
        ("1.5 * 14", "1500 g a day, how many kg in two weeks?", None, None),
        ("90 * 60", "how many seconds in a 90 min film", None, None),
    ],
)
def test_a_result_in_another_unit_than_its_numbers_is_scaled_to_the_one_asked(
    expression: str, request_: str, written: str | None, value: float | None
) -> None:
    assert_rewritten(expression, request_, written, value)


@pytest.mark.parametrize(
    ("expression", "earlier", "written"),
    [
        # The last result's one number, by any of its names.
        ("ans - 6", [{"expression": "7 * 8", "result": 56}], "56 - 6"),
        ("that^2", [{"angle": 30}], "30^2"),
        ("ANS + 100", [{"angle": -40}], "(-40) + 100"),
        ("it / 2", [{"expression": "3^5", "result": 243}], "243 / 2"),
        ("ans * 3", [{"exit_code": 0, "output": " 11 todo.md\n"}], "11 * 3"),
        ("ans * 2", [{"on": True, "color": "red", "brightness": 40}], "40 * 2"),
        ("sqrt(ans) + pi", [2025.0], "sqrt(2025) + pi"),
        # A field of an earlier result by its name, the latest one.
        ("angle * 12", [{"angle": 5}, {"angle": 30}, {"result": 2}], "30 * 12"),
        ("brightness * 7", [{"on": True, "color": "red", "brightness": 50}], "50 * 7"),
        # Nothing to fill in: no name, or only functions and constants.
        ("2 + 2", [{"result": 4}], None),
        ("max(3, e)", [{"max": 9, "e": 1}], None),
        # A name with no number to stand for stays (the evaluator then says so): the
        # last result holds several numbers, or none; "result" is never an older one.
        ("ans * 50", [{"exit_code": 0, "output": " 2  8 42 notes.txt\n"}], None),
        ("result * 2", [{"result": 7}, {"exit_code": 0, "output": "Buy a new servo."}], None),
        # With no earlier result, an expression that names none runs as written.
        ("2 + 2", [], None),
        ("angle * 2", [], None),
    ],
)
def test_an_expression_may_name_an_earlier_result(
    expression: str, earlier: list[object], written: str | None
) -> None:
    loaded = load_plugin(edgeagent_math, name="math")
    recall = loaded.registry.get("math").recall
    assert recall is not None
    assert recall({"expression": expression}, earlier) == (
        None if written is None else {"expression": written}
    )
    loaded.close()


@pytest.mark.parametrize("expression", ["ans * 3", "That / 2", "sqrt(result)"])
def test_the_last_result_named_where_there_is_none_is_never_run(expression: str) -> None:
    # The primer's follow-up, ans * 3, copied for first turns ("dim it to 20%").
    loaded = load_plugin(edgeagent_math, name="math")
    recall = loaded.registry.get("math").recall
    assert recall is not None
    with pytest.raises(NothingEarlierError, match=r"stands for an earlier result.*none yet"):
        recall({"expression": expression}, [])
    loaded.close()


def test_a_name_with_nothing_to_stand_for_is_an_error_that_says_what_to_write() -> None:
    understood = r"'ans' in 'ans \+ 1' is not understood; .*ans \(the last result"
    with pytest.raises(MathError, match=understood):
        evaluate("ans + 1")


def test_what_comes_off_an_earlier_result_named_ans_is_taken_off_it() -> None:
    # "take 2381 off that number" after 2401 came as 2381 - ans: read again before
    # ans is filled in (the recall), so the difference is the other way round.
    loaded = load_plugin(edgeagent_math, name="math")
    tool = loaded.registry.get("math")
    assert tool.reread is not None and tool.recall is not None
    read = tool.reread({"expression": "2381 - ans"}, "take 2381 off that number")
    assert read == {"expression": "ans - 2381"}
    filled = tool.recall(read, [{"expression": "49 * 49", "result": 2401}])
    assert filled == {"expression": "2401 - 2381"}
    assert tool.reread({"expression": "2381 - ans"}, "what is 2381 minus that") is None
    loaded.close()
