"""The Hailo-10H engine against the fake ``hailo_platform`` (tests/fakes), which enforces
HailoRT's rules over the real SmolLM2 model: what reaches the "device" is asserted from
the fake's log and its token context."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from edgeagent.config import Config
from edgeagent.errors import (
    BackendUnavailableError,
    GenerationTimeoutError,
    LLMError,
    ModelNotFoundError,
)
from edgeagent.llm.base import Engine, GenerateRequest, Message
from edgeagent.llm.hailo import PRIMING_TURN, HailoEngine
from edgeagent.llm.select import create_engine, select_engine_spec

SYSTEM: Message = {"role": "system", "content": "You are a terse assistant. Answer briefly."}


@pytest.fixture
def fake_hailo(fake_library: Callable[[str], ModuleType]) -> ModuleType:
    """The fake hailo_platform importable, with a fresh device; gone again afterwards."""
    hailo_platform = fake_library("hailo_platform")
    hailo_platform.DEVICE.reset()
    return hailo_platform


@pytest.fixture
def hef(tmp_path: Path, smollm2_path: Path) -> Path:
    path = tmp_path / "qwen2.5-coder-1.5b-instruct.hef"
    path.write_text(json.dumps({"gguf": str(smollm2_path)}), encoding="utf-8")
    return path


@pytest.fixture
def make_engine(
    fake_hailo: ModuleType, hef: Path, tmp_path: Path
) -> Iterator[Callable[..., HailoEngine]]:
    engines: list[HailoEngine] = []

    def make(**overrides: Any) -> HailoEngine:
        options: dict[str, Any] = {
            "hef": hef,
            "context_cache_dir": tmp_path / "ctx",
            "read_timeout_ms": 10000,
            "call_markers": None,
        }
        options.update(overrides)
        engine = HailoEngine(**options)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


def run(engine: HailoEngine, messages: list[Message], **kw: Any) -> str:
    request = GenerateRequest(messages=messages, max_tokens=kw.pop("max_tokens", 16), **kw)
    return "".join(engine.generate(request, cancelled=lambda: False))


def device_text(engine: HailoEngine) -> str:
    """What the fake device's context holds, as text."""
    llm = engine._llm
    return bytes(llm._llama.detokenize(llm._context, special=True)).decode("utf-8", "replace")


def prompts(device: Any) -> list[str]:
    return [str(p) for p in device.events("prompt")]


pytestmark = pytest.mark.model


def test_primes_once_then_sends_only_new_messages(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    engine = make_engine()
    assert isinstance(engine, Engine)
    first = [SYSTEM, {"role": "user", "content": "What is the capital of France?"}]
    reply = run(engine, first)
    assert reply and "<|im_end|>" not in reply
    sent = prompts(fake_hailo.DEVICE)
    assert len(sent) == 2
    assert SYSTEM["content"] in sent[0] and PRIMING_TURN in sent[0]
    assert "capital of France" in sent[1] and SYSTEM["content"] not in sent[1]

    second = [
        *first,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": "And of Spain?"},
    ]
    used_before = engine.status().context_used
    run(engine, second)
    sent = prompts(fake_hailo.DEVICE)
    assert len(sent) == 3
    assert "And of Spain?" in sent[2] and "France" not in sent[2]
    assert fake_hailo.DEVICE.events("clear_context") == [None]  # never reset mid-conversation
    assert engine.status().context_used > used_before
    assert engine.primings == 1


def test_restart_reuses_cached_primed_context(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any, tmp_path: Path
) -> None:
    engine = make_engine()
    run(engine, [SYSTEM, {"role": "user", "content": "Hello"}])
    blob_file = engine.cache_path(SYSTEM["content"])
    assert blob_file.is_file() and blob_file.parent == tmp_path / "ctx"
    engine.close()

    fake_hailo.DEVICE.log.clear()
    again = make_engine()
    reply = run(again, [SYSTEM, {"role": "user", "content": "Hello"}])
    assert reply
    assert again.primings == 0 and again.cache_hits == 1
    assert not any(PRIMING_TURN in p for p in prompts(fake_hailo.DEVICE))
    assert fake_hailo.DEVICE.events("load_context")
    # First-prompt rule: after clear+load the template would treat the next structured
    # prompt as a fresh context's first and add its default system prompt. It must not.
    held = device_text(again)
    assert held.count("<|im_start|>system") == 1
    assert "SmolLM" not in held


def test_new_conversation_restores_blob_instead_of_priming(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    engine = make_engine()
    run(engine, [SYSTEM, {"role": "user", "content": "Name a colour."}])
    primed = fake_hailo.DEVICE.events("load_context")
    assert primed == []  # the first conversation runs on the freshly primed context
    run(engine, [SYSTEM, {"role": "user", "content": "Name an animal."}])
    (restored,) = fake_hailo.DEVICE.events("load_context")
    assert engine.primings == 1
    held = device_text(engine)
    assert "Name an animal." in held and "Name a colour." not in held
    assert held.count("<|im_start|>system") == 1
    assert restored < engine.status().context_used


def test_a_different_system_prompt_primes_on_a_fresh_context(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    engine = make_engine()
    run(engine, [SYSTEM, {"role": "user", "content": "Hi"}])
    other: Message = {"role": "system", "content": "You are a pirate."}
    run(
        engine, [other, {"role": "user", "content": "Hi"}]
    )  # the fake raises on a late system message
    assert engine.primings == 2
    held = device_text(engine)
    assert "pirate" in held and SYSTEM["content"] not in held


def test_near_full_context_is_restored_and_replayed(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    engine = make_engine(reprime_ratio=0.02)  # ~41 tokens: the first turn fills it
    first = [SYSTEM, {"role": "user", "content": "Count to three."}]
    reply = run(engine, first)
    assert engine.status().context_used >= 0.02 * 2048
    run(
        engine,
        [*first, {"role": "assistant", "content": reply}, {"role": "user", "content": "Again."}],
    )
    assert len(fake_hailo.DEVICE.events("load_context")) == 1
    assert engine.primings == 1
    replay = prompts(fake_hailo.DEVICE)[-1]
    assert "Count to three." in replay and "Again." in replay and SYSTEM["content"] not in replay


def test_context_accounting(make_engine: Callable[..., HailoEngine]) -> None:
    engine = make_engine()
    status = engine.status()
    assert status.backend == "hailo" and status.context_window == 2048
    assert status.context_used == 0
    short = engine.count_tokens([{"role": "user", "content": "hi"}])
    long = engine.count_tokens([SYSTEM, {"role": "user", "content": "hi " * 50}])
    assert 0 < short < long
    run(engine, [SYSTEM, {"role": "user", "content": "hi"}])
    used = engine.status().context_used
    assert used is not None and used > engine.count_tokens([SYSTEM])
    assert used == engine._llm.get_context_usage_size()


def test_one_generation_at_a_time(make_engine: Callable[..., HailoEngine], fake_hailo: Any) -> None:
    engine = make_engine()
    messages = [SYSTEM, {"role": "user", "content": "Tell me a story about a cat."}]
    first = engine.generate(
        GenerateRequest(messages=messages, max_tokens=24), cancelled=lambda: False
    )
    assert next(first)
    second = engine.generate(GenerateRequest(messages=messages), cancelled=lambda: False)
    with pytest.raises(LLMError, match="one generation at a time"):
        next(second)
    rest = "".join(first)  # the first one is unharmed
    assert isinstance(rest, str)
    # The fake enforces the rule itself, as HailoRT does.
    llm = engine._llm
    with (
        llm.generate(prompt="Hello", max_generated_tokens=4),
        pytest.raises(fake_hailo.HailoRTException, match="no other generation"),
    ):
        llm.generate(prompt="Again", max_generated_tokens=4)


def test_fake_refuses_system_message_on_used_context(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    engine = make_engine()
    run(engine, [SYSTEM, {"role": "user", "content": "Hi"}])
    with pytest.raises(fake_hailo.HailoRTException, match="HAILO_INVALID_OPERATION"):
        engine._llm.generate(prompt=[SYSTEM, {"role": "user", "content": "x"}])


def test_cancel_aborts_and_next_turn_recovers(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    engine = make_engine()
    pieces: list[str] = []
    request = GenerateRequest(
        messages=[SYSTEM, {"role": "user", "content": "Write a long poem about the sea."}],
        max_tokens=64,
    )
    for piece in engine.generate(request, cancelled=lambda: len(pieces) >= 3):
        pieces.append(piece)
    assert len(pieces) == 3
    status, _ = fake_hailo.DEVICE.events("completion_end")[-1]
    assert status == "ABORTED"
    assert run(engine, [SYSTEM, {"role": "user", "content": "Hi"}])
    assert fake_hailo.DEVICE.events("load_context")  # the aborted context was not reused


def test_read_timeout_is_a_generation_timeout(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    engine = make_engine(read_timeout_ms=100)
    run(engine, [SYSTEM, {"role": "user", "content": "Hi"}])  # primed while the device is fast
    fake_hailo.DEVICE.read_delay_ms = 300
    with pytest.raises(GenerationTimeoutError, match="100 ms"):
        run(engine, [SYSTEM, {"role": "user", "content": "Hello again"}])
    fake_hailo.DEVICE.read_delay_ms = 0
    assert run(engine, [SYSTEM, {"role": "user", "content": "Hello again"}])


def test_kv_cache_in_use_names_hailo_ollama(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    holder = make_engine()
    with pytest.raises(
        BackendUnavailableError, match="KV cache is in use by another model"
    ) as info:
        make_engine()
    assert "sudo systemctl stop hailo-ollama" in str(info.value)
    assert fake_hailo.DEVICE.vdevices == 1  # the failed engine gave its VDevice back
    holder.close()
    assert run(make_engine(), [SYSTEM, {"role": "user", "content": "Hi"}])


def test_close_releases_llm_then_vdevice(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    engine = make_engine(group_id="SHARED")
    assert ("vdevice", "SHARED") in fake_hailo.DEVICE.log
    engine.close()
    engine.close()
    names = [name for name, _ in fake_hailo.DEVICE.log]
    assert names[-2:] == ["llm_release", "vdevice_release"]
    assert fake_hailo.DEVICE.kv_cache_owner is None and fake_hailo.DEVICE.vdevices == 0
    assert engine.status().context_used is None
    with pytest.raises(LLMError, match="closed"):
        run(engine, [SYSTEM, {"role": "user", "content": "Hi"}])


def test_call_markers_are_plain_text_for_the_model(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    engine = make_engine(call_markers=("<tool-call>", "</tool-call>"))
    system: Message = {
        "role": "system",
        "content": 'Call tools as <tool_call>{"name": ...}</tool_call>.',
    }
    run(engine, [system, {"role": "user", "content": "Hi"}])
    primed = prompts(fake_hailo.DEVICE)[0]
    assert "<tool-call>{" in primed and "<tool_call>" not in primed


def test_missing_hef_names_path_and_where_to_get_one(
    make_engine: Callable[..., HailoEngine], tmp_path: Path
) -> None:
    missing = tmp_path / "nope.hef"
    with pytest.raises(ModelNotFoundError, match=r"nope\.hef does not exist") as info:
        make_engine(hef=missing)
    assert "hailo_model_zoo_genai" in str(info.value)
    with pytest.raises(ModelNotFoundError, match="No HEF file is configured"):
        make_engine(hef=None)


def test_the_config_builds_the_engine_the_worker_runs(
    make_engine: Callable[..., HailoEngine], hef: Path, tmp_path: Path
) -> None:
    """[llm.hailo] reaches the engine through the one path the daemon takes."""
    config = Config.model_validate(
        {
            "llm": {
                "backend": "hailo",
                "hailo": {
                    "hef": str(hef),
                    "context_cache_dir": str(tmp_path / "c"),
                    "group_id": "G",
                },
            }
        }
    )
    engine = create_engine(select_engine_spec(config))
    try:
        assert isinstance(engine, HailoEngine)
        extra = engine.status().extra
        assert extra["group_id"] == "G" and extra["call_markers"] == ["<tool-call>", "</tool-call>"]
    finally:
        engine.close()


def test_missing_hailo_platform_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "hailo_platform", None)  # type: ignore[arg-type]
    with pytest.raises(BackendUnavailableError) as info:
        HailoEngine(hef=tmp_path / "x.hef", context_cache_dir=tmp_path)
    message = str(info.value)
    assert "hailo-h10-all" in message and "--system-site-packages" in message


def test_a_side_question_leaves_the_conversation_context_as_it_was(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    engine = make_engine()
    first = [SYSTEM, {"role": "user", "content": "What is the capital of France?"}]
    reply = run(engine, first)
    held = device_text(engine)
    side = run(engine, [{"role": "user", "content": "Answer yes or no: is 2 > 1?"}], aside=True)
    assert side  # it answered, on a fresh context without the conversation
    assert "capital of France" not in str(prompts(fake_hailo.DEVICE)[-1])
    assert device_text(engine) == held  # the conversation's context is back
    second = [
        *first,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": "And Spain?"},
    ]
    run(engine, second)
    assert "And Spain?" in prompts(fake_hailo.DEVICE)[-1]
    assert "France" not in prompts(fake_hailo.DEVICE)[-1]  # only the new turn was sent
    assert engine.primings == 1


def test_prime_restores_the_primed_context_before_the_first_turn(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    first = make_engine()
    first.prime([SYSTEM], cancelled=lambda: False)  # the first start: primed and cached
    assert first.primings == 1
    first.close()

    fake_hailo.DEVICE.log.clear()
    engine = make_engine()
    engine.prime([SYSTEM], cancelled=lambda: False)  # at start, before any turn
    assert (engine.primings, engine.cache_hits) == (0, 1)
    loads = len(fake_hailo.DEVICE.events("load_context"))
    assert run(engine, [SYSTEM, {"role": "user", "content": "Hello"}])
    # The first turn sends only its own message: nothing restored or primed again.
    assert len(fake_hailo.DEVICE.events("load_context")) == loads
    sent = prompts(fake_hailo.DEVICE)
    assert len(sent) == 1 and "Hello" in sent[0] and SYSTEM["content"] not in sent[0]


def test_a_read_ahead_sends_nothing_to_the_device(
    make_engine: Callable[..., HailoEngine], fake_hailo: Any
) -> None:
    engine = make_engine()
    first = [SYSTEM, {"role": "user", "content": "What is the capital of France?"}]
    reply = run(engine, first)
    sent = prompts(fake_hailo.DEVICE)
    history = [*first, {"role": "assistant", "content": reply}]
    assert run(engine, history, ahead=True) == ""
    assert prompts(fake_hailo.DEVICE) == sent  # untried on the Hailo: nothing happens
    run(engine, [*history, {"role": "user", "content": "And of Spain?"}])
    assert "And of Spain?" in prompts(fake_hailo.DEVICE)[-1]
