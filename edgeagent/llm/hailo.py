"""The Hailo-10H engine, on HailoRT's GenAI Python API (5.1.1 and 5.2.0).

The context lives on the device and persists between generations, so each turn sends
only the new messages (:class:`~edgeagent.llm.base.PrefixTracker`). Three HailoRT rules
shape it:

* System messages (and tools) are only allowed on a fresh context, and ``load_context``
  does not reset the template's first-prompt state (only ``clear_context`` does). So
  the system prompt is primed once on a fresh context, with a structured prompt, and
  the result is saved (``save_context``) and cached on disk. A new conversation, or a
  context near its limit, restores that blob (``clear_context`` + ``load_context``)
  instead of priming again. After a restore the template still thinks its next prompt
  is the first one and would render the template's *default* system prompt again, so
  every later turn goes in as a raw string that this module renders on the host from
  ``prompt_template()`` exactly as HailoRT renders a follow-up prompt (the turn after
  a placeholder message, with the placeholder's rendering cut off).
* One completion at a time: every generation is a ``with llm.generate(...)`` block,
  left before the next one starts. Leaving it early aborts the generation (cancel).
* The host tokenizer parses special tokens in the rendered text, so tool-call tags
  that are untrained special tokens (Qwen2.5-Coder's ``<tool_call>``) cannot be
  spelled as text. ``call_markers`` swaps the call format's tags (``call_tags``) for
  plain-text markers on the way in and back on the way out.

``hailo_platform`` is imported only here, when an engine is built.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from edgeagent.errors import (
    BackendUnavailableError,
    ContextOverflowError,
    GenerationTimeoutError,
    LLMError,
    ModelNotFoundError,
)
from edgeagent.llm.base import CancelCheck, EngineStatus, GenerateRequest, Message, PrefixTracker
from edgeagent.llm.text import ChatTemplate, StopFilter
from edgeagent.tools.calls import CALL_TAGS

log = logging.getLogger(__name__)

PRIMING_TURN = "Reply with OK."
"""The user turn that primes the system prompt (a generation needs a turn to answer)."""
_CACHE_FORMAT = 1
_GET_HEF = (
    "get a Hailo-10H LLM HEF (Qwen2.5-1.5B-Instruct or Qwen2.5-Coder-1.5B-Instruct) from "
    "Hailo's GenAI model zoo (https://github.com/hailo-ai/hailo_model_zoo_genai, or the "
    '`hailo-ollama pull` cache) and set [llm.hailo] hef = "/path/to/model.hef"'
)
_STOP_OLLAMA = "is hailo-ollama running? stop it with `sudo systemctl stop hailo-ollama`"


def _import_platform() -> SimpleNamespace:
    try:
        import hailo_platform
        from hailo_platform.genai import LLM
    except Exception as exc:  # ImportError, or HailoRT's MissingPyHRTLib / version check
        raise BackendUnavailableError(
            f"The Hailo backend needs HailoRT's Python package hailo_platform, which cannot be "
            f"imported ({exc}). On the Pi: install hailo-h10-all (sudo apt install "
            f"hailo-h10-all); run with the system site packages (python -m venv "
            f"--system-site-packages .venv), or pick another backend ([llm] backend)."
        ) from exc
    return SimpleNamespace(
        VDevice=hailo_platform.VDevice, LLM=LLM, HailoRTException=hailo_platform.HailoRTException
    )


def _status_name(status: Any) -> str:
    return str(getattr(status, "name", status)).rsplit(".", 1)[-1]


def _is_timeout(exc: BaseException) -> bool:
    return "timeout" in type(exc).__name__.lower() or "timeout" in str(exc).lower()


class HailoEngine:
    """An LLM HEF on the Hailo-10H, primed once per system prompt."""

    name = "hailo"

    def __init__(
        self,
        *,
        hef: Path | None,
        group_id: str = "SHARED",
        read_timeout_ms: int = 10000,
        context_cache_dir: Path,
        reprime_ratio: float = 0.8,
        temperature: float | None = None,
        top_p: float | None = None,
        top_k: int | None = None,
        frequency_penalty: float | None = None,
        do_sample: bool | None = False,
        seed: int | None = None,
        call_markers: tuple[str, str] | None = None,
        call_tags: tuple[str, str] = CALL_TAGS,
        priming_turn: str = PRIMING_TURN,
        priming_max_tokens: int = 16,
    ) -> None:
        self._hef = hef
        self._read_timeout_ms = read_timeout_ms
        self._cache_dir = context_cache_dir.expanduser()
        self._reprime_ratio = reprime_ratio
        self._sampling = {"temperature": temperature, "top_p": top_p, "top_k": top_k}
        self._frequency_penalty = frequency_penalty
        self._do_sample = do_sample
        self._seed = seed
        # The call format's tags, as the model spells them (None: spelled alike).
        self._spelling = dict(zip(call_tags, call_markers, strict=True)) if call_markers else {}
        self._markers = call_markers
        self._priming_turn = priming_turn
        self._priming_max_tokens = priming_max_tokens
        self._tracker = PrefixTracker()
        self._primed_key: str | None = None
        self._blobs: dict[str, bytes] = {}
        self.primings = 0
        self.cache_hits = 0
        self._closed = False
        self._busy = False
        self._llm: Any = None
        self._vdevice: Any = None

        platform = _import_platform()
        self._HailoRTException: type[Exception] = platform.HailoRTException
        if hef is None:
            raise ModelNotFoundError(f"No HEF file is configured for the Hailo backend; {_GET_HEF}")
        if not hef.is_file():
            raise ModelNotFoundError(f"HEF file {hef} does not exist; {_GET_HEF}")
        stat = hef.stat()
        self._hef_id = f"{hef.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
        params = platform.VDevice.create_params()
        params.group_id = group_id
        self._group_id = group_id
        self._vdevice = platform.VDevice(params)
        try:
            self._llm = platform.LLM(self._vdevice, str(hef))
        except self._HailoRTException as exc:
            self._release_vdevice()
            if "kv-cache" in str(exc).lower() or "already in use" in str(exc).lower():
                raise BackendUnavailableError(
                    f"Cannot load {hef}: the Hailo-10H KV cache is in use by another model "
                    f"({_STOP_OLLAMA}). HailoRT said: {exc}"
                ) from exc
            raise LLMError(
                f"HailoRT could not load {hef}: {exc}. Check that the HEF was compiled for "
                f"the Hailo-10H and this HailoRT version, and that no other process holds "
                f"the model ({_STOP_OLLAMA})"
            ) from exc
        self._start()

    def _start(self) -> None:
        llm = self._llm
        self._capacity = int(llm.max_context_capacity())
        # As HailoRT renders it here: no tools (they go only with a fresh context's prompt).
        self._template = ChatTemplate(
            llm.prompt_template(), owner="the HEF's", variables={"tools": None}
        )
        self._default_stops = [str(s) for s in llm.get_stop_tokens()]
        self._stops_sent: tuple[str, ...] = ()
        # An aborted or cut-off answer must still close its turn in the context.
        if not llm.get_generation_recovery_sequence() and self._default_stops:
            llm.set_generation_recovery_sequence(self._default_stops[0])

    # --- text in and out -------------------------------------------------------------

    def _to_model(self, text: str) -> str:
        for tag, spelled in self._spelling.items():
            text = text.replace(tag, spelled)
        return text

    def _outgoing(self, message: Message) -> Message:
        return {"role": message["role"], "content": self._to_model(message["content"])}

    def _filter(self, stops: Sequence[str]) -> StopFilter:
        replacements = {spelled: tag for tag, spelled in self._spelling.items()}
        return StopFilter([*self._default_stops, *stops], replacements)

    # --- priming and restoring ---------------------------------------------------------

    def cache_path(self, system: str) -> Path:
        """Where the primed context for this HEF and system prompt is cached."""
        material = json.dumps(
            [_CACHE_FORMAT, self._hef_id, system, self._priming_turn, self._priming_max_tokens]
        )
        return self._cache_dir / f"{hashlib.sha256(material.encode()).hexdigest()}.ctx"

    def _restore(self, system: Message | None) -> None:
        """Bring the context back to the primed system prompt: cached blob or a priming."""
        llm = self._llm
        text = system["content"] if system else ""
        path = self.cache_path(text)
        key = path.stem
        blob = self._blobs.get(key)
        if blob is None and path.is_file():
            blob = path.read_bytes()
        llm.clear_context()
        if blob is not None:
            try:
                llm.load_context(blob)
                self.cache_hits += 1
            except self._HailoRTException as exc:
                log.warning("cached Hailo context %s unusable (%s); priming again", path, exc)
                path.unlink(missing_ok=True)
                llm.clear_context()
                blob = None
        if blob is None:
            blob = self._prime(system)
            self._store(path, blob)
        self._blobs[key] = blob
        self._primed_key = key
        self._tracker.commit([system] if system else [])

    def _prime(self, system: Message | None) -> bytes:
        """Render the system prompt into the fresh context with one short exchange."""
        llm = self._llm
        prompt: list[Message] = [system] if system else []
        prompt.append({"role": "user", "content": self._priming_turn})
        needed = len(llm.tokenize(self._template.render(prompt))) + self._priming_max_tokens
        if needed >= self._capacity:
            raise ContextOverflowError(
                f"The system prompt and tool manifest take {needed} tokens, but the Hailo-10H "
                f"context holds {self._capacity}; use the concise manifest, shorter tool "
                f"descriptions or fewer enabled tools ([tools] enabled)"
            )
        self.primings += 1
        with llm.generate(
            prompt=[dict(m) for m in prompt],
            max_generated_tokens=self._priming_max_tokens,
            do_sample=False,
        ) as completion:
            while _status_name(completion.generation_status) == "GENERATING":
                self._read(completion)
        return bytes(llm.save_context())

    def _store(self, path: Path, blob: bytes) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(blob)
            os.replace(tmp, path)
        except OSError as exc:  # a read-only cache only costs a priming per start
            log.warning("cannot cache the primed Hailo context in %s: %s", path, exc)

    def prime(self, messages: Sequence[Message], *, cancelled: CancelCheck) -> None:
        """Restore (or prime and cache) the system prompt's context now, before the
        first turn needs it."""
        self._require_open()
        if not messages or messages[0]["role"] != "system" or self._busy:
            return
        system = self._outgoing(messages[0])
        if self.cache_path(system["content"]).stem != self._primed_key:
            self._restore(system)

    # --- generation ----------------------------------------------------------------------

    def _read(self, completion: Any) -> str:
        try:
            return str(completion.read(self._read_timeout_ms))
        except self._HailoRTException as exc:
            if _is_timeout(exc):
                raise GenerationTimeoutError(
                    f"The Hailo-10H produced no token within {self._read_timeout_ms} ms "
                    f"([llm.hailo] read_timeout_ms); a long prefill may need more, or the "
                    f"device is stuck (check `hailortcli fw-control identify`)"
                ) from exc
            raise LLMError(f"HailoRT failed while generating: {exc}") from exc

    def _require_open(self) -> Any:
        if self._closed or self._llm is None:
            raise LLMError("the Hailo engine is closed")
        return self._llm

    def _plan(self, messages: list[Message]) -> tuple[list[Message], bool]:
        """The messages to send now, and whether the context was just restored."""
        system = messages[0] if messages and messages[0]["role"] == "system" else None
        rest = messages[1:] if system else messages
        if any(m["role"] == "system" for m in rest):
            raise LLMError("a system message is only allowed first in the conversation")
        key = self.cache_path(system["content"] if system else "").stem
        new = self._tracker.new_messages(messages) if key == self._primed_key else None
        used = int(self._llm.get_context_usage_size())
        if new is not None and used >= self._reprime_ratio * self._capacity:
            log.info(
                "Hailo context %d/%d tokens full; restoring the primed context",
                used,
                self._capacity,
            )
            new = None
        if new is None:
            self._restore(system)
            return list(rest), True
        return new, False

    def _room(self, prompt: str, wanted: int) -> int:
        llm = self._llm
        used = int(llm.get_context_usage_size())
        needed = len(llm.tokenize(prompt))
        room = self._capacity - used - needed - 1
        if room < 1:
            raise ContextOverflowError(
                f"The conversation needs {needed} more tokens on top of the {used} held, but "
                f"the Hailo-10H context holds {self._capacity}; lower agent.context_threshold "
                f"so older turns are trimmed sooner, or shorten the tool manifest"
            )
        return min(wanted, room)

    def _params(self, request: GenerateRequest, max_tokens: int) -> dict[str, Any]:
        params: dict[str, Any] = {"max_generated_tokens": max_tokens}
        sample = self._do_sample if self._do_sample is not None else request.temperature > 0
        params["do_sample"] = sample
        temperature = self._sampling["temperature"]
        if temperature is None and request.temperature > 0:
            temperature = request.temperature
        if sample:
            params.update({k: v for k, v in self._sampling.items() if v is not None})
            if temperature is not None:
                params["temperature"] = temperature
        if self._frequency_penalty is not None:
            params["frequency_penalty"] = self._frequency_penalty
        if self._seed is not None:
            params["seed"] = self._seed
        return params

    def _set_stops(self, stops: Sequence[str]) -> None:
        # set_stop_tokens replaces the built-in end-of-turn stop too, so send it along;
        # without a known default the host-side filter handles the request's stops.
        wanted = tuple(self._default_stops) + tuple(stops)
        if self._default_stops and wanted != (self._stops_sent or tuple(self._default_stops)):
            self._llm.set_stop_tokens(list(wanted))
            self._stops_sent = wanted

    def generate(self, request: GenerateRequest, *, cancelled: CancelCheck) -> Iterator[str]:
        llm = self._require_open()
        if self._busy:
            raise LLMError("the Hailo engine runs one generation at a time; finish the first")
        if request.ahead:
            return  # not done on the Hailo yet: reading without generating is untried there
        if request.aside:
            yield from self._aside(llm, request, cancelled)
            return
        messages = [self._outgoing(m) for m in request.messages]
        if not messages or messages[-1]["role"] == "assistant":
            raise LLMError("the conversation must end with a user or tool message")
        new, restored = self._plan(messages)
        prompt = self._template.continuation(new)
        try:
            max_tokens = self._room(prompt, request.max_tokens)
        except ContextOverflowError:
            if restored:
                raise
            self._restore(messages[0] if messages[0]["role"] == "system" else None)
            new = [m for m in messages if m["role"] != "system"]
            prompt = self._template.continuation(new)
            max_tokens = self._room(prompt, request.max_tokens)
        stops = [self._to_model(s) for s in request.stop]
        self._set_stops(stops)
        flt = self._filter(stops)
        answer: list[str] = []
        completed = False
        self._busy = True
        try:
            if cancelled():
                return
            with llm.generate(prompt=prompt, **self._params(request, max_tokens)) as completion:
                while _status_name(completion.generation_status) == "GENERATING":
                    if cancelled():
                        return  # leaving the with-block aborts the generation
                    text = flt.feed(self._read(completion))
                    if text:
                        answer.append(text)
                        yield text
                    if flt.stopped:
                        break
            tail = flt.flush()
            if tail:
                answer.append(tail)
                yield tail
            completed = True
        finally:
            self._busy = False
            if completed:
                reply: Message = {"role": "assistant", "content": self._to_model("".join(answer))}
                self._tracker.commit([*messages, reply])
            else:  # aborted or failed: the context is not what the tracker thinks
                self._tracker.reset()

    def _aside(self, llm: Any, request: GenerateRequest, cancelled: CancelCheck) -> Iterator[str]:
        """A side question on a fresh context; the conversation's context is saved first
        and loaded back after (clear before load: load keeps the first-prompt state)."""
        saved = llm.save_context()
        self._busy = True
        try:
            llm.clear_context()
            prompt = self._template.render([self._outgoing(m) for m in request.messages])
            flt = self._filter([self._to_model(s) for s in request.stop])
            params = self._params(request, request.max_tokens)
            with llm.generate(prompt=prompt, **params) as completion:
                while _status_name(completion.generation_status) == "GENERATING":
                    if cancelled():
                        return
                    text = flt.feed(self._read(completion))
                    if text:
                        yield text
                    if flt.stopped:
                        break
            tail = flt.flush()
            if tail:
                yield tail
        finally:
            self._busy = False
            llm.clear_context()
            llm.load_context(saved)

    # --- accounting and lifetime -----------------------------------------------------------

    def count_tokens(self, messages: Sequence[Message]) -> int:
        llm = self._require_open()
        rendered = self._template.render([self._outgoing(m) for m in messages])
        return len(llm.tokenize(rendered))

    def status(self) -> EngineStatus:
        used = None if self._closed else int(self._llm.get_context_usage_size())
        return EngineStatus(
            backend=self.name,
            model=self._hef.name if self._hef else "",
            context_window=getattr(self, "_capacity", 0),
            context_used=used,
            extra={
                "hef": str(self._hef),
                "group_id": self._group_id,
                "primed": self._primed_key is not None,
                "primings": self.primings,
                "context_cache_hits": self.cache_hits,
                "context_cache_dir": str(self._cache_dir),
                "call_markers": list(self._markers) if self._markers else None,
            },
        )

    def _release_vdevice(self) -> None:
        vdevice, self._vdevice = self._vdevice, None
        if vdevice is not None:
            vdevice.release()

    def close(self) -> None:
        """Release the LLM, then the VDevice (HailoRT's order). Idempotent."""
        if self._closed:
            return
        self._closed = True
        llm, self._llm = self._llm, None
        try:
            if llm is not None:
                llm.release()
        finally:
            self._release_vdevice()

    def __enter__(self) -> HailoEngine:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()
