"""A follow-up that asks the last read again, with one thing said otherwise.

In conversations the model answers short follow-ups itself: "e dopodomani lì?" after
the weather in Bologna came back as "Dopodomani lì?", "Und am Samstag dort?" and "how
about sunday over there?" as refusals (four turns in three blind prompt sets). The
request changes one value of the last call, and that call's tool reads such values
from a request (:attr:`~edgeagent.tools.tool.Tool.reread`: a day in six languages, the
count ``wc`` counts). So where the model answered without a call, the conversation's
last call, a read, is read again from this request; when that changes it, and the
model, asked alone, says the request is about that tool's title, the call runs as read.

Only a read tool's call: an acting tool's, run again, would act a second time. And only
a request that says something otherwise: "great, now wipe the log" after "the first 3
lines of it" read ``head`` again without the count (a request that speaks of no lines
asks for none) and listed ten lines for an order no read serves (fresh66). An order to
change things asks no read again, nor does a reading that only leaves out what the last
call gave.
"""

from __future__ import annotations

import json
import logging
from itertools import pairwise
from typing import Any

from edgeagent.agent.asks import asks_a_change, asks_a_question
from edgeagent.agent.checks import SideChecks
from edgeagent.agent.context import Conversation
from edgeagent.agent.honesty import target_question
from edgeagent.tools.calls import CallFormat
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.tool import ToolKind

log = logging.getLogger(__name__)


def last_read(
    conversation: Conversation, call_format: CallFormat, checks: SideChecks
) -> ToolCall | None:
    """The conversation's last successful call before this turn, if it is of a titled
    read tool with a reread; else ``None``. A turn without a call may come between
    ("perfetto, grazie!")."""
    starts = conversation.turn_starts()
    if len(starts) < 2:
        return None
    messages = conversation.messages[starts[0] : starts[-1]]
    found = None
    for message, reply in pairwise(messages):
        if message["role"] != "assistant" or reply["role"] != "tool":
            continue
        calls = call_format.parse(str(message["content"])).calls
        try:
            ok = json.loads(str(reply["content"])).get("ok") is True
        except (ValueError, AttributeError):
            ok = False
        if len(calls) == 1 and ok:
            found = calls[0]
    if found is None or found.name not in checks.registry:
        return None
    tool = checks.registry.get(found.name)
    if tool.kind is not ToolKind.READ or tool.reread is None or not tool.title:
        return None
    return found


async def asked_again(
    conversation: Conversation,
    *,
    request: str,
    call_format: CallFormat,
    checks: SideChecks,
) -> ToolCall | None:
    """The conversation's last read call as ``request`` says it, where that differs
    from it and the model, asked alone, says the request is about its tool; else
    ``None``."""
    if asks_a_change(request) and not asks_a_question(request):
        return None
    last = last_read(conversation, call_format, checks)
    if last is None:
        return None
    again = checks.reread([last], request=request)[0]
    if again.arguments == last.arguments or _only_leaves_out(again.arguments, last.arguments):
        return None
    title = checks.registry.get(last.name).title
    answer = await checks.ask(target_question(request, title), session=conversation.id)
    log.info("follow-up check: %r for %s -> %r", request[:60], last.name, answer)
    return again if answer == "yes" else None


def _only_leaves_out(again: Any, last: Any) -> bool:
    """Whether the arguments ``again`` are ``last`` with some of their keys or list items
    left out, and nothing added or changed: ``head`` of a file without its count."""
    if isinstance(again, dict) and isinstance(last, dict):
        return again.keys() <= last.keys() and all(
            again[key] == last[key] or _only_leaves_out(again[key], last[key]) for key in again
        )
    if isinstance(again, list) and isinstance(last, list):
        items = iter(last)
        return len(again) < len(last) and all(item in items for item in again)
    return False
