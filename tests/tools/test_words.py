"""Words compared without case or accents: what reread hooks and the user-word checks use."""

from __future__ import annotations

import pytest

from edgeagent.plugin import fold, one_slip, plain
from edgeagent.tools.words import one_form


@pytest.mark.parametrize(
    ("text", "folded", "plained"),
    [
        ("Martedì?", "martedi?", "martedi"),
        ("Weiß", "weiss", "weiss"),
        (
            "¿Qué tiempo hará pasado MAÑANA?",
            "¿que tiempo hara pasado manana?",
            "que tiempo hara pasado manana",
        ),
        ("camera to -45°", "camera to -45°", "camera to 45"),
        ("après-demain", "apres-demain", "apres demain"),
    ],
)
def test_fold_and_plain(text: str, folded: str, plained: str) -> None:
    assert fold(text) == folded
    assert plain(text) == plained


@pytest.mark.parametrize(
    ("written", "meant"),
    [("yelow", "yellow"), ("lihgts", "lights"), ("purpel", "purple"), ("magneta", "magenta"),
     ("orangee", "orange"), ("turqoise", "turquoise")],
)  # fmt: skip
def test_one_slip_reads_a_word_typed_with_one_slip(written: str, meant: str) -> None:
    assert one_slip(written, meant)


@pytest.mark.parametrize(
    ("written", "meant"),
    [("red", "bed"), ("blue", "blues"), ("yellow", "yellow"), ("purple", "people"),
     ("orange", "oranges!!"), ("silver", "sliver-x")],
)  # fmt: skip
def test_one_slip_is_not_a_short_word_the_same_word_or_two_slips(written: str, meant: str) -> None:
    assert not one_slip(written, meant)


@pytest.mark.parametrize(
    ("written", "said"),
    [("gdynia", "gdyni"), ("tampere", "tampereella"), ("warszawa", "warszawie"),
     ("krakow", "krakowie"), ("hamburg", "hamburgo")],
)  # fmt: skip
def test_one_form_reads_a_name_with_another_ending(written: str, said: str) -> None:
    assert one_form(written, said)


@pytest.mark.parametrize(
    ("written", "said"), [("oslo", "osaka"), ("rome", "roma"), ("munchen", "munich"),
                          ("bergen", "bergamo"), ("lyon", "lymington")]
)  # fmt: skip
def test_one_form_is_not_another_name_with_a_short_shared_start(written: str, said: str) -> None:
    assert not one_form(written, said)
