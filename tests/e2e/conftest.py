"""The whole product on the default local model: mosquitto, the simulator, the daemon.

One stack per test module, because loading Qwen2.5-Coder-1.5B takes seconds and each
turn on a small CPU takes tens of seconds: every piece is a real process, started the
way a user starts it (``mosquitto -c``, ``edgeagent sim``, ``edgeagent run``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon_process import DaemonProcess
from tests.e2e.stack import Stack, write_config
from tests.loopback import free_port, wait_for_port
from tests.mqtt_broker import MOSQUITTO, Broker

QWEN = Path("~/.cache/edgeagent/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").expanduser()
READY_TIMEOUT_S = 240.0
"""Model load plus the worker start on 2 shared cores, with room to spare."""


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    if MOSQUITTO is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    if not QWEN.is_file():
        pytest.skip(f"{QWEN} is not cached; run `edgeagent model fetch qwen-coder-1.5b`")
    # A short path: a Unix socket path must fit in 108 bytes.
    directory = Path(tempfile.mkdtemp(prefix="ea-e2e-", dir="/tmp"))
    broker = Broker(workdir=directory / "broker")
    sim_port = free_port()
    socket_path = directory / "edgeagent.sock"
    config = write_config(
        directory, socket_path=socket_path, mqtt_port=broker.port, sim_port=sim_port
    )
    sim_log = directory / "sim.log"
    sim: subprocess.Popen[bytes] | None = None
    daemon: DaemonProcess | None = None
    try:
        broker.start()
        with sim_log.open("wb") as out:
            sim = subprocess.Popen(
                [sys.executable, "-m", "edgeagent", "--config", str(config), "sim"],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            wait_for_port(sim_port, timeout=20, process=sim)
        except AssertionError as exc:
            raise AssertionError(f"`edgeagent sim`: {exc}\n{sim_log.read_text()}") from exc
        started = time.monotonic()
        daemon = DaemonProcess(config)
        daemon.wait_ready(socket_path, timeout=READY_TIMEOUT_S)
        print(f"\ndaemon ready on Qwen2.5-Coder-1.5B in {time.monotonic() - started:.1f} s")
        yield Stack(
            config=config,
            socket_path=socket_path,
            broker=broker,
            simulator_url=f"http://127.0.0.1:{sim_port}",
            daemon=daemon,
        )
    finally:
        if daemon is not None:
            daemon.stop()
        if sim is not None:
            sim.terminate()
            try:
                sim.wait(10)
            except subprocess.TimeoutExpired:
                sim.kill()
                sim.wait(5)
        broker.stop()
        shutil.rmtree(directory, ignore_errors=True)
