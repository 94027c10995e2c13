"""Words compared without case or accents: what reread hooks and the user-word checks use."""

from __future__ import annotations

import pytest

from edgeagent.plugin import fold, plain


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
