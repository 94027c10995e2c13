"""An operation said in words of another language is the one that runs
(:mod:`edgeagent_math.spoken`): "45 osztva 0,9-cel" (Hungarian, 45 divided by 0.9) came
as ``45 * 0.9``, and "17 a négyzeten" (17 squared) as ``17 % 4`` (fresh39, fresh42)."""

from __future__ import annotations

import edgeagent_math
import pytest

from edgeagent.testing import load_plugin


def reread(expression: str, request: str) -> object:
    loaded = load_plugin(edgeagent_math, name="math")
    try:
        hook = loaded.registry.get("math").reread
        assert hook is not None
        return hook({"expression": expression}, request)
    finally:
        loaded.close()


@pytest.mark.parametrize(
    ("expression", "request_", "meant"),
    [
        ("72 * 0.8", "Kuinka paljon on 72 jaettuna 0,8:lla?", "72 / 0.8"),  # Finnish
        ("100 * 8", "Hoeveel is 100 gedeeld door 8?", "100 / 8"),  # Dutch
        ("12 + 7", "Was ist 12 mal 7?", "12 * 7"),  # German
        ("63 / 9", "Kolik je 63 děleno 9?", "63 / 9"),  # already right: as written
        ("9 / 63", "Kolik je 63 děleno 9?", "63 / 9"),  # the other way round
        ("14 * 2", "Quanto fa 14 al quadrato?", "14^2"),  # Italian
        ("6 % 3", "Mennyi 6 a köbön?", "6^3"),  # Hungarian, cubed
        ("31 - 4", "31 eksi 4 kaç eder?", "31 - 4"),  # Turkish, right already
    ],
)
def test_an_operation_said_in_words_is_the_one_that_runs(
    expression: str, request_: str, meant: str
) -> None:
    read = reread(expression, request_)
    assert read == (None if meant == expression else {"expression": meant})


@pytest.mark.parametrize(
    ("expression", "request_"),
    [
        ("5 * 60 + 30", "how many seconds is 5 minutes and 30 seconds?"),
        ("-5 * 3", "what is minus 5 times 3"),  # a sign before it
        ("12 * 7 + 2", "12 mal 7 plus 2"),  # two operations said
        ("100 / 4 * 3", "Was ist 100 geteilt durch 4, mal 3?"),  # two
        ("2 * 3", "Was ist 12 mal 7?"),  # other numbers: another calculation
        ("ans * 3 + 7", "times 3 plus 7"),  # an earlier result (fresh44)
        ("sqrt(16) * 2", "16 mal 2"),  # a function
        ("12**2 + 7", "what's 12 squared plus 7"),  # another operation (fresh59)
        ("12**2 + 7", "what's 12 squared plus seven"),  # its number in words
        ("12**2 * 3", "12 squared, and that 3 times over"),  # another number
    ],
)
def test_an_expression_the_request_does_not_say_as_one_operation_stays(
    expression: str, request_: str
) -> None:
    assert reread(expression, request_) is None
