"""The first number a request says, where the model wrote the last result's name for it
(:func:`edgeagent_math.said.first_number_as_said`): "what's 365 times 24", after a
brightness of 25, came as ``ans * 24`` and gave 600 (fresh45); "what's 25 times 4
divided by 5", after a brightness of 50, as ``ans * 4 / 5`` (fresh47)."""

from __future__ import annotations

import pytest

from tests.plugins.test_math_spoken import reread


@pytest.mark.parametrize(
    ("expression", "request_", "meant"),
    [
        ("ans * 24", "what's 365 times 24", "365 * 24"),
        ("ans * 4 / 5", "what's 25 times 4 divided by 5", "25 * 4 / 5"),
        ("ans / 4", "und 100 geteilt durch 4?", "100 / 4"),
        ("(ans + 2) * 3", "(7 + 2) * 3 please", "(7 + 2) * 3"),
        ("ans * 3", "what is -5 times 3", "-5 * 3"),
        # fresh67: ran as 4 - 7; the first number said negative in words.
        (
            "ans - 7",
            "if it's minus 4 there and drops another 7 degrees, what is it then",
            "(-4) - 7",
        ),
        ("ans - 4", "what is 10 minus 4", "10 - 4"),  # minus between: an operation
        # Every other number written, a percentage as its fraction (fresh58), even
        # where "it" is the bill and not an earlier result.
        ("ans * 1.15 / 4", "bill is $184, add 15% tip and split it four ways", "184 * 1.15 / 4"),
        ("ans * 0.8", "a 60 euro jacket with 20 percent off, what do I pay", "60 * 0.8"),
        ("ans / 4 * 3", "share 120 between 4 people, what do 3 of them get", "120 / 4 * 3"),
    ],
)
def test_the_first_number_said_stands_for_the_name_written_for_it(
    expression: str, request_: str, meant: str
) -> None:
    assert reread(expression, request_) == {"expression": meant}


@pytest.mark.parametrize(
    ("expression", "request_"),
    [
        ("ans * 3 + 7", "times 3 plus 7"),  # goes on from the last result (fresh44)
        ("ans * 24", "and that times 24?"),  # refers back, says one number
        ("ans * 365 * 24", "multiply that by 365 times 24"),  # refers back
        ("ans + 5", "add 5 to the result, then 2 more"),  # refers back
        ("angle * 2", "365 times 2"),  # a field of an earlier result, not the last one
        ("24 * ans", "what's 365 times 24"),  # another order: the model's reading stands
        ("ans * 4", "what's 25 times 4 divided by 5"),  # a number left out besides
        ("ans * 1.15 / 4", "add 15% to it and split it four ways"),  # nothing else said
        ("ans * 1.15 / 3", "$184 plus 15% split four ways"),  # a number nobody said
        ("ans + 184", "add 184 to it, then 4 more"),  # the first is written
    ],
)
def test_a_name_that_stands_for_no_number_said_stays(expression: str, request_: str) -> None:
    assert reread(expression, request_) is None
