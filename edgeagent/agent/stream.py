"""One generation, streamed: what the user sees of it, and its raw text.

The stream stops early once a call is complete and the model goes on to chat (what
follows a call is never used), and withholds text that claims a change while no acting
call has succeeded: the turn's final answer replaces it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from edgeagent.agent import honesty
from edgeagent.agent.events import ErrorEvent, TextChunk
from edgeagent.agent.meter import TurnMeter
from edgeagent.errors import LLMError
from edgeagent.llm.base import LLM, GenerateRequest
from edgeagent.tools.calls import CallFormat, ParsedOutput

if TYPE_CHECKING:
    from edgeagent.agent.context import Conversation

log = logging.getLogger(__name__)


async def stream_generation(
    llm: LLM,
    request: GenerateRequest,
    *,
    call_format: CallFormat,
    meter: TurnMeter,
    trusted: bool,
    hold_refusal: bool = False,
    asked: str = "",
    quiet: bool = False,
) -> AsyncGenerator[TextChunk | ErrorEvent | str, None]:
    """Stream ``request`` on ``llm``: visible TextChunks, then the raw text (or an
    ErrorEvent when the backend fails).

    Text that claims a change is withheld unless ``trusted`` (an acting call of the turn
    succeeded); with ``hold_refusal`` a refusal is withheld too, and text that may ask
    the request ``asked`` back (a second look may replace either with a call); with
    ``quiet``, everything (an answer a mending or acting call may replace)."""
    shown = call_format.stream_filter()
    pieces: list[str] = []
    said = ""
    withheld = False
    stream = llm.stream(request)
    try:
        try:
            async for piece in stream:
                meter.piece()
                pieces.append(piece)
                visible = shown.feed(piece)
                if shown.calls and visible.strip():
                    break  # chatter after a call: the call is what counts
                said += visible
                if not trusted and not withheld and honesty.tells_device(said):
                    withheld = True
                if hold_refusal and not withheld and honesty.stands_in(said, asked=asked):
                    withheld = True
                if hold_refusal and not withheld and honesty.begins_asking_back(said, asked):
                    withheld = True
                if visible and not withheld and not quiet:
                    yield TextChunk(visible)
        finally:
            # Close the backend's stream now (not when garbage collected), so a
            # client that goes away stops the generation at once.
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
        tail = shown.flush()
        if tail and not withheld and not quiet and not shown.calls:
            yield TextChunk(tail)
    except LLMError as exc:
        yield ErrorEvent(f"The model backend failed: {exc}")
        return
    except Exception as exc:  # a backend bug must end the turn, not the daemon
        log.exception("model backend raised")
        yield ErrorEvent(f"The model backend failed: {type(exc).__name__}: {exc}")
        return
    yield "".join(pieces)


@dataclass(frozen=True)
class Generating:
    """How one agent generates: its model, call format and sampling, and the grammar
    and native tools of a turn that shows every tool."""

    llm: LLM
    call_format: CallFormat
    stop: tuple[str, ...]
    max_tokens: int
    temperature: float
    grammar: str | None
    native_tools: Sequence[dict[str, Any]] | None
    fill: Callable[[str], str] | None
    """The text a call's format fixes, which an engine with a grammar fills in."""

    async def generate(
        self,
        conversation: Conversation,
        *,
        trusted: bool,
        meter: TurnMeter,
        grammar: str | None = None,
        hold_refusal: bool = False,
        quiet: bool = False,
    ) -> AsyncIterator[TextChunk | ErrorEvent | str]:
        """Stream one generation of the conversation as it stands, under ``grammar`` or
        the turn's (:func:`stream_generation`: what shows, what is withheld)."""
        turn = conversation.selection
        grammar = grammar or (self.grammar if turn is None else turn.grammar)
        request = GenerateRequest(
            messages=list(conversation.messages),
            session=conversation.id,
            stop=self.stop,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            grammar=grammar,
            fill=self.fill if grammar else None,
            tools=self.native_tools if turn is None else turn.native_tools,
        )
        events = stream_generation(
            self.llm,
            request,
            call_format=self.call_format,
            meter=meter,
            trusted=trusted,
            hold_refusal=hold_refusal,
            asked=conversation.request(),
            quiet=quiet,
        )
        # Closed with this generator, so a client that goes away stops the backend's
        # stream at once.
        async with contextlib.aclosing(events):
            async for event in events:
                yield event

    async def forced_call(
        self, conversation: Conversation, *, grammar: str, meter: TurnMeter
    ) -> tuple[str, ParsedOutput] | ErrorEvent:
        """One generation that ``grammar`` allows to be only a call (nothing streams):
        its raw text and what it parses to, or the backend's failure."""
        raw = ""
        async for event in self.generate(conversation, trusted=False, grammar=grammar, meter=meter):
            if isinstance(event, ErrorEvent):
                return event
            if isinstance(event, str):
                raw = event
        return raw, self.call_format.parse(raw)
