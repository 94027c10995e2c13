"""The primed start on the small real model (SmolLM2-135M): a second start restores the
saved KV state and evaluates only the new tokens; a changed prompt, tool set or model
misses; a damaged state file is logged, discarded and rebuilt; the directory is bounded.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from edgeagent.llm.base import GenerateRequest, Message
from edgeagent.llm.llamacpp import LlamaCppEngine
from edgeagent.llm.prompt_cache import PromptStateCache

pytestmark = pytest.mark.model

MB = 2**20
LED = "led(color: str, brightness: int 0-100): set the LED strip's colour and brightness."
SERVO = "servo(angle: int -90..90): turn the camera servo."


def prefix(*tools: str) -> list[Message]:
    system = "You control devices in this room. Tools:\n" + "\n".join(tools)
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": "Is anyone there?"},
        {"role": "assistant", "content": "Yes, I am here to help with the devices."},
    ]


def ask(start: Sequence[Message], text: str = "What colour is the sky?") -> GenerateRequest:
    return GenerateRequest(messages=[*start, {"role": "user", "content": text}], max_tokens=12)


def never() -> bool:
    return False


Make = Callable[..., LlamaCppEngine]


@pytest.fixture
def make_engine(smollm2_path: Path, tmp_path: Path) -> Iterator[Make]:
    """A fresh engine (a daemon start) over the cache directory ``tmp_path / states``."""
    pytest.importorskip("llama_cpp")
    engines: list[LlamaCppEngine] = []

    def make(
        *, model: Path = smollm2_path, max_bytes: int = 64 * MB, cache: bool = True
    ) -> LlamaCppEngine:
        states = PromptStateCache(tmp_path / "states", max_bytes=max_bytes) if cache else None
        engine = LlamaCppEngine(model_path=model, n_ctx=1024, n_threads=1, state_cache=states)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


def answer(engine: LlamaCppEngine, request: GenerateRequest) -> str:
    return "".join(engine.generate(request, cancelled=never))


def state_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "states").glob("*.state"))


def test_a_second_start_restores_the_state_and_evaluates_only_the_new_tokens(
    make_engine: Make, tmp_path: Path
) -> None:
    start = prefix(LED)
    first = make_engine()
    first.prime(start, cancelled=never)
    assert (first.primed.source, first.primed.cached) == ("evaluated", True)
    primed = first.primed.tokens
    expected = answer(first, ask(start))
    first.close()

    again = make_engine()
    again.prime(start, cancelled=never)
    assert again.primed.source == "restored"
    assert again.primed.tokens == primed
    assert answer(again, ask(start)) == expected  # the restored state is the same state
    stats = again.stats
    assert stats.reused_tokens == primed
    assert stats.evaluated_tokens == stats.prompt_tokens - primed
    assert stats.evaluated_tokens < 20

    cold = make_engine(cache=False)  # the same start without a cache evaluates it all
    answer(cold, ask(start))
    assert cold.stats.evaluated_tokens == cold.stats.prompt_tokens
    assert len(state_files(tmp_path)) == 1


def test_a_changed_tool_set_misses_and_saves_its_own_state(
    make_engine: Make, tmp_path: Path
) -> None:
    make_engine().prime(prefix(LED), cancelled=never)
    engine = make_engine()
    engine.prime(prefix(LED, SERVO), cancelled=never)
    assert (engine.primed.source, engine.primed.cached) == ("evaluated", True)
    assert len(state_files(tmp_path)) == 2
    answer(engine, ask(prefix(LED, SERVO)))
    assert engine.stats.reused_tokens == engine.primed.tokens
    # Both stay usable: switching back restores the first one.
    back = make_engine()
    back.prime(prefix(LED), cancelled=never)
    assert back.primed.source == "restored"


def test_another_model_file_misses(make_engine: Make, smollm2_path: Path, tmp_path: Path) -> None:
    make_engine().prime(prefix(LED), cancelled=never)
    other = tmp_path / "other.gguf"
    os.link(smollm2_path, other)  # the same bytes under another name: another model
    engine = make_engine(model=other)
    engine.prime(prefix(LED), cancelled=never)
    assert engine.primed.source == "evaluated"
    assert len(state_files(tmp_path)) == 2


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [_truncate, _flip], ids=["truncated", "corrupt"])
def test_a_damaged_state_file_is_logged_discarded_and_rebuilt(
    make_engine: Make, tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: object
) -> None:
    start = prefix(LED)
    make_engine().prime(start, cancelled=never)
    (path,) = state_files(tmp_path)
    assert callable(damage)
    damage(path)
    engine = make_engine()
    with caplog.at_level(logging.WARNING):
        engine.prime(start, cancelled=never)
    assert "discarding the cached prompt state" in caplog.text
    assert str(path) in caplog.text
    assert (engine.primed.source, engine.primed.cached) == ("evaluated", True)
    answer(engine, ask(start))
    assert engine.stats.reused_tokens == engine.primed.tokens
    # Rebuilt: the next start restores it.
    rebuilt = make_engine()
    rebuilt.prime(start, cancelled=never)
    assert rebuilt.primed.source == "restored"


def test_a_state_llama_cpp_refuses_is_discarded_and_rebuilt(
    make_engine: Make, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A well-formed file whose payload llama.cpp cannot load (another build's layout)."""
    start = prefix(LED)
    engine = make_engine()
    tokens = engine.tokenize_messages(start, add_generation_prompt=False)
    states = PromptStateCache(tmp_path / "states", max_bytes=64 * MB)
    states.store(engine.state_key(tokens), tokens, b"\x00" * 4096)
    with caplog.at_level(logging.WARNING):
        engine.prime(start, cancelled=never)
    assert "llama.cpp could not load it" in caplog.text
    assert engine.primed.source == "evaluated"
    answer(engine, ask(start))
    assert engine.stats.reused_tokens == engine.primed.tokens
    restored = make_engine()
    restored.prime(start, cancelled=never)
    assert restored.primed.source == "restored"


def test_the_state_directory_stays_under_its_bound(make_engine: Make, tmp_path: Path) -> None:
    first = make_engine()
    first.prime(prefix(LED), cancelled=never)
    one = state_files(tmp_path)[0].stat().st_size
    bound = int(2.5 * one)
    for tools in ((LED, SERVO), (SERVO,), (SERVO, LED)):
        engine = make_engine(max_bytes=bound)
        engine.prime(prefix(*tools), cancelled=never)
        assert engine.primed.cached
        size = sum(p.stat().st_size for p in (tmp_path / "states").iterdir())
        assert size <= bound
    names = {p.name for p in state_files(tmp_path)}
    newest = make_engine(max_bytes=bound)
    newest.prime(prefix(SERVO, LED), cancelled=never)
    assert newest.primed.source == "restored"  # the latest one is always kept
    assert len(names) == 2


def test_priming_twice_or_mid_conversation_changes_nothing(make_engine: Make) -> None:
    start = prefix(LED)
    engine = make_engine()
    engine.prime(start, cancelled=never)
    answer(engine, ask(start))
    held = engine.stats.prompt_tokens
    engine.prime(start, cancelled=never)  # what a restarted worker's priming does
    assert engine.primed.source == "held"
    answer(engine, ask(start, "And the grass?"))
    assert engine.stats.reused_tokens >= engine.primed.tokens
    assert held > engine.primed.tokens
