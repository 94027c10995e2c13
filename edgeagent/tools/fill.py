"""What a call's text must say next, so that an engine can fill it in without sampling.

Half of a call's tokens are fixed by its format: ```` ```json ```` then
``{"name": "``, the tool's name, ``", "arguments":``, the arguments, ``}}`` and the
closing fence. A model writes each fixed token in a decode of its own (50-80 ms on two
cores); an engine that knows what comes next evaluates the fixed run in one batch
instead. :class:`CallFill` says what comes next; the engine checks every filled token
against the call grammar, so a fill never writes what the grammar would not allow, and
only a generation under a grammar is filled: with the shipped config (``[llm.llamacpp]
grammar`` off) the forced calls, a forced call 1.07 s against 1.41 s (docs/benchmarks.md).

Only the canonical spelling is filled (the one :meth:`CallFormat.render_call` writes and
the history shows): a model that writes ``{"name":"led"`` gets nothing filled.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from edgeagent.tools.calls import CallFormat

NAME_START = '{"name": "'
ARGUMENTS_START = ', "arguments":'
"""Not the brace: the model writes `` {"`` or `` {}`` as one token, and `` {`` alone
led it to `` { "on": false }``."""
_NAMED = re.compile(r'\{"name": "[^"\\]+"')
_DECODER = json.JSONDecoder()


class CallFill:
    """The fixed text of calls written ``opener {"name": ..., "arguments": {...}} closer``.

    ``opener`` is what the call grammar opens a call with (```` ```json\\n ```` for the
    fence format, ``<tool_call>`` for the json format), ``closer`` what it closes one
    with; ``before_closer`` is what the canonical rendering puts between the object and
    the closer (``"\\n"`` for the fence)."""

    def __init__(self, opener: str, closer: str, *, before_closer: str = "") -> None:
        self.opener = opener
        self.closer = closer
        self.before_closer = before_closer

    def __call__(self, text: str) -> str:
        at = text.rfind(self.opener)
        if at < 0:
            return ""
        call = text[at + len(self.opener) :]
        if self.closer in call:
            return ""  # closed: what follows is the model's
        if NAME_START.startswith(call):
            return NAME_START[len(call) :]
        named = _NAMED.match(call)
        if named is None:
            return ""
        rest = call[named.end() :]
        if ARGUMENTS_START.startswith(rest) and rest != ARGUMENTS_START:
            return ARGUMENTS_START[len(rest) :]
        try:
            _, end = _DECODER.raw_decode(call)
        except ValueError:
            return ""  # the arguments are still being written
        tail = self.before_closer + self.closer
        after = call[end:]
        return tail[len(after) :] if tail.startswith(after) else ""


def fill_for(call_format: CallFormat) -> CallFill | None:
    """The fill for the calls a grammar admits in ``call_format`` (json and fence, the
    formats :func:`~edgeagent.llm.grammar.build_tool_grammar` is built for)."""
    if call_format.name == "fence":
        return CallFill(call_format.marker + "json\n", call_format.end_marker, before_closer="\n")
    if call_format.name == "json":
        return CallFill(call_format.marker, call_format.end_marker)
    return None
