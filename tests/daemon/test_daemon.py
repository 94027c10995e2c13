"""The composed daemon with MQTT enabled: a real mosquitto, online/offline, a round trip."""

from __future__ import annotations

import json
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.daemon_process import DaemonProcess, status_over_socket, write_daemon_config
from tests.mqtt_broker import Broker, TestClient


def test_mqtt_round_trip_status_and_offline_on_sigterm(
    short_dir: Path,
    broker: Broker,
    clients: Callable[..., TestClient],
    daemon_factory: Callable[..., DaemonProcess],
) -> None:
    sock_path = short_dir / "ea.sock"
    config = write_daemon_config(short_dir, socket_path=sock_path, mqtt_port=broker.port)
    watcher = clients()
    watcher.subscribe("edgeagent/bench/status")
    watcher.subscribe("test/reply")
    daemon = daemon_factory(config)
    daemon.wait_ready(sock_path)
    watcher.wait_for("edgeagent/bench/status", lambda m: m.payload == b"online")
    status = status_over_socket(sock_path)
    # One status, composed by the daemon: the MQTT front end's own part, the
    # scheduler's queue, the model worker.
    mqtt_status = status["mqtt"]
    assert isinstance(mqtt_status, dict)
    assert mqtt_status["connected"] is True and mqtt_status["state"] == "connected"
    assert mqtt_status["broker"] == f"127.0.0.1:{broker.port}"
    assert status["queue_depth"] == 0 and status["backend"] == "scripted"
    assert isinstance(status["worker_pid"], int) and status["worker_restarts"] == 0

    watcher.publish(
        "edgeagent/bench/ask",
        {"prompt": "hello", "id": "m1"},
        response_topic="test/reply",
        correlation=b"corr-1",
    )
    (received,) = watcher.wait_for("test/reply")
    reply = received.json()
    assert reply["text"] == "Hello from the scripted model."
    assert reply["id"] == "m1" and not reply.get("error")

    assert daemon.stop() == 0, daemon.output()
    watcher.wait_for("edgeagent/bench/status", lambda m: m.payload == b"offline")
    assert not sock_path.exists()


SLOW_SCRIPT = {
    "rules": [{"match": "(?i)^count", "reply": "one two three four five six seven eight"}],
    "default": "ok",
    "chunk_size": 4,
    "chunk_delay_s": 0.1,
}


def _start_slow_turn(sock_path: Path) -> tuple[socket.socket, Any]:
    client = socket.socket(socket.AF_UNIX)
    client.settimeout(10)
    client.connect(str(sock_path))
    client.sendall(b'{"id": "g", "prompt": "count slowly"}\n')
    lines = client.makefile("rb")
    assert json.loads(lines.readline())["type"] == "text"  # the turn is running
    return client, lines


def _rest(lines: Any) -> list[dict[str, Any]]:
    events = []
    for raw in lines:
        events.append(json.loads(raw))
        if events[-1]["type"] in ("final", "error"):
            break
    return events


def test_sigterm_lets_the_request_in_flight_finish_within_the_grace_period(
    short_dir: Path, daemon_factory: Callable[..., DaemonProcess]
) -> None:
    sock_path = short_dir / "ea.sock"
    config = write_daemon_config(short_dir, socket_path=sock_path, script=SLOW_SCRIPT)
    daemon = daemon_factory(config)
    daemon.wait_ready(sock_path)
    client, lines = _start_slow_turn(sock_path)
    daemon.proc.send_signal(signal.SIGTERM)
    events = _rest(lines)
    client.close()
    assert events[-1]["type"] == "final", events
    assert events[-1]["text"] == "one two three four five six seven eight"
    assert daemon.proc.wait(15) == 0
    assert not sock_path.exists()


def test_sigterm_cancels_a_request_that_outlives_the_grace_period(
    short_dir: Path, daemon_factory: Callable[..., DaemonProcess]
) -> None:
    sock_path = short_dir / "ea.sock"
    config = write_daemon_config(short_dir, socket_path=sock_path, script=SLOW_SCRIPT)
    text = config.read_text().replace("shutdown_grace_s = 2", "shutdown_grace_s = 0.2")
    config.write_text(text)
    daemon = daemon_factory(config)
    daemon.wait_ready(sock_path)
    client, lines = _start_slow_turn(sock_path)
    started = time.monotonic()
    daemon.proc.send_signal(signal.SIGTERM)
    events = _rest(lines)
    client.close()
    assert events[-1]["type"] == "error", events
    assert "shutting down" in events[-1]["message"]
    assert "did not finish within 0.2 s" in events[-1]["message"]
    assert daemon.proc.wait(15) == 0
    assert time.monotonic() - started < 5
