"""Whether a request writes or names a calculation itself.

The topic question before a ``math`` call ("is this request a math problem to
calculate?") costs about a second on two cores. Over every record of the blind sets
and the 408, it said yes to each of the 253 math calls for a request that writes an
operation between numbers ("(48 + 12) / 4", "5!", "30% of 90") or names one ("times",
"square root", "average of") and whose numbers the call holds; such a request is the
tool's own (:attr:`~edgeagent.tools.tool.Tool.named_in`), and the question is not
asked. Any other request faces it: "73 means best regards in ham speak right? what
does 88 mean" came as ``ans * 73``.
"""

from __future__ import annotations

import re

from edgeagent.plugin import fold

_WRITTEN = re.compile(r"\d\s*(?:[-+*/^×÷]|\*\*)\s*[\d(]|\d!|\d\s*%\s*of\b")
_NAMED = re.compile(
    r"\b(?:percent\s+of|sqrt|square\s+root|cube\s+root|squared|cubed|times|plus|minus|divided|"
    r"multiply|multiplied|average|mean\s+of|sum|factorial|log(?:arithm)?\d*|ln|calculate|"
    r"calculation|compute|power\s+of)\b|\b(?:sin|cos|tan)\s*(?:\(|of\b)"
)


def names_a_calculation(request: str) -> bool:
    """Whether ``request`` writes an operation between numbers or names one, with a
    number to work on."""
    text = fold(request)
    return bool(re.search(r"\d", text)) and bool(_WRITTEN.search(text) or _NAMED.search(text))
