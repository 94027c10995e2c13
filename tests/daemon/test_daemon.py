"""The composed daemon with MQTT enabled: a real mosquitto, online/offline, a round trip."""

from __future__ import annotations

import json
import queue
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.daemon.conftest import DaemonProcess, free_port, write_daemon_config
from tests.daemon.test_systemd import status_over_socket

pytestmark = pytest.mark.skipif(shutil.which("mosquitto") is None, reason="needs mosquitto")


@pytest.fixture
def broker(short_dir: Path) -> Iterator[int]:
    port = free_port()
    conf = short_dir / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    proc = subprocess.Popen(
        ["mosquitto", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


class Watcher:
    """A real MQTT v5 client that records every message on the topics it follows."""

    def __init__(self, port: int, *topics: str) -> None:
        self.messages: queue.Queue[tuple[str, str, bytes | None]] = queue.Queue()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        for topic in topics:
            self.client.subscribe(topic, qos=1)
        self.client.loop_start()

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        correlation = getattr(msg.properties, "CorrelationData", None)
        self.messages.put((msg.topic, msg.payload.decode(), correlation))

    def expect(self, topic: str, predicate: Callable[[str], bool], timeout: float = 10) -> str:
        seen = []
        while True:
            got_topic, payload, _ = self.messages.get(timeout=timeout)
            seen.append((got_topic, payload))
            if got_topic == topic and predicate(payload):
                return payload

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_mqtt_round_trip_status_and_offline_on_sigterm(
    short_dir: Path, broker: int, daemon_factory: Callable[..., DaemonProcess]
) -> None:
    sock_path = short_dir / "ea.sock"
    config = write_daemon_config(short_dir, socket_path=sock_path, mqtt_port=broker)
    watcher = Watcher(broker, "edgeagent/bench/status", "test/reply")
    try:
        daemon = daemon_factory(config)
        daemon.wait_ready(sock_path)
        watcher.expect("edgeagent/bench/status", lambda p: p == "online")
        status = status_over_socket(sock_path)
        assert status["mqtt"]["connected"] is True  # type: ignore[index]

        props = Properties(PacketTypes.PUBLISH)
        props.ResponseTopic = "test/reply"
        props.CorrelationData = b"corr-1"
        watcher.client.publish(
            "edgeagent/bench/ask",
            json.dumps({"prompt": "hello", "id": "m1"}),
            qos=1,
            properties=props,
        )
        reply = json.loads(watcher.expect("test/reply", lambda p: True))
        assert reply["text"] == "Hello from the scripted model."
        assert reply["id"] == "m1" and not reply.get("error")

        assert daemon.stop() == 0, daemon.output()
        watcher.expect("edgeagent/bench/status", lambda p: p == "offline")
        assert not sock_path.exists()
    finally:
        watcher.close()


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
