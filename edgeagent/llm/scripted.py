"""A deterministic engine that answers from a script: for tests and the load benchmark.

The last message's content (a user prompt or a tool result) is matched against each
rule in order; the first match wins, otherwise ``default`` is the reply. Replies stream
in fixed-size chunks. Token counts are words plus a per-message overhead, so trimming
behaviour is predictable without a tokenizer.

A script file is JSON::

    {"rules": [{"match": "turn the led (\\\\w+)", "reply": "LED \\\\1"}],
     "default": "I cannot help with that.",
     "context_window": 2048, "chunk_size": 8}

It is never chosen automatically: only ``[llm] backend = "scripted"`` selects it.
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from edgeagent.errors import ConfigError
from edgeagent.llm.base import CancelCheck, EngineStatus, GenerateRequest, Message

MESSAGE_OVERHEAD_TOKENS = 4
"""What a chat template adds around each message (role markers), roughly."""

RuleFunc = Callable[[Sequence[Message]], str | None]
"""A rule as code: the whole conversation in, a reply or ``None`` (no match) out."""
Reply = str | Callable[[re.Match[str], Sequence[Message]], str]
Rule = tuple[str | re.Pattern[str], Reply] | RuleFunc


def count_words_tokens(messages: Sequence[Message]) -> int:
    """The scripted token count: whitespace-separated words + overhead per message."""
    return sum(len(m["content"].split()) + MESSAGE_OVERHEAD_TOKENS for m in messages)


def _expanding(reply: str) -> Reply:
    """A script file's reply; ``\\1`` or ``\\g<name>`` in it is the match's group."""
    if "\\" not in reply:
        return reply
    return lambda match, _messages: match.expand(reply)


class ScriptedEngine:
    """An :class:`~edgeagent.llm.base.Engine` that replies from regex rules."""

    name = "scripted"

    def __init__(
        self,
        rules: Sequence[Rule] = (),
        *,
        default: str = "",
        context_window: int = 2048,
        chunk_size: int = 8,
        chunk_delay_s: float = 0.0,
        model: str = "script",
    ) -> None:
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
        if context_window < 1:
            raise ValueError(f"context_window must be positive, got {context_window}")
        self._rules: list[tuple[re.Pattern[str], Reply] | RuleFunc] = []
        for rule in rules:
            if callable(rule):
                self._rules.append(rule)
            else:
                pattern, reply = rule
                compiled = re.compile(pattern) if isinstance(pattern, str) else pattern
                self._rules.append((compiled, reply))
        self.default = default
        self.context_window = context_window
        self.chunk_size = chunk_size
        self.chunk_delay_s = chunk_delay_s
        """Sleep between chunks, to stand in for a slow model in scheduler tests."""
        self.model = model
        # Bounded, so a long load benchmark does not grow memory without limit.
        self.requests: deque[GenerateRequest] = deque(maxlen=64)
        self.read_aheads: deque[GenerateRequest] = deque(maxlen=64)
        self.generations = 0
        self.closed = False

    @classmethod
    def from_file(cls, path: Path) -> ScriptedEngine:
        """Load a JSON script; errors name the file, the key and what is expected."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(
                f"Script {path} (from [llm] script) does not exist; point it at a JSON script"
            ) from None
        except ValueError as exc:
            raise ConfigError(f"Script {path} is not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"Script {path} must hold a JSON object with 'rules' and 'default'")
        unknown = set(data) - {"rules", "default", "context_window", "chunk_size", "chunk_delay_s"}
        if unknown:
            raise ConfigError(
                f"Script {path}: unknown keys {sorted(unknown)}; allowed: rules, default, "
                f"context_window, chunk_size, chunk_delay_s"
            )
        rules: list[Rule] = []
        raw_rules = data.get("rules", [])
        if not isinstance(raw_rules, list):
            raise ConfigError(f"Script {path}: 'rules' must be a list, got {raw_rules!r}")
        for i, item in enumerate(raw_rules):
            if (
                not isinstance(item, dict)
                or not isinstance(item.get("match"), str)
                or not isinstance(item.get("reply"), str)
            ):
                raise ConfigError(
                    f"Script {path}: rules[{i}] = {item!r}; expected "
                    f'{{"match": "<regex>", "reply": "<text>"}}'
                )
            try:
                rules.append((re.compile(item["match"]), _expanding(item["reply"])))
            except re.error as exc:
                raise ConfigError(
                    f"Script {path}: rules[{i}].match = {item['match']!r} is not a valid "
                    f"regular expression: {exc}"
                ) from None
        options: dict[str, Any] = {}
        for key, kind in (("context_window", int), ("chunk_size", int), ("chunk_delay_s", float)):
            if key in data:
                value = data[key]
                if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                    raise ConfigError(
                        f"Script {path}: {key} = {value!r}; expected a positive number"
                    )
                options[key] = kind(value)
        default = data.get("default", "")
        if not isinstance(default, str):
            raise ConfigError(f"Script {path}: 'default' must be a string, got {default!r}")
        try:
            return cls(rules, default=default, model=path.name, **options)
        except ValueError as exc:
            raise ConfigError(f"Script {path}: {exc}") from None

    def reply_for(self, messages: Sequence[Message]) -> str:
        """The scripted reply to a conversation: first matching rule, else the default."""
        last = messages[-1]["content"] if messages else ""
        for rule in self._rules:
            if isinstance(rule, tuple):
                pattern, reply = rule
                match = pattern.search(last)
                if match is None:
                    continue
                return reply if isinstance(reply, str) else reply(match, messages)
            answer = rule(messages)
            if answer is not None:
                return answer
        return self.default

    def generate(self, request: GenerateRequest, *, cancelled: CancelCheck) -> Iterator[str]:
        if request.ahead:  # no context to read into; kept for tests to see
            self.read_aheads.append(request)
            return
        self.requests.append(request)
        self.generations += 1
        text = self.reply_for(request.messages)
        for stop in request.stop:  # a real engine ends at its first stop sequence too
            cut = text.find(stop) if stop else -1
            if cut >= 0:
                text = text[:cut]
        for start in range(0, len(text), self.chunk_size):
            if cancelled():
                return
            if self.chunk_delay_s:
                time.sleep(self.chunk_delay_s)
            yield text[start : start + self.chunk_size]

    def prime(self, messages: Sequence[Message], *, cancelled: CancelCheck) -> None:
        """A script holds no context: nothing to prepare."""

    def count_tokens(self, messages: Sequence[Message]) -> int:
        return count_words_tokens(messages)

    def status(self) -> EngineStatus:
        return EngineStatus(
            backend=self.name,
            model=self.model,
            context_window=self.context_window,
            extra={"generations": self.generations},
        )

    def close(self) -> None:
        self.closed = True
