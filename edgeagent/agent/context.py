"""Conversations, the sessions that hold them, and the token budget of the context.

The budget is measured by the backend itself (``llm.count_tokens`` renders the chat
template), never estimated. Before each generation, once the conversation reaches
``threshold * context_window`` tokens, the oldest whole turns are dropped (a turn is a
user message and the assistant and tool messages after it). The system prompt and the
current turn are always kept; nothing is cleared blindly.
"""

from __future__ import annotations

import itertools
import json
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from edgeagent.agent.numerals import as_digits
from edgeagent.agent.sanitize import sanitize
from edgeagent.errors import ContextOverflowError
from edgeagent.llm.base import LLM, Message

if TYPE_CHECKING:
    from edgeagent.agent.selection import TurnTools

Clock = Callable[[], float]


ANSWERS_KEPT = 32
"""The answers a conversation remembers for the repeat check (:attr:`Conversation.answered`)."""


@dataclass
class Conversation:
    """One session's messages; ``messages[0]`` is always the system prompt."""

    id: str
    messages: list[Message]
    last_used: float = field(default_factory=time.monotonic)
    one_shot: bool = False
    """A conversation for a single request, never stored."""
    primer: int = 0
    """How many example messages follow the system prompt (see
    :func:`edgeagent.agent.prompt.build_primer`); they are kept like the system prompt."""
    dropped_turns: int = 0
    """How many old turns the budget has dropped so far (for ``status`` and tests)."""
    selection: TurnTools | None = None
    """The tools (and their prompt and grammars) of the last turn, when a selection
    chose them (:mod:`edgeagent.agent.selection`); ``None``: every tool, always."""
    noted: bool = False
    """Whether the message showing the selected remote tools follows the primer."""
    answered: list[str] = field(default_factory=list)
    """The answers the user was given, oldest first, with those of turns that leave no
    trace in the history (a question back, a refusal by the checks): "Which location
    do you mean?" was asked again word for word two turns later (fresh42)."""

    @classmethod
    def start(
        cls,
        system_prompt: str,
        *,
        session_id: str | None = None,
        one_shot: bool = False,
        now: float | None = None,
        primer: Sequence[Message] = (),
    ) -> Conversation:
        return cls(
            id=session_id or f"oneshot-{uuid.uuid4().hex[:12]}",
            messages=[{"role": "system", "content": system_prompt}, *primer],
            last_used=time.monotonic() if now is None else now,
            one_shot=one_shot,
            primer=len(primer),
        )

    @property
    def system_prompt(self) -> str:
        return self.messages[0]["content"]

    @property
    def kept(self) -> int:
        """Messages that are never dropped: the system prompt, the primer and the
        selected tools' note."""
        return 1 + self.primer + self.noted

    def show_tools(self, system_prompt: str, note: str | None) -> None:
        """Set the selected tools: the system prompt, and the note after the primer
        (added, replaced, or removed when ``None``); the turns after it stay."""
        self.messages[0] = {"role": "system", "content": system_prompt}
        if self.noted:
            del self.messages[self.primer + 1]
        if note is not None:
            self.messages.insert(self.primer + 1, {"role": "system", "content": note})
        self.noted = note is not None

    def answer(self, text: str) -> None:
        """Note the answer the user was given (the last :data:`ANSWERS_KEPT`)."""
        self.answered.append(text)
        del self.answered[:-ANSWERS_KEPT]

    def clear(self) -> None:
        """Forget every turn; keep the system prompt, the primer and the tools' note."""
        del self.messages[self.kept :]
        self.answered.clear()

    def results(self) -> list[Any]:
        """The results of the conversation's successful tool calls, oldest first (the
        primer's aside). A result the history holds cut short is kept as its text."""
        results = []
        for message in self.messages[self.kept :]:
            if message["role"] != "tool":
                continue
            try:
                shown = json.loads(message["content"])
            except ValueError:
                continue
            if isinstance(shown, dict) and shown.get("ok") is True:
                results.append(shown.get("result"))
        return results

    def ran(self, names: Callable[[str], Sequence[str]]) -> list[str]:
        """The tools whose calls succeeded in the turns before this one, oldest first;
        ``names`` reads the tools a call message calls (the call format's parse). A
        step's results follow its call message, a parse error's feedback first, so its
        calls' results are its last ones."""
        starts = self.turn_starts()
        return _ran_in(self.messages[self.kept : starts[-1] if starts else None], names)

    def followed_ran(self, names: Callable[[str], Sequence[str]]) -> list[str]:
        """The tools whose calls succeeded in the turn a follow-up goes on from
        (:meth:`followed`), oldest first; ``names`` as for :meth:`ran`."""
        a, b = self._followed_span()
        return _ran_in(self.messages[a:b], names) if b else []

    def turn_starts(self) -> list[int]:
        """Indices of the user messages that open each turn, oldest first."""
        return [i for i, m in enumerate(self.messages) if i >= self.kept and m["role"] == "user"]

    def request(self) -> str:
        """This turn's request, as the model reads it."""
        return str(self.messages[self.turn_starts()[-1]]["content"])

    def earlier_turn(self) -> str:
        """The turn before this one as the model read it: request, tool results, answer."""
        starts = self.turn_starts()
        if len(starts) < 2:
            return ""
        return "\n".join(str(m["content"]) for m in self.messages[starts[-2] : starts[-1]])

    def followed(self) -> tuple[str, str]:
        """The turn a follow-up goes on from (its request, and all of it as the model
        read it): the turn before, or, where that one ran no tool, the last earlier
        turn that did; ``("", "")`` in a first turn. "ok and in three weeks?" came
        after "how many seconds are in a week" and a chit-chat turn, and its call,
        ``3 * 7 * 24 * 60 * 60``, carried nothing from the chit-chat (fresh49)."""
        a, b = self._followed_span()
        if not b:
            return "", ""
        turn = "\n".join(str(m["content"]) for m in self.messages[a:b])
        return str(self.messages[a]["content"]), turn

    def _followed_span(self) -> tuple[int, int]:
        """The messages of the turn :meth:`followed` gives; ``(0, 0)`` in a first turn."""
        starts = self.turn_starts()
        if len(starts) < 2:
            return 0, 0
        spans = list(itertools.pairwise(starts))[::-1]
        ran = ((a, b) for a, b in spans if any(m["role"] == "tool" for m in self.messages[a:b]))
        return next(ran, spans[0])

    def reword(self, prompt: str, text: str, said: str) -> None:
        """The answer ``text`` to ``prompt`` as ``said`` in the history, where the turn
        left it there (a refusal by the checks leaves no trace of its turn)."""
        starts = self.turn_starts()
        messages = self.messages
        if not starts or messages[starts[-1]]["content"] != as_read(prompt):
            return
        last = messages[-1]
        if len(messages) - 1 > starts[-1] and last == {
            "role": "assistant",
            "content": sanitize(text),
        }:
            messages[-1] = {"role": "assistant", "content": sanitize(said)}

    def said(self) -> str:
        """Everything the user said in this conversation (the primer's examples excluded)."""
        return "\n".join(
            str(m["content"]) for m in self.messages[self.kept :] if m["role"] == "user"
        )

    def drop_oldest_turn(self) -> bool:
        """Drop the oldest turn unless it is the current (last) one. False if none left."""
        starts = self.turn_starts()
        if len(starts) < 2:
            return False
        # Also drops anything stray between the primer and the first turn.
        del self.messages[self.kept : starts[1]]
        self.dropped_turns += 1
        return True


@dataclass(frozen=True)
class ContextUsage:
    """Tokens the conversation takes and the window it must fit in."""

    used: int
    window: int

    @property
    def fraction(self) -> float:
        return self.used / self.window if self.window else 1.0


async def measure(messages: Sequence[Message], llm: LLM) -> ContextUsage:
    """The conversation's size in the backend's own tokens."""
    window = (await llm.status()).context_window
    return ContextUsage(used=await llm.count_tokens(messages), window=window)


async def fit_context(
    conversation: Conversation, llm: LLM, *, threshold: float, reserve: int = 0
) -> ContextUsage:
    """Drop the oldest whole turns until the conversation is under the threshold.

    ``reserve`` is room kept for the reply. When only the system prompt and the current
    turn are left and they still do not fit into the window (less ``reserve``), raise
    :class:`ContextOverflowError`: the current turn alone is too large.
    """
    usage = await measure(conversation.messages, llm)
    limit = threshold * usage.window
    while usage.used >= limit:
        if not conversation.drop_oldest_turn():
            break
        usage = await measure(conversation.messages, llm)
    # Over the threshold but inside the window is fine: the threshold is when to trim,
    # the window (less room for the reply) is what must never be exceeded.
    hard_limit = usage.window - min(reserve, usage.window // 4)
    if usage.used > hard_limit:
        raise ContextOverflowError(
            f"The conversation needs {usage.used} tokens, more than the {hard_limit} that fit "
            f"into the {usage.window}-token context window with room for the reply, even "
            f"after dropping every older turn. Send a shorter prompt, make tools return "
            f"less, or use a larger context ([llm.llamacpp] n_ctx)"
        )
    return usage


class SessionStore:
    """Conversations by session id, with idle expiry. Owned by the scheduler or the REPL."""

    def __init__(
        self,
        *,
        system_prompt: str,
        primer: Sequence[Message] = (),
        max_sessions: int = 256,
        clock: Clock = time.monotonic,
    ) -> None:
        self.system_prompt = system_prompt
        self.primer = tuple(primer)
        self.max_sessions = max_sessions
        self._clock = clock
        self._sessions: dict[str, Conversation] = {}

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._sessions

    def get_or_create(self, session_id: str | None) -> Conversation:
        """The session's conversation; ``None`` gives a fresh one-shot conversation."""
        now = self._clock()
        if session_id is None:
            return Conversation.start(
                self.system_prompt, one_shot=True, now=now, primer=self.primer
            )
        conversation = self._sessions.get(session_id)
        if conversation is None:
            if len(self._sessions) >= self.max_sessions:
                # Many clients each naming a new session must not grow memory forever:
                # the least recently used session goes first.
                oldest = min(self._sessions, key=lambda k: self._sessions[k].last_used)
                del self._sessions[oldest]
            conversation = Conversation.start(
                self.system_prompt, session_id=session_id, now=now, primer=self.primer
            )
            self._sessions[session_id] = conversation
        conversation.last_used = now
        return conversation

    def reset(self, session_id: str) -> bool:
        """Forget a session. False when there was no such session."""
        return self._sessions.pop(session_id, None) is not None

    def expire(self, idle_s: float) -> list[str]:
        """Forget sessions idle for ``idle_s`` seconds or more; return their ids."""
        cutoff = self._clock() - idle_s
        gone = [sid for sid, c in self._sessions.items() if c.last_used <= cutoff]
        for sid in gone:
            del self._sessions[sid]
        return gone

    def ids(self) -> list[str]:
        return sorted(self._sessions)


def _ran_in(messages: Sequence[Message], names: Callable[[str], Sequence[str]]) -> list[str]:
    """The tools whose calls succeeded in ``messages``, oldest first (see
    :meth:`Conversation.ran`)."""
    ran: list[str] = []
    steps: list[tuple[list[str], list[bool]]] = []
    for message in messages:
        if message["role"] == "assistant":
            steps.append((list(names(str(message["content"]))), []))
        elif message["role"] == "tool" and steps:
            try:
                shown = json.loads(message["content"])
            except ValueError:
                shown = None
            steps[-1][1].append(isinstance(shown, dict) and shown.get("ok") is True)
    for called, oks in steps:
        if len(oks) >= len(called):
            tail = oks[len(oks) - len(called) :]
            ran += [name for name, ok in zip(called, tail, strict=True) if ok]
    return ran


def as_read(prompt: str) -> str:
    """A prompt as the model reads it in the history: control tokens out, its
    spelled-out numbers as digits (.numerals)."""
    return as_digits(sanitize(prompt, frame_tags=False))
