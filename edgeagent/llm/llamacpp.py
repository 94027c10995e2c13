"""The embedded engine: a GGUF model run by llama.cpp through llama-cpp-python.

Three things here matter more than they look:

* **Tokenization keeps data as data.** The prompt is rendered with the chat template
  stored in the GGUF, but message *contents* are swapped for unique placeholders first.
  The template's own text (``<|im_start|>user\\n`` ...) is then tokenized with
  ``special=True`` and each content with ``special=False``. So ``<tool_call>`` in our
  instructions stays plain text for Qwen2.5-Coder (whose special ``<tool_call>`` token
  is untrained), and a tool result containing ``<|im_start|>`` cannot open a new turn.
* **The KV cache survives between turns.** The agent always sends the whole
  conversation; only the tokens after the longest common prefix with what the cache
  already holds are evaluated (the system prompt and tool manifest are paid once).
* **The shared start is primed.** ``prime`` puts the start every conversation shares
  (system prompt, manifest, primer) into the KV cache before the first turn: restored
  from a state file (:mod:`edgeagent.llm.prompt_cache`) when one matches the model,
  template and tokens, else evaluated and saved for the next start.
* **Streaming is byte-exact.** Tokens are decoded with an incremental UTF-8 decoder
  (a character may span tokens) and held back while they could still be the start of
  a stop sequence, so stop sequences are never emitted.
"""

from __future__ import annotations

import codecs
import logging
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgeagent.errors import (
    BackendUnavailableError,
    ContextOverflowError,
    LLMError,
    ModelNotFoundError,
)
from edgeagent.llm.base import CancelCheck, EngineStatus, GenerateRequest, Message
from edgeagent.llm.grammar_gate import GrammarGate
from edgeagent.llm.kv_states import SideStates, load_seq_state, seq_state, shared_start
from edgeagent.llm.prompt_cache import PromptStateCache, state_key
from edgeagent.llm.text import ChatTemplate, StopFilter
from edgeagent.tools.calls import CALL_TAGS

if TYPE_CHECKING:
    from llama_cpp import Llama

log = logging.getLogger(__name__)

# Prompt tokens evaluated per llama.cpp call; between chunks a cancel is noticed.
PREFILL_CHUNK = 128
# The same for a read-ahead (GenerateRequest.ahead), which a new request interrupts: on
# two x86 cores 32 tokens take about 1 s (32 ms a token; 27 ms in chunks of 128).
AHEAD_CHUNK = 32
# Context and batch for side questions (GenerateRequest.aside): one short question.
# Measured on Qwen2.5-Coder-1.5B Q4_K_M: the side context adds about 700 MB of anonymous
# memory, because llama.cpp repacks the weights per model instance (docs/benchmarks.md).
ASIDE_CTX = 512
ASIDE_BATCH = 64


@dataclass
class EvalStats:
    """What the last generation cost: evidence of KV reuse, for status and tests."""

    prompt_tokens: int = 0
    reused_tokens: int = 0
    evaluated_tokens: int = 0
    generated_tokens: int = 0
    """Every token of the output, sampled or filled."""
    filled_tokens: int = 0
    """Output tokens the call format fixed (``GenerateRequest.fill``), evaluated in the
    same pass as the sampled token before them instead of each in a decode."""


@dataclass
class PrimeStats:
    """How the shared start of conversations got into the KV cache (status, tests)."""

    source: str = "none"
    """``restored`` (from a state file), ``evaluated``, ``held`` (already there) or
    ``none`` (not primed yet)."""
    tokens: int = 0
    seconds: float = 0.0
    cached: bool = False
    """Whether a state file holds it now, for the next start."""


class LlamaCppEngine:
    """A GGUF model in this process. Synchronous: one generation at a time."""

    name = "llamacpp"

    def __init__(
        self,
        *,
        model_path: Path,
        n_ctx: int,
        n_threads: int | None,
        plain_markers: bool = True,
        call_tags: tuple[str, str] = CALL_TAGS,
        state_cache: PromptStateCache | None = None,
    ) -> None:
        model_path = Path(model_path).expanduser()
        if not model_path.is_file():
            raise ModelNotFoundError(
                f"GGUF model {model_path} does not exist; run `edgeagent model fetch` "
                f"or set [llm] model to a GGUF path"
            )
        try:
            import llama_cpp
        except ImportError as exc:
            raise BackendUnavailableError(
                f"llama-cpp-python is not importable ({exc}); install it with "
                f"scripts/build-llama-wheel.sh"
            ) from None
        self._lc = llama_cpp
        self.model_path = model_path
        self.plain_markers = plain_markers
        # The call format's tags, which a model may have as (trained) special tokens.
        # With plain_markers=False they keep their special ids inside contents; nothing
        # else in a content ever does.
        self._call_tags = call_tags
        self._n_threads = n_threads
        self._llm: Llama | None = llama_cpp.Llama(
            model_path=str(model_path),
            n_ctx=n_ctx,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            n_batch=min(512, n_ctx),
            verbose=False,
        )
        # Side questions (GenerateRequest.aside) run in a second, small context over the
        # same memory-mapped weights, so the conversation's KV cache stays warm; the KV
        # states of its last questions are kept, for the next that starts the same way.
        self._aside: tuple[Llama, GrammarGate | None] | None = None
        self._side_states = SideStates(llama_cpp)
        llm = self._llm
        source = llm.metadata.get("tokenizer.chat_template")
        if not source:
            self.close()
            raise ModelNotFoundError(
                f"{model_path.name} has no tokenizer.chat_template in its GGUF metadata; "
                f"use an instruct model that ships its chat template"
            )
        self._bos_text = self._piece(llm.token_bos(), special=True).decode("utf-8", "replace")
        eos_text = self._piece(llm.token_eos(), special=True).decode("utf-8", "replace")
        self._template = ChatTemplate(
            source, variables={"bos_token": self._bos_text, "eos_token": eos_text}
        )
        stat = model_path.stat()
        # What a saved state depends on besides its tokens (state_key).
        identity = (str(model_path.resolve()), stat.st_size, stat.st_mtime_ns)
        self._state_id = (*identity, llama_cpp.__version__, source)
        self._states = state_cache
        self.primed = PrimeStats()
        self.end_text = self._template.end_of_turn()
        self._add_bos = bool(llm._model.add_bos_token())
        self._markers = {} if plain_markers else self._special_markers()
        self._grammar: GrammarGate | None = None
        self.stats = EvalStats()
        self.read_ahead_tokens = 0
        """What the last read-ahead evaluated (GenerateRequest.ahead)."""

    # --- tokenization -----------------------------------------------------------------

    def _piece(self, token: int, *, special: bool = False) -> bytes:
        assert self._llm is not None
        return bytes(self._llm._model.detokenize([token], special=special))

    def _special_markers(self) -> dict[str, int]:
        assert self._llm is not None
        found = {}
        for marker in self._call_tags:
            ids = self._llm.tokenize(marker.encode(), add_bos=False, special=True)
            if len(ids) == 1:
                found[marker] = ids[0]
        return found

    def _tokenize_content(self, text: str) -> list[int]:
        assert self._llm is not None
        if not self._markers:
            return self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        pattern = "(" + "|".join(re.escape(m) for m in self._markers) + ")"
        tokens: list[int] = []
        for part in re.split(pattern, text):
            if part in self._markers:
                tokens.append(self._markers[part])
            elif part:
                tokens += self._llm.tokenize(part.encode("utf-8"), add_bos=False, special=False)
        return tokens

    def tokenize_messages(
        self, messages: Sequence[Message], *, add_generation_prompt: bool = True
    ) -> list[int]:
        """The prompt tokens: template text as special tokens, contents as plain text."""
        assert self._llm is not None
        segments = self._template.segments(messages, add_generation_prompt=add_generation_prompt)
        tokens: list[int] = []
        starts_with_bos = bool(segments) and segments[0][0].startswith(self._bos_text)
        if self._add_bos and not (self._bos_text and starts_with_bos):
            tokens.append(self._llm.token_bos())
        for text, is_content in segments:
            if is_content:
                tokens += self._tokenize_content(text)
            else:
                tokens += self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        return tokens

    def count_tokens(self, messages: Sequence[Message]) -> int:
        return len(self.tokenize_messages(messages))

    # --- generation -------------------------------------------------------------------

    def _gate(self, source: str) -> GrammarGate:
        """One live grammar (tool sets rarely change); reset to its start per generation."""
        assert self._llm is not None
        if self._grammar is None or self._grammar.source != source:
            if self._grammar is not None:
                self._grammar.close()
                self._grammar = None
            self._grammar = GrammarGate(self._lc, self._llm, source)
        self._grammar.reset()
        return self._grammar

    def _held_prefix(self, tokens: Sequence[int]) -> int:
        """How many of ``tokens`` the KV cache already holds, from the start."""
        llm = self._llm
        assert llm is not None
        return shared_start(llm.input_ids[: llm.n_tokens].tolist(), tokens)

    def _evaluate(
        self, tokens: list[int], held: int, cancelled: CancelCheck, *, chunk: int = PREFILL_CHUNK
    ) -> bool:
        """Evaluate ``tokens`` after the first ``held`` (which the cache holds) in chunks,
        noticing a cancel between them. False if cancelled."""
        llm = self._llm
        assert llm is not None
        llm.n_tokens = held  # eval() drops every cached position from n_tokens on
        for start in range(held, len(tokens), chunk):
            if cancelled():
                return False
            llm.eval(tokens[start : start + chunk])
        return True

    def _prefill(self, tokens: list[int], cancelled: CancelCheck) -> bool:
        """Evaluate the new prompt tokens, reusing the cached prefix. False if cancelled."""
        # At least one token must be evaluated now, so the logits are fresh.
        prefix = min(self._held_prefix(tokens), len(tokens) - 1)
        self.stats = EvalStats(
            prompt_tokens=len(tokens), reused_tokens=prefix, evaluated_tokens=len(tokens) - prefix
        )
        return self._evaluate(tokens, prefix, cancelled)

    def _sample(self, chain: Any, gate: GrammarGate | None, *, greedy: bool) -> int:
        """Sample freely; consult the grammar only when the free choice breaks it.

        Checking one token is cheap; constraining the whole vocabulary (50-150k tokens
        walked through the grammar) is what makes naive grammar sampling slow.
        """
        llm = self._llm
        assert llm is not None
        token = int(chain.sample(llm._ctx, -1))
        if gate is None or gate.allows(token):
            return token
        return gate.constrained_choice(chain, greedy=greedy)

    def _filled(self, text: str, gate: GrammarGate | None, room: int) -> list[int]:
        """``text``'s tokens, as many from its start as the grammar allows (each then
        accepted by it) and ``room`` leaves; none without a grammar."""
        tokens: list[int] = []
        if not text or gate is None:
            return tokens
        for token in self._tokenize_content(text)[: max(room, 0)]:
            if not gate.allows(token):
                break
            gate.accept(token)
            tokens.append(token)
        return tokens

    def generate(self, request: GenerateRequest, *, cancelled: CancelCheck) -> Iterator[str]:
        if self._llm is None:
            raise LLMError("the llama.cpp engine is closed")
        if request.ahead:
            self._read_ahead(request.messages, cancelled)
            return
        if not request.aside:
            yield from self._generate(request, cancelled)
            return
        # Swap the side context in for this one generation (stats then describe it).
        main, main_gate = self._llm, self._grammar
        side, side_gate = self._aside or (self._side_context(), None)
        self._llm, self._grammar = side, side_gate
        try:
            yield from self._generate(request, cancelled)
        finally:
            self._aside = (side, self._grammar)
            self._llm, self._grammar = main, main_gate

    def _side_context(self) -> Llama:
        return self._lc.Llama(
            model_path=str(self.model_path),
            n_ctx=ASIDE_CTX,
            n_threads=self._n_threads,
            n_threads_batch=self._n_threads,
            n_batch=ASIDE_BATCH,
            verbose=False,
        )

    def _read_ahead(self, messages: Sequence[Message], cancelled: CancelCheck) -> None:
        """Evaluate what the cache lacks of ``messages``, in small chunks so that a new
        request waits at most one; ``stats`` keep describing the last generation."""
        llm = self._llm
        assert llm is not None
        tokens = self.tokenize_messages(messages, add_generation_prompt=False)
        if len(tokens) >= llm.n_ctx():
            return  # the next turn trims the history first (agent.context)
        held = self._held_prefix(tokens)
        self._evaluate(tokens, held, cancelled, chunk=AHEAD_CHUNK)
        self.read_ahead_tokens = llm.n_tokens - held
        log.debug("read ahead %d of %d tokens", self.read_ahead_tokens, len(tokens) - held)

    def _generate(self, request: GenerateRequest, cancelled: CancelCheck) -> Iterator[str]:
        llm = self._llm
        assert llm is not None
        tokens = self.tokenize_messages(request.messages)
        n_ctx = llm.n_ctx()
        if len(tokens) >= n_ctx:
            raise ContextOverflowError(
                f"the prompt takes {len(tokens)} tokens but the context window is {n_ctx}; "
                f"raise [llm.llamacpp] n_ctx or start a new conversation"
            )
        gate = self._gate(request.grammar) if request.grammar else None
        if request.aside:
            self._side_states.recall(llm, tokens)
        if not self._prefill(tokens, cancelled):
            return
        if request.aside:
            self._side_states.remember(llm, tokens)
        budget = min(request.max_tokens, n_ctx - len(tokens))
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        stops = StopFilter((*request.stop, self.end_text))
        chain = llm._init_sampler(temp=request.temperature, repeat_penalty=1.0)
        vocab = llm._model.vocab
        fill = request.fill if gate is not None else None
        written = ""  # what the model has written so far, for the fill
        try:
            while self.stats.generated_tokens < budget and not cancelled():
                token = self._sample(chain, gate, greedy=request.temperature == 0)
                if self._lc.llama_vocab_is_eog(vocab, token):
                    break
                if gate is not None:
                    gate.accept(token)
                batch = [token]
                piece = decoder.decode(self._piece(token, special=False))
                if fill is not None:
                    written += piece
                    room = budget - self.stats.generated_tokens - len(batch)
                    filled = self._filled(fill(written), gate, room)
                    for extra in filled:
                        chain.accept(extra)
                        piece += (more := decoder.decode(self._piece(extra, special=False)))
                        written += more
                    batch += filled
                    self.stats.filled_tokens += len(filled)
                self.stats.generated_tokens += len(batch)
                text = stops.feed(piece)
                if text:
                    yield text
                if stops.stopped or self.stats.generated_tokens >= budget:
                    break
                llm.eval(batch)  # the filled tokens with the sampled one: one pass
        finally:
            chain.close()
        tail = stops.feed(decoder.decode(b"", final=True)) + stops.flush()
        if tail and not cancelled():
            yield tail

    # --- the shared start -------------------------------------------------------------

    def prime(self, messages: Sequence[Message], *, cancelled: CancelCheck) -> None:
        """Hold ``messages`` (the start every conversation shares) in the KV cache:
        restored from the state cache when it has them, else evaluated and stored."""
        llm = self._llm
        if llm is None:
            raise LLMError("the llama.cpp engine is closed")
        began = time.perf_counter()
        tokens = self.tokenize_messages(messages, add_generation_prompt=False)
        if len(tokens) >= llm.n_ctx():
            raise ContextOverflowError(
                f"the system prompt and primer take {len(tokens)} tokens but the context "
                f"window is {llm.n_ctx()}; raise [llm.llamacpp] n_ctx or enable fewer tools"
            )
        key = self.state_key(tokens)
        states = self._states
        held = self._held_prefix(tokens)
        if held == len(tokens):
            source = "held"
        elif states is not None and self._restore(states, key, tokens):
            source = "restored"
        else:
            if not self._evaluate(tokens, held, cancelled):
                return
            source = "evaluated"
        cached = source == "restored"
        if states is not None and source != "restored":
            cached = states.path(key).is_file()
            if not cached and llm.n_tokens == len(tokens):  # exactly the prefix: save it
                cached = states.store(key, tokens, self._state_bytes()) is not None
        seconds = time.perf_counter() - began
        self.primed = PrimeStats(source=source, tokens=len(tokens), seconds=seconds, cached=cached)
        log.info("primed %d tokens (%s) in %.2f s", len(tokens), source, seconds)

    def state_key(self, tokens: Sequence[int]) -> str:
        """The state cache's key for ``tokens`` on this model, template and llama.cpp."""
        return state_key(*self._state_id, tokens)

    def _state_bytes(self) -> bytes:
        """The KV cache of the conversation's sequence, as llama.cpp serialises it."""
        assert self._llm is not None
        return seq_state(self._lc, self._llm)

    def _restore(self, states: PromptStateCache, key: str, tokens: list[int]) -> bool:
        """Load the stored state for ``tokens``; False (file discarded) when unusable."""
        llm = self._llm
        assert llm is not None
        stored = states.load(key)
        if stored is None:
            return False
        payload = stored.payload
        if stored.tokens != tokens or not load_seq_state(self._lc, llm, payload, tokens):
            llm.n_tokens = 0
            llm._ctx.kv_cache_seq_rm(-1, 0, -1)
            log.warning(
                "discarding the cached prompt state %s: it does not hold this prompt or "
                "llama.cpp could not load it (%d bytes, %d tokens); evaluating again",
                states.path(key), len(payload), len(stored.tokens),
            )  # fmt: skip
            states.discard(key)
            return False
        return True

    # --- lifecycle --------------------------------------------------------------------

    def status(self) -> EngineStatus:
        used = self._llm.n_tokens if self._llm is not None else None
        return EngineStatus(
            backend=self.name,
            model=self.model_path.name,
            context_window=self._llm.n_ctx() if self._llm is not None else 0,
            context_used=used,
            extra={
                "last_prompt_tokens": self.stats.prompt_tokens,
                "last_reused_tokens": self.stats.reused_tokens,
                "last_evaluated_tokens": self.stats.evaluated_tokens,
                "last_generated_tokens": self.stats.generated_tokens,
                "last_read_ahead_tokens": self.read_ahead_tokens,
                "plain_markers": self.plain_markers,
                "prime": self.primed.source,
                "primed_tokens": self.primed.tokens,
                "prime_s": round(self.primed.seconds, 3),
                "prime_cached": self.primed.cached,
                "state_cache_dir": str(self._states.directory) if self._states else None,
            },
        )

    def close(self) -> None:
        llm, self._llm = self._llm, None
        if self._grammar is not None:
            self._grammar.close()
            self._grammar = None
        aside, self._aside = self._aside, None
        if aside is not None:
            if aside[1] is not None:
                aside[1].close()
            aside[0].close()
        if llm is not None:
            llm.close()

    def __enter__(self) -> LlamaCppEngine:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
