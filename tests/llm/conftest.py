"""Fixtures for the LLM backend tests: the small real model and a grammar checker."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

MODELS_DIR = Path("~/.cache/edgeagent/models").expanduser()
SMOLLM2 = MODELS_DIR / "smollm2-135m-instruct-q4_1.gguf"


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    if not SMOLLM2.is_file():
        pytest.skip(f"{SMOLLM2} missing; run `edgeagent model fetch smollm2`")
    return SMOLLM2


class GrammarChecker:
    """Asks llama.cpp's own grammar sampler whether it accepts a whole text.

    Each token of the text is offered alone to the grammar sampler: a rejected token
    comes back with logit -inf. At the end, the end-of-generation token must be
    allowed too, so a text that stops inside a call is rejected.
    """

    def __init__(self, model_path: Path) -> None:
        import llama_cpp

        self._llama_cpp = llama_cpp
        self.llm = llama_cpp.Llama(model_path=str(model_path), vocab_only=True, verbose=False)
        self.vocab = self.llm._model.vocab

    def compiles(self, grammar: str) -> bool:
        sampler = self._init(grammar)
        if not sampler:
            return False
        self._llama_cpp.llama_sampler_free(sampler)
        return True

    def _init(self, grammar: str) -> Any:
        return self._llama_cpp.llama_sampler_init_grammar(
            self.vocab, grammar.encode("utf-8"), b"root"
        )

    def _allowed(self, sampler: Any, token: int) -> bool:
        lc = self._llama_cpp
        data = (lc.llama_token_data * 1)(lc.llama_token_data(token, 0.0, 0.0))
        array = lc.llama_token_data_array(data, 1, -1, False)
        lc.llama_sampler_apply(sampler, ctypes.byref(array))
        return bool(data[0].logit > float("-inf"))

    def accepts(self, grammar: str, text: str) -> bool:
        sampler = self._init(grammar)
        assert sampler, f"grammar does not compile:\n{grammar}"
        try:
            tokens = self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
            for token in tokens:
                if not self._allowed(sampler, token):
                    return False
                self._llama_cpp.llama_sampler_accept(sampler, token)
            return self._allowed(sampler, self.llm.token_eos())
        finally:
            self._llama_cpp.llama_sampler_free(sampler)


@pytest.fixture(scope="session")
def grammar_checker(smollm2_path: Path) -> Iterator[GrammarChecker]:
    pytest.importorskip("llama_cpp")
    checker = GrammarChecker(smollm2_path)
    yield checker
    checker.llm.close()
