"""A restarted daemon (and a restarted model worker) on the small real model restores the
primed start from its state file: the first turn after it evaluates only the new tokens."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from edgeagent.llm.base import GenerateRequest, Message
from edgeagent.llm.select import EngineSpec
from edgeagent.llm.worker import WorkerLLM
from tests.daemon_process import DaemonProcess, over_socket, status_over_socket, write_daemon_config

pytestmark = pytest.mark.model


@pytest.fixture
def daemons() -> Iterator[list[DaemonProcess]]:
    started: list[DaemonProcess] = []
    yield started
    for daemon in started:
        daemon.stop()


def engine_after_a_turn(sock: Path, daemon: DaemonProcess) -> dict[str, Any]:
    """The model's status once it describes a turn after the priming (refreshed every 5 s
    while the model is idle)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        engine = status_over_socket(sock)["engine"]
        assert isinstance(engine, dict)
        if engine.get("last_prompt_tokens", 0) > engine.get("primed_tokens", 0) > 0:
            return engine
        time.sleep(0.5)
    raise AssertionError(f"no fresh model status within 30 s:\n{daemon.output()}")


def run_once(
    short_dir: Path, config: Path, env: dict[str, str], daemons: list[DaemonProcess]
) -> dict[str, Any]:
    sock = short_dir / "ea.sock"
    daemon = DaemonProcess(config, env=env)
    daemons.append(daemon)
    daemon.wait_ready(sock, timeout=60)
    lines = over_socket(sock, {"prompt": "hello there", "session": "s"}, timeout=60)
    assert lines[-1]["type"] == "final", lines[-1]
    engine = engine_after_a_turn(sock, daemon)
    assert daemon.stop() == 0, daemon.output()
    return engine


def test_a_restarted_daemon_restores_the_primed_start(
    short_dir: Path, smollm2_path: Path, daemons: list[DaemonProcess]
) -> None:
    pytest.importorskip("llama_cpp")
    states = short_dir / "states"
    config = write_daemon_config(
        short_dir,
        socket_path=short_dir / "ea.sock",
        extra="[agent]\ncheck_target = false\n",
    )
    env = {
        "EDGEAGENT_LLM__BACKEND": "llamacpp",
        "EDGEAGENT_LLM__MODEL": str(smollm2_path),
        "EDGEAGENT_LLM__LLAMACPP__N_CTX": "2048",
        "EDGEAGENT_LLM__LLAMACPP__N_THREADS": "1",
        "EDGEAGENT_LLM__LLAMACPP__STATE_CACHE_DIR": str(states),
        "EDGEAGENT_LLM__MAX_TOKENS": "16",
        "EDGEAGENT_DAEMON__REQUEST_TIMEOUT_S": "60",
    }
    first = run_once(short_dir, config, env, daemons)
    assert first["prime"] == "evaluated"
    assert first["prime_cached"] is True
    assert len(list(states.glob("*.state"))) == 1

    again = run_once(short_dir, config, env, daemons)
    assert again["prime"] == "restored"
    assert again["primed_tokens"] == first["primed_tokens"] > 100
    # The first turn after the restart evaluates only what follows the primed start.
    assert again["last_reused_tokens"] >= again["primed_tokens"]
    new = again["last_prompt_tokens"] - again["primed_tokens"]
    assert again["last_evaluated_tokens"] <= new
    assert len(list(states.glob("*.state"))) == 1


def test_a_worker_restarted_after_a_crash_primes_again(tmp_path: Path, smollm2_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    spec = EngineSpec(
        "llamacpp",
        {
            "model_path": str(smollm2_path),
            "n_ctx": 1024,
            "n_threads": 1,
            "state_cache_dir": str(tmp_path / "states"),
            "state_cache_max_mb": 64,
        },
    )
    start: list[Message] = [{"role": "system", "content": "You answer briefly. " * 20}]
    request = GenerateRequest(
        messages=[*start, {"role": "user", "content": "Hello?"}], max_tokens=4
    )

    async def main() -> tuple[dict[str, Any], dict[str, Any], int]:
        llm = WorkerLLM(spec, start_timeout_s=60, generation_timeout_s=60)
        try:
            await llm.start()
            await llm.prime(start)
            before = (await llm.status()).extra
            assert llm.pid is not None
            os.kill(llm.pid, signal.SIGKILL)  # the OOM killer, say
            while llm.alive:
                await asyncio.sleep(0.05)
            _ = [piece async for piece in llm.stream(request)]
            return before, (await llm.status()).extra, llm.restarts
        finally:
            await llm.aclose()

    before, after, restarts = asyncio.run(main())
    assert before["prime"] == "evaluated"
    assert restarts == 1
    assert after["prime"] == "restored"
    assert after["last_reused_tokens"] == after["primed_tokens"] == before["primed_tokens"]
