"""The fake ``LLM``: HailoRT's GenAI rules over a real llama.cpp model.

Mirrors ``hailort/libhailort/src/genai/llm`` (v5.1.1/v5.2.0):

* list prompts go through the HEF's chat template on the host. The first prompt of a
  context is rendered whole; later ones are rendered after a placeholder message and
  the placeholder's rendering is cut off (``minja_wrapper.cpp``), and a system message
  or tools there raise HAILO_INVALID_OPERATION (5.2.0). Raw string prompts go in as is
  and leave the first-prompt state alone.
* ``clear_context`` resets the first-prompt state; ``load_context`` does not.
* the context is a list of tokens that persists between generations; usage counts it,
  and a prompt that does not fit the fixed capacity fails.
* one completion at a time: ``generate`` while a completion is still open fails.
* leaving a completion while it generates aborts it and appends the recovery sequence;
  so does reaching ``max_generated_tokens``.
"""

from __future__ import annotations

import codecs
import enum
import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jinja2.sandbox import ImmutableSandboxedEnvironment

from hailo_platform import (
    DEVICE,
    HailoRTException,
    HailoRTInvalidArgumentException,
    HailoRTInvalidOperationException,
    HailoRTTimeout,
    VDevice,
)

_MAGIC = b"FAKEHAILOCTX1\n"
_PLACEHOLDER = {"role": "TMP", "content": "TMP"}
DEFAULT_CAPACITY = 2048
DEFAULT_MAX_GENERATED_TOKENS = 512


class LLMGeneratorCompletionStatus(enum.Enum):
    """``_pyhailort.LLMGeneratorCompletionStatus``."""

    GENERATING = 0
    LOGICAL_END_OF_GENERATION = 1
    MAX_TOKENS_REACHED = 2
    ABORTED = 3


class _PromptTemplate:
    """The host-side template handler, with its first-prompt state."""

    def __init__(self, source: str, *, bos: str, eos: str) -> None:
        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)

        def raise_exception(message: str) -> None:
            raise HailoRTException(message)

        env.globals["raise_exception"] = raise_exception
        self.source = source
        self._template = env.from_string(source)
        self._specials = {"bos_token": bos, "eos_token": eos}
        self.is_first = True
        self._placeholder_prefix = self._apply([_PLACEHOLDER], None, generation_prompt=False)

    def _apply(
        self, messages: list[dict[str, Any]], tools: list[Any] | None, *, generation_prompt: bool
    ) -> str:
        return self._template.render(
            messages=messages,
            tools=tools,
            add_generation_prompt=generation_prompt,
            **self._specials,
        )

    def render(self, messages: list[dict[str, Any]], tools: list[Any] | None) -> str:
        if self.is_first:
            self.is_first = False
            return self._apply(messages, tools, generation_prompt=True)
        if tools:
            raise HailoRTInvalidOperationException(
                "HAILO_INVALID_OPERATION: Tools can only be provided on the first prompt "
                "of the context"
            )
        for message in messages:
            if message.get("role") == "system":
                raise HailoRTInvalidOperationException(
                    "HAILO_INVALID_OPERATION: System role messages can only be provided on "
                    "the first prompt"
                )
        text = self._apply([_PLACEHOLDER, *messages], None, generation_prompt=True)
        return text[len(self._placeholder_prefix) :]


class LLMGeneratorCompletion:
    """The streaming completion: a context manager and an iterator of text pieces."""

    def __init__(self, llm: LLM, tokens: Iterator[int], max_tokens: int) -> None:
        self._llm = llm
        self._tokens = tokens
        self._max_tokens = max_tokens
        self._generated: list[int] = []
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._text = ""
        self._status = LLMGeneratorCompletionStatus.GENERATING
        self._released = False

    @property
    def generation_status(self) -> LLMGeneratorCompletionStatus:
        return self._status

    def read(self, timeout_ms: int = 10000) -> str:
        if self._released:
            raise HailoRTException("completion was released")
        if self._status is not LLMGeneratorCompletionStatus.GENERATING:
            raise HailoRTInvalidOperationException(
                "HAILO_INVALID_OPERATION: read() after the generation ended"
            )
        if DEVICE.read_delay_ms > timeout_ms:
            time.sleep(timeout_ms / 1000)
            raise HailoRTTimeout(
                "Received a timeout - hailort has failed because a timeout had occurred"
            )
        if DEVICE.read_delay_ms:
            time.sleep(DEVICE.read_delay_ms / 1000)
        return self._next_piece()

    def _next_piece(self) -> str:
        llm = self._llm
        token = next(self._tokens)
        self._generated.append(token)
        llm._context.append(token)
        piece = self._decoder.decode(llm._detokenize(token))
        self._text += piece
        if token == llm._eos_id or any(self._text.endswith(s) for s in llm._stop_tokens if s):
            self._status = LLMGeneratorCompletionStatus.LOGICAL_END_OF_GENERATION
        elif len(self._generated) >= self._max_tokens or len(llm._context) >= llm._capacity:
            self._status = LLMGeneratorCompletionStatus.MAX_TOKENS_REACHED
            llm._recover()
        if self._status is not LLMGeneratorCompletionStatus.GENERATING:
            self._finish()
        return piece

    def read_all(self, timeout_ms: int = 10000) -> str:
        parts = []
        while self._status is LLMGeneratorCompletionStatus.GENERATING:
            parts.append(self.read(timeout_ms))
        return "".join(parts)

    def _finish(self) -> None:
        close = getattr(self._tokens, "close", None)
        if close is not None:
            close()
        DEVICE.log.append(("completion_end", (self._status.name, self._text)))

    def release(self) -> None:
        if self._released:
            return
        if self._status is LLMGeneratorCompletionStatus.GENERATING:
            self._status = LLMGeneratorCompletionStatus.ABORTED
            self._llm._recover()
            self._finish()
        self._released = True
        self._llm._open_completion = None

    def __enter__(self) -> LLMGeneratorCompletion:
        return self

    def __exit__(self, *args: object) -> bool:
        self.release()
        return False

    def __iter__(self) -> LLMGeneratorCompletion:
        return self

    def __next__(self) -> str:
        if self._status is not LLMGeneratorCompletionStatus.GENERATING:
            raise StopIteration("Generation complete")
        return self.read()


class LLM:
    """``LLM(vdevice, model_path, lora_name="", optimize_memory_on_device=False)``."""

    def __init__(
        self,
        vdevice: VDevice,
        model_path: str,
        lora_name: str = "",
        optimize_memory_on_device: bool = False,
    ) -> None:
        self._released = True
        path = Path(model_path)
        if not path.is_file():
            raise HailoRTException(
                f"HAILO_OPEN_FILE_FAILURE: HEF file '{model_path}' does not exist."
            )
        if DEVICE.kv_cache_owner is not None:
            raise HailoRTException(
                "Failed to create LLM: KV-Cache is already in use by another model!"
            )
        spec = json.loads(path.read_text(encoding="utf-8"))
        import llama_cpp

        self._capacity = int(spec.get("context_capacity", DEFAULT_CAPACITY))
        self._model_id = hashlib.sha256(str(spec["gguf"]).encode()).hexdigest()[:16]
        self._llama = llama_cpp.Llama(
            model_path=str(spec["gguf"]),
            n_ctx=self._capacity + 16,
            n_threads=2,
            verbose=False,
        )
        self._eos_id = self._llama.token_eos()
        eos = self._detokenize(self._eos_id).decode("utf-8", "replace")
        bos = self._detokenize(self._llama.token_bos()).decode("utf-8", "replace")
        source = str(self._llama.metadata.get("tokenizer.chat_template", ""))
        self._template = _PromptTemplate(source, bos=bos, eos=eos)
        self._stop_tokens: list[str] = [eos]
        self._recovery = eos + "\n"
        self._context: list[int] = []
        self._open_completion: LLMGeneratorCompletion | None = None
        self._vdevice = vdevice
        self._released = False
        vdevice._llms.append(self)
        DEVICE.kv_cache_owner = self
        DEVICE.log.append(("llm_create", str(path)))

    # --- lifetime ------------------------------------------------------------------

    def release(self) -> None:
        if self._released:
            return
        if self._open_completion is not None:
            self._open_completion.release()
        self._released = True
        self._llama.close()
        if DEVICE.kv_cache_owner is self:
            DEVICE.kv_cache_owner = None
        DEVICE.log.append(("llm_release", None))

    def __enter__(self) -> LLM:
        return self

    def __exit__(self, *args: object) -> bool:
        self.release()
        return False

    def _check_alive(self) -> None:
        if self._released:
            raise HailoRTException("LLM was released")

    def _check_idle(self, what: str) -> None:
        self._check_alive()
        if self._open_completion is not None:
            raise HailoRTException(
                f"Failed to {what}. Make sure there is no other generation in progress"
            )

    # --- generation ----------------------------------------------------------------

    def generate(
        self,
        prompt: str | list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        top_p: float | None = None,
        top_k: int | None = None,
        frequency_penalty: float | None = None,
        max_generated_tokens: int | None = None,
        do_sample: bool | None = None,
        seed: int | None = None,
    ) -> LLMGeneratorCompletion:
        self._check_idle("generate")
        _validate(temperature, top_p, top_k, frequency_penalty, max_generated_tokens)
        if isinstance(prompt, str):
            if tools:
                raise HailoRTInvalidOperationException(
                    "HAILO_INVALID_OPERATION: tools need a structured (list) prompt"
                )
            text = prompt
        else:
            if not isinstance(prompt, list) or not all(isinstance(m, dict) for m in prompt):
                raise HailoRTException("prompt must be a list of dicts in chat format")
            if not prompt:
                raise HailoRTInvalidArgumentException(
                    "HAILO_INVALID_ARGUMENT: Prompt cannot be empty"
                )
            text = self._template.render([dict(m) for m in prompt], tools)
        if not text:
            raise HailoRTInvalidArgumentException("HAILO_INVALID_ARGUMENT: Prompt cannot be empty")
        new = self.tokenize(text)
        if len(self._context) + len(new) >= self._capacity:
            raise HailoRTException(
                f"Conversation context is full: {len(self._context)} tokens held + "
                f"{len(new)} new > capacity {self._capacity}"
            )
        DEVICE.log.append(("prompt", text))
        self._context.extend(new)
        if seed is not None:
            self._llama.set_seed(seed)
        sample = bool(do_sample) if do_sample is not None else False
        tokens = self._llama.generate(
            list(self._context),
            temp=(temperature or 0.7) if sample else 0.0,
            top_p=top_p if top_p is not None else 0.95,
            top_k=top_k if top_k is not None else 40,
            frequency_penalty=frequency_penalty or 0.0,
            reset=True,
        )
        limit = max_generated_tokens or DEFAULT_MAX_GENERATED_TOKENS
        self._open_completion = LLMGeneratorCompletion(self, tokens, limit)
        return self._open_completion

    def generate_all(
        self, prompt: str | list[dict[str, Any]], *args: Any, timeout_ms: int = 600000, **kw: Any
    ) -> str:
        with self.generate(prompt, *args, **kw) as completion:
            return completion.read_all(timeout_ms)

    def _recover(self) -> None:
        self._context.extend(self.tokenize(self._recovery))

    # --- context -------------------------------------------------------------------

    def tokenize(self, text: str) -> list[int]:
        self._check_alive()
        return list(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _detokenize(self, token: int) -> bytes:
        return bytes(self._llama.detokenize([token], special=True))

    def get_context_usage_size(self) -> int:
        self._check_alive()
        return len(self._context)

    def max_context_capacity(self) -> int:
        self._check_alive()
        return self._capacity

    def clear_context(self) -> None:
        self._check_idle("clear context")
        self._context = []
        self._template.is_first = True
        DEVICE.log.append(("clear_context", None))

    def save_context(self) -> bytes:
        self._check_idle("get context")
        body = json.dumps({"model": self._model_id, "tokens": self._context})
        return _MAGIC + body.encode("utf-8")

    def load_context(self, context_data: bytes) -> None:
        self._check_idle("set context")
        data = bytes(context_data)
        if not data.startswith(_MAGIC):
            raise HailoRTException("Failed to set context: not a context blob")
        body = json.loads(data[len(_MAGIC) :])
        if body.get("model") != self._model_id:
            raise HailoRTException("Failed to set context: the context is from a different model")
        # Like HailoRT: the tokens are replaced, the template's first-prompt state is not.
        self._context = [int(t) for t in body["tokens"]]
        DEVICE.log.append(("load_context", len(self._context)))

    def prompt_template(self) -> str:
        self._check_alive()
        return self._template.source

    def set_stop_tokens(self, stop_tokens: list[str]) -> None:
        self._check_alive()
        self._stop_tokens = [str(s) for s in stop_tokens]

    def get_stop_tokens(self) -> list[str]:
        self._check_alive()
        return list(self._stop_tokens)

    def get_generation_recovery_sequence(self) -> str:
        self._check_alive()
        return self._recovery

    def set_generation_recovery_sequence(self, sequence: str) -> None:
        self._check_alive()
        self._recovery = sequence


def _validate(
    temperature: float | None,
    top_p: float | None,
    top_k: int | None,
    frequency_penalty: float | None,
    max_generated_tokens: int | None,
) -> None:
    """The checks of ``LLM::Impl::validate_generator_params``."""
    if temperature is not None and not temperature > 0:
        raise HailoRTInvalidArgumentException(
            f"Temperature should be higher than '0'. received: '{temperature}'"
        )
    if top_p is not None and not 0 <= top_p <= 1:
        raise HailoRTInvalidArgumentException(
            f"top_p should be in range [0, 1]. received: '{top_p}'"
        )
    if top_k is not None and top_k < 1:
        raise HailoRTInvalidArgumentException(f"top_k should be >= 1. received: '{top_k}'")
    if frequency_penalty is not None and frequency_penalty == 0:
        raise HailoRTInvalidArgumentException("frequency_penalty must be a nonzero value")
    if max_generated_tokens is not None and max_generated_tokens < 1:
        raise HailoRTInvalidArgumentException("max_generated_tokens should be >= 1")
