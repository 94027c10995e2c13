"""``decline``: saying no, as a call.

A small model that sees tools calls one: asked to "turn on the fan" it turns on the LED,
because it was told to call tools rather than talk. Wording alone traded tool turns for
restraint (docs/benchmarks_accuracy.md). ``decline`` gives that urge a right answer: a
request that no tool serves is answered by calling ``decline``, which the agent handles
itself. Nothing runs, and the answer says what is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from edgeagent.agent import honesty
from edgeagent.tools.tool import Tool, make_tool, tool

NAME = "decline"
MAX_REASON_CHARS = 200


@tool(name=NAME)
def decline(
    reason: Annotated[
        str, Field(max_length=MAX_REASON_CHARS, description="e.g. 'no tool controls a fan'")
    ],
) -> str:
    """Refuse: the request needs a device or ability none of the other tools has."""
    return reason


def decline_tool() -> Tool:
    return make_tool(decline, plugin="edgeagent")


def decline_answer(arguments: Mapping[str, Any]) -> str:
    """The user's answer to a ``decline`` call: a refusal that never claims a change."""
    reason = str(arguments.get("reason") or "").strip().rstrip(".")
    if not reason or len(reason) > MAX_REASON_CHARS or honesty.claims_change(reason):
        return "I can't do that here: none of my tools can."
    return f"I can't do that here: {reason[0].lower()}{reason[1:]}."
