"""Malformed input over the wire: MQTT payloads, socket lines, socket connection abuse.

An MQTT input is answered when a reply with its Correlation Data arrives on the topic it
should (the v5 response topic when that one is allowed, else ``<base>/reply``) within
``timeout_s``; one on any other topic than those two is a breach (an allowed v5 request
is answered on ``<base>/reply`` too, which Home Assistant follows). A socket input is
answered when its terminal line (final, error, status, tools, reset, cancelled) arrives;
a connection the daemon ends per its limits is answered when it gets an error line or
is closed.
"""

from __future__ import annotations

import contextlib
import errno
import json
import selectors
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from hostile_inputs import GOOD_RESPONSE_TOPICS, Line, Payload
from hostile_report import Row
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

TERMINAL = frozenset({"final", "error", "status", "tools", "reset", "cancelled"})


# --- MQTT ---------------------------------------------------------------------------------


@dataclass
class _Pending:
    payload: Payload
    expected: str
    deadline: float
    refusable: bool


class MqttAsker:
    """A v5 client that publishes prompts and matches replies by Correlation Data."""

    def __init__(self, port: int, base: str, *, client_id: str = "hostile-asker") -> None:
        self.port, self.base = port, base
        self.ask, self.reply = f"{base}/ask", f"{base}/reply"
        self._own = {f"{base}/stream", f"{base}/event/tool", self.ask}
        self.arrived: dict[bytes, list[tuple[str, bytes]]] = {}
        self.lock = threading.Lock()
        self.subscribed = threading.Event()
        # A persistent session: replies published while the broker restarts are kept.
        self.client = self._client(client_id)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *_a: self.subscribed.clear()
        self.client.on_subscribe = lambda *_a: self.subscribed.set()
        self.client.on_message = self._on_message
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = 3600
        self.client.connect("127.0.0.1", port, clean_start=False, properties=props)
        self.client.loop_start()
        if not self.subscribed.wait(10):
            raise SystemExit("the hostile run's MQTT client could not subscribe")
        self._seq = 0

    @staticmethod
    def _client(client_id: str = "") -> mqtt.Client:
        return mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5
        )

    def _on_connect(self, client: mqtt.Client, *_args: Any) -> None:
        client.subscribe("#", qos=1)

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        corr = getattr(msg.properties, "CorrelationData", None)
        if corr is None or msg.topic in self._own:
            return
        with self.lock:
            self.arrived.setdefault(bytes(corr), []).append((msg.topic, bytes(msg.payload)))

    def send(self, payload: Payload) -> bytes:
        """Publish ``payload``; its Correlation Data (what its reply must carry)."""
        self._seq += 1
        corr = f"hostile-{self._seq}".encode()
        props = Properties(PacketTypes.PUBLISH)
        props.CorrelationData = corr
        if payload.response_topic is not None:
            props.ResponseTopic = payload.response_topic
        if payload.own_client:  # the broker drops whoever sends it: not our main client
            once = self._client()
            once.connect("127.0.0.1", self.port)
            once.loop_start()
            with contextlib.suppress(Exception):
                once.publish(self.ask, payload.data, qos=1, properties=props)
                time.sleep(0.3)
            once.loop_stop()
            with contextlib.suppress(Exception):
                once.disconnect()
        else:
            self.client.publish(self.ask, payload.data, qos=1, properties=props)
        return corr

    def take(self, corr: bytes) -> list[tuple[str, bytes]]:
        with self.lock:
            return self.arrived.pop(corr, [])

    def wait_reply(self, corr: bytes, timeout_s: float) -> list[tuple[str, bytes]]:
        """The messages carrying ``corr`` (empty if none came within ``timeout_s``)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            got = self.take(corr)
            if got:
                return got
            time.sleep(0.02)
        return []

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def expected_topic(payload: Payload, reply: str) -> str:
    topic = payload.response_topic
    return topic if topic and topic in GOOD_RESPONSE_TOPICS else reply


def run_mqtt_inputs(
    asker: MqttAsker,
    payloads: Iterable[Payload],
    row: Row,
    *,
    broker_limit: int,
    window: int = 32,
    timeout_s: float = 15.0,
) -> None:
    """Publish with at most ``window`` unanswered at a time; tally each into ``row``."""
    pending: dict[bytes, _Pending] = {}

    def settle(block: bool) -> None:
        while True:
            now = time.monotonic()
            for corr, item in list(pending.items()):
                got = asker.take(corr)
                if got:
                    del pending[corr]
                    topics = [t for t, _ in got]
                    wrong = [t for t in topics if t not in (item.expected, asker.reply)]
                    if wrong:
                        row.breach(f"reply for `{item.payload.kind}` published on {wrong[0]!r}")
                    row.record(item.payload.kind, item.expected in topics, example=_show(item))
                elif now > item.deadline:
                    del pending[corr]
                    row.record(
                        item.payload.kind, False, refused=item.refusable, example=_show(item)
                    )
            if not block or len(pending) < window:
                return
            time.sleep(0.005)

    for payload in payloads:
        settle(block=True)
        refusable = payload.own_client or len(payload.data) > broker_limit
        wait = 5.0 if refusable else timeout_s
        corr = asker.send(payload)
        expected = expected_topic(payload, asker.reply)
        pending[corr] = _Pending(payload, expected, time.monotonic() + wait, refusable)
    while pending:
        settle(block=False)
        time.sleep(0.02)


def _show(item: _Pending) -> str:
    data = item.payload.data
    text = repr(data[:100]) + (f"... ({len(data)} bytes)" if len(data) > 100 else "")
    topic = item.payload.response_topic
    return text + (f", response topic {topic!r}" if topic is not None else "")


# --- socket lines ---------------------------------------------------------------------------


class LineClient:
    """A Unix-socket client with its own line buffer (timeouts leave no half-read state)."""

    def __init__(self, path: Path, timeout_s: float = 15.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(timeout_s)
        self.sock.connect(str(path))
        self.buffer = b""
        self.closed = False

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read_line(self, deadline: float) -> bytes | None:
        """The next line, or ``None`` at EOF or past ``deadline``."""
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                return None
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def close(self) -> None:
        self.sock.close()


def answers_to(client: LineClient, want: int, timeout_s: float) -> int:
    """How many terminal lines arrive (up to ``want``) before EOF or the timeout."""
    got = 0
    deadline = time.monotonic() + timeout_s
    while got < want:
        line = client.read_line(deadline)
        if line is None:
            break
        try:
            kind = json.loads(line).get("type")
        except (ValueError, AttributeError):
            continue
        if kind in TERMINAL:
            got += 1
    return got


def run_socket_lines(
    path: Path, lines: Iterable[Line], row: Row, *, timeout_s: float = 15.0
) -> None:
    client: LineClient | None = None
    for line in lines:
        if client is None:
            client = LineClient(path)
        try:
            client.send(line.data)
            got = answers_to(client, line.answers, timeout_s)
        except OSError as exc:
            got = 0
            client.closed = True
            row.notes.append(f"`{line.kind}`: send failed ({exc})")
        row.record(line.kind, got == line.answers, example=repr(line.data[:100]))
        if got < line.answers or client.closed:
            client.close()
            client = None  # a fresh connection keeps the next input's answers apart
    if client is not None:
        client.close()


# --- socket connection abuse ---------------------------------------------------------------


def open_many(
    path: Path, count: int, first: bytes = b""
) -> tuple[list[socket.socket], Counter[str]]:
    """``count`` connections (each sends ``first``); why the kernel refused the others
    (EAGAIN: the listen backlog was full, the daemon had not accepted them yet)."""
    socks: list[socket.socket] = []
    refused: Counter[str] = Counter()
    for _ in range(count):
        sock = socket.socket(socket.AF_UNIX)
        sock.settimeout(2)
        try:
            _connect(sock, path, patience_s=2.0)
            if first:
                sock.sendall(first)
        except OSError as exc:
            sock.close()
            refused[errno.errorcode.get(exc.errno or 0, type(exc).__name__)] += 1
            continue
        socks.append(sock)
    return socks, refused


def _connect(sock: socket.socket, path: Path, *, patience_s: float) -> None:
    """connect(), retrying EAGAIN (a full listen backlog) as a client would, for a while:
    a burst of connects outruns any accept loop, which is the kernel's business."""
    deadline = time.monotonic() + patience_s
    while True:
        try:
            sock.connect(str(path))
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def ended_per_limits(socks: list[socket.socket], timeout_s: float) -> list[bool]:
    """For each connection: did the daemon send an error line or close it in time?"""
    selector = selectors.DefaultSelector()
    done = [False] * len(socks)
    for i, sock in enumerate(socks):
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ, i)
    deadline = time.monotonic() + timeout_s
    while not all(done) and (left := deadline - time.monotonic()) > 0:
        for key, _ in selector.select(min(left, 0.5)):
            i = key.data
            try:
                data = key.fileobj.recv(65536)  # type: ignore[union-attr]
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data or b'"error"' in data:
                done[i] = True
                selector.unregister(key.fileobj)
    selector.close()
    for sock in socks:
        sock.close()
    return done


def abuse_connections(path: Path, row: Row, *, max_connections: int, idle_s: float) -> None:
    """Idle and half-written connections past the cap, a flood of connects, a client
    that never reads: each must end with an error line or be closed by the daemon."""
    wait = idle_s + 10
    phases = [
        ("idle_over_cap", max_connections + 20, b""),
        ("half_written", 200, b'{"prompt": "half a li'),
        ("connect_flood", 300, b""),
    ]
    for kind, count, first in phases:
        socks, refused = open_many(path, count, first)
        for ok in ended_per_limits(socks, wait):
            row.record(kind, ok, example=f"{count} connections sending {first!r}")
        for _ in range(sum(refused.values())):
            row.record(kind, False, refused=True)
        if refused:
            why = ", ".join(f"{name} ×{n}" for name, n in refused.most_common())
            row.notes.append(f"`{kind}` ({count} connects): refused by the kernel: {why}")
    row.record("never_reads", _never_reads(path, wait), example="5000 tools requests, no reads")
    try:
        client = LineClient(path)
        try:
            client.send(b'{"op": "status"}\n')
            recovered = answers_to(client, 1, 10) == 1
        finally:
            client.close()
    except OSError:
        recovered = False
    row.record("status_after_abuse", recovered, example="status request after the abuse")


def _never_reads(path: Path, wait: float) -> bool:
    """Send requests and never read the answers: the daemon must cut the client off."""
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(str(path))
    sock.setblocking(False)
    request = b'{"op": "tools"}\n'
    with contextlib.suppress(BlockingIOError, OSError):
        for _ in range(5000):
            sock.send(request)
    time.sleep(wait)
    # Cut off, only what the kernel still buffers is left: EOF comes at once. Still
    # served, the rest of ~15 MB of answers and then the idle timeout take longer.
    deadline = time.monotonic() + 3
    try:
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            if not sock.recv(1 << 20):
                return True  # EOF: closed by the daemon
        return False
    except TimeoutError:
        return False
    except OSError as exc:
        return exc.errno in (errno.ECONNRESET, errno.EPIPE)
    finally:
        sock.close()
