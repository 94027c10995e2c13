"""A real mosquitto broker on a free port, and a real paho client for the test side.

Never the system broker on 1883: each test gets its own ``mosquitto -c <tmp conf>``
with persistence in the test's tmp dir, so ``broker.restart()`` keeps sessions and
queued QoS 1 messages exactly as a broker restart in the field would.
"""

from __future__ import annotations

import getpass
import json
import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.loopback import free_port, wait_for_port

MOSQUITTO = shutil.which("mosquitto") or (
    "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
)
needs_mosquitto = pytest.mark.skipif(
    MOSQUITTO is None, reason="mosquitto is not installed (apt-get install mosquitto)"
)
needs_mosquitto_passwd = pytest.mark.skipif(
    not shutil.which("mosquitto_passwd"), reason="needs mosquitto_passwd (for Broker.users)"
)


@dataclass
class Broker:
    """One mosquitto process (``with Broker(workdir=...) as broker:`` starts and stops it);
    ``restart()`` comes back on the same port and data dir."""

    workdir: Path
    port: int = field(default_factory=free_port)
    host: str = "127.0.0.1"
    allow_anonymous: bool = True
    users: dict[str, str] = field(default_factory=dict)
    """Names and passwords, written to a ``password_file`` by ``mosquitto_passwd``."""
    listener_options: str = ""
    """Lines for this listener (``certfile``, ``require_certificate``...)."""
    extra_conf: str = ""
    process: subprocess.Popen[bytes] | None = None

    @property
    def log(self) -> str:
        path = self.workdir / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def __enter__(self) -> Broker:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def start(self, timeout: float = 10.0) -> None:
        assert MOSQUITTO is not None
        self.workdir.mkdir(parents=True, exist_ok=True)
        conf = self.workdir / "mosquitto.conf"
        conf.write_text(
            f"listener {self.port} {self.host}\n"
            f"{self.listener_options}"
            f"allow_anonymous {str(self.allow_anonymous).lower()}\n"
            f"{self._password_file()}"
            f"{self.extra_conf}"
            # As root mosquitto would switch to the `mosquitto` user, which cannot write
            # the persistence file into the test's tmp dir; as anyone else it is a no-op.
            f"user {getpass.getuser()}\n"
            "persistence true\n"
            # Nagle on the broker adds ~40 ms (delayed ACK) to every small reply.
            "set_tcp_nodelay true\n"
            f"persistence_location {self.workdir}/\n"
            "persistence_file mosquitto.db\n"
            f"log_dest file {self.workdir}/mosquitto.log\n"
            "log_type error\nlog_type warning\nlog_type notice\n"
        )
        self.process = subprocess.Popen(
            [MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            wait_for_port(self.port, timeout=timeout, process=self.process, host=self.host)
        except AssertionError as exc:
            err = ""
            if self.process.poll() is not None and self.process.stderr is not None:
                err = self.process.stderr.read().decode()
            raise RuntimeError(f"mosquitto did not start: {exc}\n{err}{self.log}") from exc

    def _password_file(self) -> str:
        if not self.users:
            return ""
        path = self.workdir / "passwd"
        path.unlink(missing_ok=True)
        for name, password in self.users.items():
            create = [] if path.exists() else ["-c"]
            command = ["mosquitto_passwd", *create, "-b", str(path), name, password]
            subprocess.run(command, check=True, capture_output=True)
        return f"password_file {path}\n"

    def stop(self) -> None:
        """SIGTERM: mosquitto writes its persistence file, like a service restart."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        if self.process is not None and self.process.stderr is not None:
            self.process.stderr.close()
        self.process = None

    def restart(self, down_s: float = 0.0, during: Callable[[], None] | None = None) -> None:
        self.stop()
        if during is not None:
            during()
        time.sleep(down_s)
        self.start()


@dataclass(frozen=True)
class Received:
    topic: str
    payload: bytes
    retain: bool
    correlation: bytes | None

    def json(self) -> Any:
        return json.loads(self.payload)


class TestClient:
    """A real paho client that records every message; waits poll a condition."""

    __test__ = False  # not a pytest class

    def __init__(
        self,
        broker: Broker,
        *,
        protocol: str = "5",
        client_id: str | None = None,
        persistent: bool = False,
        configure: Callable[[mqtt.Client], None] | None = None,
    ) -> None:
        self.v5 = protocol == "5"
        self.messages: list[Received] = []
        self._cond = threading.Condition()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id or f"test-{uuid.uuid4().hex[:8]}",
            protocol=mqtt.MQTTv5 if self.v5 else mqtt.MQTTv311,
            clean_session=None if self.v5 else not persistent,
        )
        self.client.reconnect_delay_set(0.1, 0.5)  # type: ignore[arg-type]
        self.client.on_socket_open = lambda _c, _u, sock: sock.setsockopt(
            socket.IPPROTO_TCP, socket.TCP_NODELAY, 1
        )
        if configure is not None:
            configure(self.client)  # credentials, TLS
        self.client.on_message = self._on_message
        self.client.on_connect = self._on_connect
        self._subscriptions: list[str] = []
        self._suback = threading.Event()
        self._connected = threading.Event()
        self.client.on_subscribe = lambda *a: self._suback.set()
        properties = None
        if self.v5 and persistent:
            properties = Properties(PacketTypes.CONNECT)
            properties.SessionExpiryInterval = 600
        self.client.connect(
            broker.host,
            broker.port,
            keepalive=10,
            clean_start=not persistent if self.v5 else mqtt.MQTT_CLEAN_START_FIRST_ONLY,
            properties=properties,
        )
        self.client.loop_start()
        assert self._connected.wait(10), f"test client could not connect to {broker.port}"

    def _on_connect(self, client: mqtt.Client, *_: Any) -> None:
        # Only reconnects re-subscribe here; the first connect is awaited in __init__,
        # so a subscription is never made twice (that would deliver retained ones twice).
        for topic in self._subscriptions:
            client.subscribe(topic, qos=1)
        self._connected.set()

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        props = getattr(msg, "properties", None)
        corr = getattr(props, "CorrelationData", None)
        with self._cond:
            self.messages.append(Received(msg.topic, bytes(msg.payload), bool(msg.retain), corr))
            self._cond.notify_all()

    def subscribe(self, topic: str) -> None:
        self._subscriptions.append(topic)
        self._suback.clear()
        self.client.subscribe(topic, qos=1)
        assert self._suback.wait(5), f"no SUBACK for {topic}"

    def publish(
        self,
        topic: str,
        payload: str | bytes | dict[str, Any],
        *,
        response_topic: str | None = None,
        correlation: bytes | None = None,
        retain: bool = False,
    ) -> mqtt.MQTTMessageInfo:
        if isinstance(payload, dict):
            payload = json.dumps(payload)
        properties = None
        if response_topic or correlation:
            properties = Properties(PacketTypes.PUBLISH)
            if response_topic:
                properties.ResponseTopic = response_topic
            if correlation:
                properties.CorrelationData = correlation
        return self.client.publish(topic, payload, qos=1, retain=retain, properties=properties)

    def on(self, topic: str) -> list[Received]:
        with self._cond:
            return [m for m in self.messages if m.topic == topic]

    def wait_for(
        self,
        topic: str,
        predicate: Callable[[Received], bool] = lambda m: True,
        *,
        count: int = 1,
        timeout: float = 10.0,
    ) -> list[Received]:
        """Block (call through ``asyncio.to_thread``) until ``count`` matching messages."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [m for m in self.messages if m.topic == topic and predicate(m)]
                if len(found) >= count:
                    return found
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    seen = [(m.topic, m.payload[:80]) for m in self.messages[-10:]]
                    raise AssertionError(
                        f"waited {timeout} s for {count} message(s) on {topic}, got "
                        f"{len(found)}; last messages: {seen}"
                    )
                self._cond.wait(remaining)

    def wait_until(
        self, condition: Callable[[list[Received]], bool], *, timeout: float = 10.0
    ) -> list[Received]:
        """Block until ``condition(all messages so far)`` holds; return the messages."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not condition(self.messages):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    seen = [(m.topic, m.payload[:80]) for m in self.messages[-10:]]
                    raise AssertionError(f"condition not met in {timeout} s; last: {seen}")
                self._cond.wait(remaining)
            return list(self.messages)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def retained_messages(broker: Broker, *filters: str) -> dict[str, Received]:
    """Every retained message under ``filters``, as a subscriber arriving now gets them."""
    late = TestClient(broker)
    marker = f"test/retained-end/{uuid.uuid4().hex}"
    try:
        late.publish(marker, "end", retain=True).wait_for_publish(5)
        for topic in (*filters, marker):
            late.subscribe(topic)
        late.wait_for(marker)  # the broker sends retained messages in subscription order
        late.publish(marker, "", retain=True).wait_for_publish(5)
        return {m.topic: m for m in late.messages if m.retain and m.topic != marker}
    finally:
        late.close()


def make_tls_material(directory: Path) -> dict[str, Path]:
    """A throwaway CA, a server cert for 127.0.0.1 and a client cert (EC keys: fast)."""
    directory.mkdir(parents=True, exist_ok=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True)

    run(
        "req",
        "-x509",
        *ec,
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "1",
        "-subj",
        "/CN=edgeagent-test-ca",
    )
    (directory / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    for name, cn in (("server", "127.0.0.1"), ("client", "edgeagent-client")):
        run("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={cn}")
        run(
            "x509",
            "-req",
            "-in",
            f"{name}.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            f"{name}.crt",
            "-days",
            "1",
            "-extfile",
            "san.ext",
        )
    return {p.stem + "_" + p.suffix[1:]: p for p in directory.iterdir()}
