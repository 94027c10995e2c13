"""Text handling shared by the engines and the call parser.

* :func:`held_tail`: how much of a streamed text to hold back because it may be the
  start of a marker (a stop sequence, a call tag) that the next piece completes.
* :class:`StopFilter`: cuts streamed model text at the first stop sequence, never
  emitting it, and rewrites the model's spelling of the call tags back to the call
  format's (the Hailo's plain-text ``<tool-call>``).
* :class:`ChatTemplate`: a model's Jinja chat template, rendered in a sandbox (the
  template comes with the model file), whole, as a continuation, or in segments that
  tell template text from message contents.

No marker is spelled here: the call tags come from the call format
(:mod:`edgeagent.tools.calls`), the stop sequences from the model and the profile.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import cached_property
from typing import Any

from edgeagent.errors import LLMError
from edgeagent.llm.base import Message

_PLACEHOLDER = {"role": "TMP", "content": "TMP"}


def held_tail(text: str, markers: Iterable[str]) -> int:
    """How many characters at the end of ``text`` may start one of ``markers``.

    The longest suffix of ``text`` that is a proper prefix of a marker: what a stream
    holds back until the next piece says whether the marker follows.
    """
    hold = 0
    for marker in markers:
        for size in range(min(len(marker) - 1, len(text)), hold, -1):
            if text.endswith(marker[:size]):
                hold = size
                break
    return hold


class StopFilter:
    """Cuts streamed model text at the first stop sequence and never emits it.

    ``replacements`` rewrite text on the way out (the model's spelling of the call tags
    to the call format's). A tail that could still become a stop sequence or a
    replaced marker is held back until the next piece decides.
    """

    def __init__(self, stops: Sequence[str], replacements: Mapping[str, str] | None = None) -> None:
        self.stops = tuple(s for s in stops if s)
        self._replacements = {k: v for k, v in (replacements or {}).items() if k and k != v}
        self._markers = (*self.stops, *self._replacements)
        self._buffer = ""
        self.stopped = False

    def _rewrite(self, text: str) -> str:
        for old, new in self._replacements.items():
            text = text.replace(old, new)
        return text

    def feed(self, piece: str) -> str:
        if self.stopped:
            return ""
        self._buffer += piece
        cuts = [i for i in (self._buffer.find(s) for s in self.stops) if i >= 0]
        if cuts:
            out, self._buffer, self.stopped = self._buffer[: min(cuts)], "", True
            return self._rewrite(out)
        cut = len(self._buffer) - held_tail(self._buffer, self._markers)
        out, self._buffer = self._buffer[:cut], self._buffer[cut:]
        return self._rewrite(out)

    def flush(self) -> str:
        out, self._buffer = self._buffer, ""
        return "" if self.stopped else self._rewrite(out)


class ChatTemplate:
    """A model's Jinja chat template, rendered in a sandbox.

    ``owner`` names the template in errors ("the HEF's"); ``variables`` are passed to
    every rendering (``bos_token``, ``eos_token``, ``tools``), as the model's runtime
    passes them.
    """

    def __init__(
        self, source: str, *, owner: str = "the model's", variables: Mapping[str, Any] | None = None
    ) -> None:
        from jinja2 import BaseLoader
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        def raise_exception(message: str) -> None:
            raise LLMError(f"{owner} chat template refused the messages: {message}")

        env = ImmutableSandboxedEnvironment(
            loader=BaseLoader(), trim_blocks=True, lstrip_blocks=True
        )
        env.globals["raise_exception"] = raise_exception
        env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
        self._template = env.from_string(source)
        self._owner = owner
        self.variables = dict(variables or {})

    def render(self, messages: Sequence[Any], *, add_generation_prompt: bool = True) -> str:
        """The conversation as the template renders it for a fresh context."""
        return self._template.render(
            messages=list(messages), add_generation_prompt=add_generation_prompt, **self.variables
        )

    @cached_property
    def _placeholder(self) -> str:
        return self.render([_PLACEHOLDER], add_generation_prompt=False)

    def continuation(self, messages: Sequence[Message]) -> str:
        """Later turns alone, as rendered after others: the turn after a placeholder
        message, with the placeholder's rendering cut off."""
        text = self.render([_PLACEHOLDER, *messages], add_generation_prompt=True)
        if not text.startswith(self._placeholder):
            raise LLMError(f"{self._owner} chat template renders a turn differently after others")
        return text[len(self._placeholder) :]

    def segments(
        self, messages: Sequence[Message], *, add_generation_prompt: bool
    ) -> list[tuple[str, bool]]:
        """``(text, is_content)`` pieces of the rendered prompt, in order: contents are
        rendered as unique placeholders first, so template text and data stay apart."""
        nonce = secrets.token_hex(6)
        marked = [
            {"role": m["role"], "content": f"@@EA{nonce}x{i}@@"} for i, m in enumerate(messages)
        ]
        rendered = self.render(marked, add_generation_prompt=add_generation_prompt)
        parts = re.split(f"@@EA{nonce}x(\\d+)@@", rendered)
        out: list[tuple[str, bool]] = []
        for index, part in enumerate(parts):
            if index % 2 == 0:
                if part:
                    out.append((part, False))
            else:
                content = messages[int(part)]["content"]
                if content:
                    out.append((content, True))
        return out

    def end_of_turn(self) -> str:
        """The control text that closes an assistant turn (``<|im_end|>`` for ChatML);
        the ``eos_token`` variable where the template does not show one."""
        eos = str(self.variables.get("eos_token", ""))
        try:
            segs = self.segments(
                [{"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}],
                add_generation_prompt=False,
            )
        except Exception:  # a template that insists on other roles: use EOS
            return eos
        after = [
            text
            for (text, is_content), prev in zip(segs[1:], segs, strict=False)
            if prev == ("a", True)
        ]
        end = after[0].strip().split()[0] if after and after[0].strip() else ""
        return end or eos
