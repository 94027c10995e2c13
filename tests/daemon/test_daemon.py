"""The composed daemon with MQTT enabled: a real mosquitto, online/offline, a round trip."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

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
        import socket
        import time

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
