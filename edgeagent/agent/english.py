"""A name written in another script, given to a tool in English.

Asked "北京明天天气怎么样？", the model calls ``weather`` with ``location: "北京"``, as
the user wrote it, and Open-Meteo's geocoder, asked for "北京", ranks villages of that
name in Chongqing and Sichuan above the capital (open-meteo/geocoding-api#20); for
"Beijing" it finds the capital. A tool whose service finds names best in English says
which of its parameters those are (:attr:`~edgeagent.tools.tool.Tool.in_english`), and
before such a call runs, a value of one written in another script is asked of the
model alone, in a few constrained tokens: 'What is the place "北京" called in
English?'. Measured on Qwen2.5-Coder-1.5B (bench/english_names.py), it named 29 of 30
places right; the one wrong was 横浜 as "Osaka". So its answer is taken where it is
how the name reads (:func:`~edgeagent.tools.words.transliterates`: "Beijing" for 北京,
"Seoul" for 서울, "Moscow" for Москва), or, where the script does not read so (Japanese
kanji read as Chinese, Arabic, Hebrew, Thai), where the model, asked alone whether the
two are the same place, says yes: asked so of each of the 30 with its right name it
said yes 30 times, and of each with another city's name once (大阪 and Kyoto). A name
whose English the model does not give, or that neither check lets through, stays as
written.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from edgeagent.agent.checks import SideChecks
from edgeagent.errors import LLMError
from edgeagent.llm.base import LLM, GenerateRequest
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.words import in_another_script, transliterates

log = logging.getLogger(__name__)

NAME_GRAMMAR = "root ::= [A-Z] [A-Za-z' .-]*\n"
"""A name in Latin letters (llama.cpp; the Hailo path reads the text and keeps such a
name only)."""
_NAME = re.compile(r"[A-Z][A-Za-z'.-]+(?: [A-Za-z'.-]+){0,2}")
"""A name of up to three words, and nothing after it."""
MAX_NAME_TOKENS = 8


def english_question(name: str) -> str:
    return f'What is the place "{name}" called in English? Answer with the English name only.'


def same_place_question(written: str, english: str) -> str:
    return f'Is "{written}" the same place as {english}? Answer yes or no.'


async def in_english(
    calls: Sequence[ToolCall], *, checks: SideChecks, session: str
) -> list[ToolCall]:
    """``calls`` with each value of a parameter its tool wants in English
    (:attr:`~edgeagent.tools.tool.Tool.in_english`) that is written in another script
    given as the model's English name for it, where that is how it reads."""
    given = []
    registry = checks.registry
    for call in calls:
        tool = registry.get(call.name) if call.name in registry else None
        if tool is None or not tool.in_english or not isinstance(call.arguments, dict):
            given.append(call)
            continue
        arguments = dict(call.arguments)
        for name in tool.in_english:
            value = arguments.get(name)
            if not isinstance(value, str) or not in_another_script(value):
                continue
            english = await _english(value, llm=checks.llm, session=session)
            if english is not None and await _same(value, english, checks, session=session):
                log.info("%s %s=%r, in English %r", call.name, name, value, english)
                arguments[name] = english
            else:
                log.info("%s %s=%r stays: the model's English %r", call.name, name, value, english)
        given.append(ToolCall(call.name, arguments) if arguments != call.arguments else call)
    return given


async def _same(written: str, english: str, checks: SideChecks, *, session: str) -> bool:
    """Whether ``english`` is how ``written`` reads, or the model, asked alone, says
    the two are the same place."""
    if transliterates(english, written):
        return True
    return await checks.ask(same_place_question(written, english), session=session) == "yes"


async def _english(value: str, *, llm: LLM, session: str) -> str | None:
    """The model's English name for the place ``value``, alone, or ``None``."""
    request = GenerateRequest(
        messages=[{"role": "user", "content": english_question(value)}],
        session=session,
        max_tokens=MAX_NAME_TOKENS,
        temperature=0.0,
        grammar=NAME_GRAMMAR,
        aside=True,
    )
    text = ""
    try:
        async for piece in llm.stream(request):
            text += piece
    except LLMError as exc:
        log.warning("asking a name in English failed: %s", exc)
        return None
    found = _NAME.fullmatch(text.strip().rstrip("."))
    return found.group(0) if found else None
