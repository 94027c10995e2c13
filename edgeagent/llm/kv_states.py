"""A llama.cpp context's KV cache as bytes, and the side context's recent states.

A side question (``GenerateRequest.aside``) runs in a small second context that holds
one sequence. The agent's questions alternate (before an acting call, the topic
question, then the capability question, which names the device first), so each would
evaluate its whole start again. :class:`SideStates` keeps the KV states of the last few
questions (about 30 KB a token on Qwen2.5-1.5B) and restores the one that shares the
longest start with the next: the capability question then evaluates from the request
on (23 of its 41 tokens). A start restored from an earlier evaluation is not
bit-identical to one evaluated with the rest of the prompt, so a close call can flip
(docs/benchmarks_accuracy.md, "The side questions alone").
"""

from __future__ import annotations

import ctypes
import logging
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from llama_cpp import Llama

log = logging.getLogger(__name__)

SIDE_STATES = 8
"""How many side questions' states are kept."""


def seq_state(lc: Any, llm: Llama) -> bytes:
    """The KV cache of ``llm``'s sequence 0, as llama.cpp serialises it."""
    ctx = llm._ctx.ctx
    size = lc.llama_state_seq_get_size(ctx, 0)
    buffer = (ctypes.c_uint8 * size)()
    written = lc.llama_state_seq_get_data(ctx, buffer, size, 0)
    return bytes(memoryview(buffer)[:written])


def load_seq_state(lc: Any, llm: Llama, payload: bytes, tokens: Sequence[int]) -> bool:
    """Replace ``llm``'s sequence 0 with ``payload``, the state of ``tokens``. False
    (and an empty cache) when llama.cpp cannot load it."""
    llm.n_tokens = 0
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    loaded = 0
    if payload:
        buffer = (ctypes.c_uint8 * len(payload)).from_buffer_copy(payload)
        loaded = lc.llama_state_seq_set_data(llm._ctx.ctx, buffer, len(payload), 0)
    if loaded != len(payload) or not payload:
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        return False
    llm.input_ids[: len(tokens)] = tokens
    llm.n_tokens = len(tokens)
    return True


def shared_start(a: Sequence[int], b: Sequence[int]) -> int:
    """How many tokens ``a`` and ``b`` share from the start."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class SideStates:
    """The KV states of the side context's last :data:`SIDE_STATES` prompts."""

    def __init__(self, lc: Any, *, keep: int = SIDE_STATES) -> None:
        self._lc = lc
        self._keep = keep
        self._states: OrderedDict[tuple[int, ...], bytes] = OrderedDict()

    def recall(self, llm: Llama, tokens: Sequence[int]) -> None:
        """Restore the kept state that shares the most of ``tokens``' start, when it
        shares more than ``llm`` holds now (the prefill then evaluates the rest)."""
        best, best_len = None, shared_start(llm.input_ids[: llm.n_tokens].tolist(), tokens)
        for key in self._states:
            common = shared_start(key, tokens)
            if common > best_len:
                best, best_len = key, common
        if best is None:
            return
        if load_seq_state(self._lc, llm, self._states[best], best):
            self._states.move_to_end(best)
        else:
            log.warning("llama.cpp could not load a side question's kept state; dropped")
            del self._states[best]

    def remember(self, llm: Llama, tokens: Sequence[int]) -> None:
        """Keep the state of ``tokens``, which ``llm`` has just evaluated."""
        key = tuple(tokens)
        self._states[key] = seq_state(self._lc, llm)
        self._states.move_to_end(key)
        while len(self._states) > self._keep:
            self._states.popitem(last=False)
