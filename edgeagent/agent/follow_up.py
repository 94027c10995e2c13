"""A follow-up that asks the last read again, with one thing said otherwise.

In conversations the model answers short follow-ups itself: "e dopodomani lì?" after
the weather in Bologna came back as "Dopodomani lì?", "Und am Samstag dort?" and "how
about sunday over there?" as refusals (four turns in three blind prompt sets). The
request changes one value of the last call, and that call's tool reads such values
from a request (:attr:`~edgeagent.tools.tool.Tool.reread`: a day in six languages, the
count ``wc`` counts). So where the model answered without a call, the conversation's
last call, a read, is read again from this request; when that changes it, and the
model, asked alone, says the request is about that tool's title, the call runs as read.

Only a read tool's call: an acting tool's, run again, would act a second time; unless
the request asks for nothing but that ("again", "do that once more", "nochmal"): then
the last call, whatever its tool, runs again as its tool reads "again". And only a
request that says something otherwise: "great, now wipe the log" after "the first 3
lines of it" read ``head`` again without the count (a request that speaks of no lines
asks for none) and listed ten lines for an order no read serves (fresh66). An order to
change things asks no read again, nor does a reading that only leaves out what the last
call gave.
"""

from __future__ import annotations

import json
import logging
import re
from itertools import pairwise
from typing import Any

from edgeagent.agent.asks import asks_a_change, asks_a_question
from edgeagent.agent.checks import SideChecks
from edgeagent.agent.context import Conversation
from edgeagent.agent.honesty import target_question
from edgeagent.tools.calls import CallFormat
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.tool import ToolKind
from edgeagent.tools.words import fold

log = logging.getLogger(__name__)


# A request that asks only for the last thing again: "again", "once more", "do that
# again", "nochmal", "encore une fois", "otra vez", "di nuovo", "jeszcze raz", "igen".
_AGAIN_ALONE = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|and|now|so|yes|yeah|please|pls|do\s+(?:it|that|this)|"
    r"(?:the\s+)?same(?:\s+thing)?)\W+)*"
    r"(?:again|once\s+more|one\s+more\s+time|repeat(?:\s+(?:it|that))?|nochmal|"
    r"noch\s*(?:ein)?mal|encore(?:\s+une\s+fois)?|otra\s+vez|de\s+nuevo|di\s+nuovo|"
    r"ancora(?:\s+una\s+volta)?|outra\s+vez|de\s+novo|nog\s+(?:een\s+)?keer|opnieuw|"
    r"jeszcze\s+raz|igen|en\s+gang\s+till|uudelleen|znovu|еще\s+раз|もう一度|再来一次)"
    r"(?:\W+(?:please|pls|bitte|por\s+favor|per\s+favore|s'?il\s+(?:te|vous)\s+pla[iî]t))?"
    r"\W*$"
)


def asks_only_again(request: str) -> bool:
    """Whether ``request`` asks only for the last thing again ("again", "do that once
    more", "nochmal bitte")."""
    return bool(_AGAIN_ALONE.match(fold(request)))


def last_call(conversation: Conversation, call_format: CallFormat) -> ToolCall | None:
    """The conversation's last successful call before this turn, where its step made
    only that one; else ``None``. A turn without a call may come between ("perfetto,
    grazie!")."""
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
    return found


def last_read(
    conversation: Conversation, call_format: CallFormat, checks: SideChecks
) -> ToolCall | None:
    """The conversation's last successful call before this turn (:func:`last_call`),
    if it is of a titled read tool with a reread; else ``None``."""
    found = last_call(conversation, call_format)
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
    from it and the model, asked alone, says the request is about its tool; or, for a
    request that asks only for the last thing again, the conversation's last call as
    its tool reads "again", whatever it was ("again" after a turn of the camera and a
    chat turn was answered with the chat turn's refusal; fresh75); else ``None``."""
    if asks_only_again(request):
        last = last_call(conversation, call_format)
        if last is None or last.name not in checks.registry:
            return None
        log.info("asked only again: %s once more", last.name)
        return checks.reread([last], request=request)[0]
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
