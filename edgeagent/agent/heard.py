"""What the user said: the values of a call that no user message holds.

A small model fills in values of its own for an unclear request ("make the lights feel
like a Tuesday" came as ``{"color": "blue", "brightness": 50}``). The side questions
(:mod:`.checks`) and a refusal's second look (:mod:`.second_look`) ask this module
which of a call's values nobody said: a word, a number, a file name, counted as said
where the user typed it with one slip, wrote two words as one, named a file by its
stem, or where the tool itself reads it from the request.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Sequence
from typing import Any

from edgeagent.agent.carried import leaves, number, numbers_in
from edgeagent.agent.honesty import NUMBER
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.words import FILE_SUFFIX, fold, one_slip, plain

log = logging.getLogger(__name__)


class Heard:
    """What the user said, judged for the calls of the tools in one ``registry``."""

    def __init__(self, *, registry: ToolRegistry) -> None:
        self.registry = registry

    def unsaid(self, calls: Sequence[ToolCall], *, said: str, request: str = "") -> str | None:
        """The first argument value of ``calls`` that no user message said (a word, a
        number, a file name; options such as ``-n`` and true/false aside), or ``None``.

        For a call the model made only on a second look, after it refused: one that
        restates the user's own values ("make them coral" -> ``{"color": "coral"}``)
        runs; one that fills in values of its own for an unclear request ("make the
        lights feel like a Tuesday" -> ``{"color": "blue", "brightness": 50}``, "make it
        do the thing" -> ``{"color": "red"}``, both measured) is a guess, and the
        refusal stands.

        A file named by its stem counts as said: "show me notes" -> ``notes.txt``
        (the shell reads a stem's only file as that file either way). So does a value
        the tool reads from the ``request`` itself (its ``reread`` of no arguments):
        "che tempo fa a Bologna sabato?" -> ``day: "saturday"``."""
        for call in calls:
            unheard = self.unheard(call, said=said, request=request)
            guesses = [v for v in leaves(call.arguments) if unheard(v)]
            if guesses and not self._read_as_said(call, request, unheard):
                return str(guesses[0])
        return None

    def _read_as_said(
        self, call: ToolCall, request: str, unheard: Callable[[object], bool]
    ) -> bool:
        """Whether ``call``'s tool reads it again from ``request`` (its ``reread``) into
        values all said: "Kannst du die Kamera ganz nach links drehen?", refused, came
        on a second look as ``left: 15``, which the servo reads as the angle -90, and
        was refused as a guess (blind prompts)."""
        tool = self.registry.get(call.name) if request and call.name in self.registry else None
        if tool is None or tool.reread is None or not isinstance(call.arguments, dict):
            return False
        try:
            again = tool.reread(dict(call.arguments), request)
        except Exception:
            log.exception("%s: its reread failed", call.name)
            return False
        return bool(again) and not any(unheard(v) for v in leaves(again))

    def said_only(
        self, calls: Sequence[ToolCall], *, said: str, request: str = ""
    ) -> list[ToolCall]:
        """``calls`` without the optional arguments whose values no user message said,
        where what is left still holds a value the user said (:meth:`unsaid` then
        judges what is left). "gimme some gold on the shelf lights", on a second look,
        came as ``{"color": "gold", "brightness": 100}``, and the 100 nobody said
        refused it all (blind prompts); "make the lights feel like a Tuesday" as
        ``{"color": "blue", "brightness": 50}`` keeps nothing said, and stays a guess."""
        kept_calls = []
        for call in calls:
            tool = self.registry.get(call.name) if call.name in self.registry else None
            if tool is None or not isinstance(call.arguments, dict):
                kept_calls.append(call)
                continue
            required = set(tool.parameters.get("required", []))
            unheard = self.unheard(call, said=said, request=request)
            kept = {
                name: value
                for name, value in call.arguments.items()
                if name in required or not any(unheard(leaf) for leaf in leaves(value))
            }
            heard = [v for v in leaves(kept) if not isinstance(v, bool) and v is not None]
            if kept != call.arguments and heard:
                log.info("%s %r without what nobody said: %r", call.name, call.arguments, kept)
                call = ToolCall(call.name, kept)
            kept_calls.append(call)
        return kept_calls

    def unheard(self, call: ToolCall, *, said: str, request: str) -> Callable[[object], bool]:
        """Whether a value of ``call`` is one no user message ``said`` (:meth:`unsaid`).
        Two said words written as one ("skyblue" for "sky blue") count as said, and so
        does a word the user typed with one slip (:func:`~edgeagent.tools.words.one_slip`):
        "tunr the lihgts to yelow" came as ``color: "yellow"`` and was refused as a
        guess (blind prompts)."""
        heard = plain(said)
        spoken = heard.split()
        joined = {a + b for a, b in itertools.pairwise(spoken)}  # "sky blue"
        numbers = numbers_in(said)
        read = self._read_from(call.name, request)
        read_words = {fold(v.strip()) for v in read if isinstance(v, str)}

        def unheard(value: object) -> bool:
            if isinstance(value, bool) or value is None or value in read:
                return False
            if isinstance(value, str) and fold(value.strip()) in read_words:
                return False
            if isinstance(value, int | float):
                return number(str(abs(value))) not in numbers
            if isinstance(value, str) and not value.startswith("-"):
                words = plain(FILE_SUFFIX.sub("", value))
                if not words or f" {words} " in f" {heard} " or words in joined:
                    return False
                return not any(one_slip(s, words) for s in spoken)  # "yelow" is yellow
            return False

        return unheard

    def from_memory(self, call: ToolCall, request: str, *, known: str) -> bool:
        """Whether ``call``'s read tool, which says when a request gives its values
        (:attr:`~edgeagent.tools.tool.Tool.given_in`), is called for a ``request`` that
        gives none with numbers (0 and 1 aside) of which nothing ``known`` holds any
        (what the user said, and the turn a follow-up goes on from): it works on what
        the model knows. "how many planets are in the solar system?" came as ``50 *
        3`` (fresh72). One earlier number makes it a follow-up: "and for a week of
        that?" as ``405 * 7``."""
        tool = self.registry.get(call.name) if call.name in self.registry else None
        if tool is None or tool.given_in is None or not tool.given_otherwise:
            return False
        if tool.given_in(request):
            return False
        told = numbers_in(known)
        written = [
            number(n)
            for leaf in leaves(call.arguments)
            if isinstance(leaf, str | int | float) and not isinstance(leaf, bool)
            for n in NUMBER.findall(str(leaf))
        ]
        worked = [n for n in written if n not in ("0", "1")]
        return bool(worked) and not any(n in told for n in worked)

    def _read_from(self, name: str, request: str) -> list[Any]:
        """The values tool ``name`` reads from ``request`` by itself (its ``reread`` of
        a call with no arguments) and those it says are said there (its ``said_in``);
        none when it has neither or they fail."""
        tool = self.registry.get(name) if request and name in self.registry else None
        if tool is None:
            return []
        values: list[Any] = []
        try:
            if tool.reread is not None:
                values += list(leaves(tool.reread({}, request) or {}))
            if tool.said_in is not None:
                values += list(tool.said_in(request))
        except Exception:
            log.exception("%s: a hook that reads the request failed", name)
        return values
