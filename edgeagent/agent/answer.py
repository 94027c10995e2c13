"""The turn's answer: built from the tools' results, or the model's own text, checked.

An acting call's confirmation is never generated: each tool words its own result
(:attr:`~edgeagent.tools.tool.Tool.answer`), so an answer cannot claim what did not
happen, and a generation is saved. Text the model writes goes through
:func:`~edgeagent.agent.honesty.checked_answer` before anyone sees it as the answer.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from edgeagent.agent import honesty
from edgeagent.agent.context import Conversation
from edgeagent.agent.sanitize import sanitize
from edgeagent.llm.base import Message
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import Tool, ToolKind
from edgeagent.tools.words import plain

log = logging.getLogger(__name__)


def acted(records: list[dict[str, Any]]) -> bool:
    """Whether a call of this turn succeeded (a change or a value it may report)."""
    return any(r.get("ok") for r in records)


def failed_to_act(records: list[dict[str, Any]], registry: ToolRegistry) -> bool:
    """Whether a call of an acting tool failed this turn: its failure is the answer.

    Measured: after a failed acting call the model states the device's state from
    memory ("The servo angle is already set to purple."); a forced read of that state
    then answered a question nobody asked ("The servo is at 70°." for "point the servo
    at purple") where the user must hear that the request failed."""
    return any(
        not r.get("ok") and r["name"] in registry and registry.get(r["name"]).kind is ToolKind.ACT
        for r in records
    )


def built_answer(step_records: list[dict[str, Any]], registry: ToolRegistry) -> str | None:
    """The answer from a step's results, if all succeeded and their tools word them."""
    if not step_records or not all(r.get("ok") for r in step_records):
        return None
    parts = []
    for record in step_records:
        tool = registry.get(record["name"])
        if tool.answer is None:
            return None
        try:
            parts.append(tool.answer(record["result"]).strip())
        except Exception:  # a template bug must not lose the result
            log.exception("answer template of %r failed", record["name"])
            return None
    return "\n".join(p for p in parts if p) or None


def text_answer(
    conversation: Conversation,
    text: str,
    *,
    prompt: str,
    raw: str,
    records: list[dict[str, Any]],
    examples: Sequence[Message],
    registry: ToolRegistry,
) -> str:
    """The answer from the model's own text (checked), into the history."""
    text = text.strip()
    answer = honesty.checked_answer(
        text,
        prompt=prompt,
        raw=raw,
        records=records,
        instructions=conversation.system_prompt,
        examples=examples,
        missing=[r["name"] for r in records if r["name"] not in registry],
    )
    if answer != text and not acted(records):
        # A turn that did nothing and was answered by a fixed sentence leaves no
        # trace: the model would copy the sentence in later turns.
        del conversation.messages[conversation.turn_starts()[-1] :]
    else:
        conversation.messages.append({"role": "assistant", "content": sanitize(answer)})
    return answer


def unrepeated(text: str, *, prompt: str, earlier: Sequence[str]) -> str:
    """``text``, or where it is one of the conversation's ``earlier`` answers again in a
    turn where no call succeeded, an answer that names this request.

    Measured in blind prompt sets: "print it out for me" got the log lines of an
    earlier answer again, "snap a pic of the feeder" the refusal of the turn before,
    word for word: a stale value, or a refusal of another request. A refusal stays one,
    naming the request it refuses; anything else did not understand it."""
    if not honesty.repeats(text, earlier):
        return text
    log.info("answer repeats an earlier one of the conversation: %r", text[:120])
    asked = " ".join(prompt.split())
    if honesty.refuses(text):
        return f'{text.strip().rstrip(".")} ("{asked}").'
    return f'Sorry, I did not understand "{asked}". Could you say it another way?'


# Asking a device to do something: "use it as the brightness", "set the lamp to that",
# "put the light at that many times ten", "point the camera that many degrees right".
_ACT_VERB = re.compile(
    r"\b(?:use|set|put|make|turn|dim|brighten|lower|raise|adjust|bump|drop|point|aim|pan|"
    r"move|rotate|swing|change|switch|apply|halve|double|triple|increase|decrease|reduce|"
    r"boost)\b"
)
# A question about a device's value acts on nothing: "what's double the brightness?".
_WH_QUESTION = re.compile(r"^\W*(?:what|what s|whats|how|which|when|why|where|who)\b")
# A title's words that are no device: "the servo that turns the camera (angles, left,
# right)" names the servo and the camera.
_NOT_DEVICE = frozenset({"the", "and", "that", "turn", "left", "right", "with", "for"})


def then_acts(step_records: list[dict[str, Any]], registry: ToolRegistry, prompt: str) -> bool:
    """Whether a step's successful reads are the first half of a request that then asks
    a device to act: "take a third of that number and use it as the brightness" came as
    ``math`` alone, and its answer ("324 / 3 = 108") ended the turn with the strip as
    it was (four turns in two blind prompt sets); so did "bit brighter, double it" and
    "ok now halve the brightness". A question ("what's double the brightness?") acts
    on nothing. The request asks an act of another
    plugin's device when it holds an act verb and a word of an acting tool's title
    (``led``: "the LED strip (lights, lamp, colors, brightness)"); a read of the same
    plugin ("what brightness is the strip at?", ``led_state``) is the answer."""
    if not step_records or not all(r.get("ok") for r in step_records):
        return False
    read = [registry.get(r["name"]) for r in step_records if r["name"] in registry]
    if len(read) != len(step_records) or any(t.kind is ToolKind.ACT for t in read):
        return False
    said = plain(prompt)
    if not _ACT_VERB.search(said) or _WH_QUESTION.search(said):
        return False
    plugins = {t.plugin for t in read}
    return any(
        t.kind is ToolKind.ACT and t.plugin not in plugins and names_device(prompt, t)
        for t in registry
    )


def names_device(request: str, tool: Tool) -> bool:
    """Whether ``request`` says a word of ``tool``'s title (its device: "lights" and
    "lamp" for the LED strip, "camera" for the servo)."""
    return bool(tool.title and _stems(request) & _stems(tool.title))


def names_its_device(request: str, tool: Tool) -> bool:
    """Whether ``request`` names ``tool``'s device: a word of its title, or its own
    :attr:`~edgeagent.tools.tool.Tool.named_in` ("kill the shop light")."""
    return names_device(request, tool) or (tool.named_in is not None and tool.named_in(request))


def _stems(text: str) -> set[str]:
    """Words of three letters or more without a plural "s": "lights" -> "light"."""
    words = {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in plain(text).split()}
    return {w for w in words if len(w) >= 3 and w not in _NOT_DEVICE}
