"""A turn's llama.cpp grammars: what each constrained step of the agent may write.

Each grammar admits calls of some of the turn's shown tools, in the call format's own
markers: every step's (``[llm.llamacpp] grammar``: a call or plain text), a forced read
(:meth:`edgeagent.agent.checks.SideChecks.needs_a_call`), a refusal's second look and
the looks after it (:mod:`edgeagent.agent.second_look`), and the act after a read
(:func:`edgeagent.agent.answer.then_acts`). The composition root decides whether the
engine takes grammars at all; this module decides what each one admits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from edgeagent.agent.decline import NAME as DECLINE
from edgeagent.tools.calls import CallFormat
from edgeagent.tools.tool import Tool, ToolKind


class TurnGrammars(NamedTuple):
    """A turn's llama.cpp grammars (``None``: that step runs unconstrained)."""

    grammar: str | None = None
    """[llm.llamacpp] grammar: every step, a call of a shown tool or plain text."""
    call: str | None = None
    """A forced call of a read tool: for a value only a tool can know."""
    recheck: str | None = None
    """A refusal's second look: a call of a titled tool."""
    recheck_without: Mapping[str, str] = MappingProxyType({})
    """The second look asked again without one titled read tool, by its name."""
    recheck_elsewhere: Mapping[str, str] = MappingProxyType({})
    """A look after the checks refused a call by its topic: the titled tools of the
    other plugins (and of no wrapper of the same tool), by the refused tool's name."""
    act: str | None = None
    """A forced call of an acting tool: after a read the request then acts on."""


def turn_grammars(
    shown: Sequence[Tool], *, call_format: CallFormat, every_step: bool, second_look: bool
) -> TurnGrammars:
    """The grammars of a turn that shows the ``shown`` tools (each one llama.cpp can
    make a grammar of), in ``call_format``'s markers; ``every_step``: the grammar of
    every step too; ``second_look``: those of the looks after a refusal (they need the
    side questions, ``[agent] check_target``)."""
    from edgeagent.llm.grammar import build_tool_grammar

    opener = call_format.marker + ("json\n" if call_format.name == "fence" else "")
    closer = call_format.end_marker

    def of(tools: Sequence[Tool]) -> str:
        return build_tool_grammar(tools, open_marker=opener, close_marker=closer, require_call=True)

    # A forced call is for a value only a tool can know: never an acting tool.
    readers = [t for t in shown if t.kind is ToolKind.READ and t.name != DECLINE]
    # A refusal's second look: a call of a tool with a title, which the side
    # questions check before it runs (never one they would not ask about).
    titled = [t for t in shown if t.title and t.name != DECLINE]
    recheck = None
    without: dict[str, str] = {}
    elsewhere: dict[str, str] = {}
    if titled and second_look:
        recheck = of(titled)
        for tool in titled:
            # Asked again when the checks refuse a second look's read tool; a wrapper's
            # among the tools that run the same one ("what's on my todo list": ls todo
            # refused, looked at again among all it gave math 1 + 1, not cat todo).
            # A tool that answers only what it is asked for (asked_in: wc, a count) is
            # left out: "what's on my todo list?", refused, came as ls todo, then
            # without ls as wc todo, which its own check refuses (blind prompts).
            others = [t for t in titled if t is not tool and t.asked_in is None]
            runs = tool.extra.get("wrapped")
            siblings = [t for t in others if runs and t.extra.get("wrapped") == runs]
            others = siblings or others
            if tool.kind is ToolKind.READ and others:
                without[tool.name] = of(others)
            # "light's a bit harsh, take it down to 35" came as math, which its
            # topic question refused; the look is among the other devices and reads.
            apart = [
                t
                for t in titled
                if t.plugin != tool.plugin and not (runs and t.extra.get("wrapped") == runs)
            ]
            if apart:
                elsewhere[tool.name] = of(apart)
    grammar = None
    if every_step:
        grammar = build_tool_grammar(
            shown, open_marker=opener, close_marker=closer, calls_first=True
        )
    actors = [t for t in shown if t.kind is ToolKind.ACT and t.name != DECLINE]
    return TurnGrammars(
        grammar=grammar,
        call=of(readers) if readers else None,
        recheck=recheck,
        recheck_without=without,
        recheck_elsewhere=elsewhere,
        act=of(actors) if actors else None,
    )
