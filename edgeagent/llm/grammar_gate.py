"""A llama.cpp grammar sampler used as a check, and as a filter only when needed.

Walking the whole vocabulary (50-150k tokens) through a grammar at every step is what
makes naive constrained decoding slow; checking the one token the model chose is cheap.
The engine (:mod:`edgeagent.llm.llamacpp`) samples freely and asks :meth:`GrammarGate.allows`;
only when the free choice breaks the grammar does it constrain the step.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any

from edgeagent.errors import LLMError

if TYPE_CHECKING:
    from llama_cpp import Llama


GREEDY_CANDIDATES = 64
"""The likeliest tokens a greedy constrained step checks one by one before it walks the
whole vocabulary through the grammar."""


class GrammarGate:
    """A llama.cpp grammar sampler used as a check, and as a filter only when needed."""

    def __init__(self, lc: Any, llm: Llama, source: str) -> None:
        import numpy as np

        self.source = source
        self._lc = lc
        self._llm = llm
        # Checked here: llama.cpp aborts the process when handed a NULL sampler.
        self._sampler = lc.llama_sampler_init_grammar(
            llm._model.vocab, source.encode("utf-8"), b"root"
        )
        if not self._sampler:
            first = source.splitlines()[0] if source else ""
            raise LLMError(
                f"llama.cpp rejected the tool grammar (first line {first!r}); the parse error "
                f"is in the log above. Fix the grammar or disable [llm.llamacpp] grammar"
            )
        n_vocab = llm.n_vocab()
        self._one = (lc.llama_token_data * 1)()
        self._all = (lc.llama_token_data * n_vocab)()
        self._view = np.ctypeslib.as_array(self._all)
        self._view["id"] = np.arange(n_vocab, dtype=np.int32)
        self._n_vocab = n_vocab

    def allows(self, token: int) -> bool:
        lc = self._lc
        self._one[0].id, self._one[0].logit, self._one[0].p = token, 0.0, 0.0
        array = lc.llama_token_data_array(self._one, 1, -1, False)
        lc.llama_sampler_apply(self._sampler, ctypes.byref(array))
        return bool(self._one[0].logit != float("-inf"))

    def constrained_choice(self, chain: Any, *, greedy: bool = False) -> int:
        """Apply the grammar to every token's logit, then let ``chain`` choose.

        A ``greedy`` chain chooses the likeliest token the grammar allows: when one of
        the :data:`GREEDY_CANDIDATES` likeliest is allowed, it is that one, found with as
        many one-token checks instead of the grammar walking the whole vocabulary (a
        side question's free "Yes" against the grammar's "yes": 47 ms on two cores)."""
        import numpy as np

        lc = self._lc
        logits = np.ctypeslib.as_array(
            lc.llama_get_logits_ith(self._llm._ctx.ctx, -1), shape=(self._n_vocab,)
        )
        if greedy:
            top = np.argpartition(logits, -GREEDY_CANDIDATES)[-GREEDY_CANDIDATES:]
            top.sort()  # by id, so that among equal logits the first wins, as greedy's
            for token in top[np.argsort(-logits[top], kind="stable")]:
                if self.allows(int(token)):
                    chain.accept(int(token))
                    return int(token)
        self._view["logit"] = logits
        self._view["p"] = 0.0
        array = lc.llama_token_data_array(self._all, self._n_vocab, -1, False)
        lc.llama_sampler_apply(self._sampler, ctypes.byref(array))
        lc.llama_sampler_apply(chain.sampler, ctypes.byref(array))
        token = int(self._all[array.selected].id)
        chain.accept(token)
        return token

    def accept(self, token: int) -> None:
        self._lc.llama_sampler_accept(self._sampler, token)

    def reset(self) -> None:
        self._lc.llama_sampler_reset(self._sampler)

    def close(self) -> None:
        sampler, self._sampler = self._sampler, None
        if sampler:
            self._lc.llama_sampler_free(sampler)
