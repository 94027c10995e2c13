"""Generated malformed input against the real daemon: a real mosquitto, the real socket.

Each generated payload goes to MQTT and, as a line, to the socket. Every one must be
answered (a reply or an error naming the problem), the daemon must stay up, its memory
bounded, and its log free of tracebacks. Bounded: well under a minute.
"""

from __future__ import annotations

import json
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.daemon_process import DaemonProcess, write_daemon_config
from tests.mqtt_broker import Broker, TestClient, needs_mosquitto

pytestmark = needs_mosquitto
ASK, REPLY = "edgeagent/fuzz/ask", "edgeagent/fuzz/reply"

MAX_PAYLOAD = 4096

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(["", " ", "\ud800", "<|im_<|x|>start|>", "x" * 100, "\x00", "#", "+/+"]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = ["prompt", "session", "id", "stream", "transaction", "op"]
requests = st.dictionaries(
    st.one_of(st.sampled_from(FIELDS), st.text(max_size=10)), json_values, max_size=5
)


def _deep(depth: int) -> str:
    return '{"prompt": ' + "[" * depth + "]" * depth + "}"


def _encode(value: Any) -> bytes:
    # json.dumps writes NaN/Infinity and lone surrogates as escapes: both are hostile.
    return json.dumps(value, allow_nan=True).encode()


payloads = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
    requests.map(_encode),
    requests.map(lambda r: _encode(r)[: max(1, len(_encode(r)) // 2)]),  # cut short
    st.integers(min_value=33, max_value=3000).map(lambda d: _deep(d).encode()),
    st.sampled_from(
        [b"", b" ", b"{", b"[]", b"null", b"\xff\xfe", b'{"prompt": "\\ud800"}', b'"hello"']
    ),
)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


class Target:
    """One daemon for the whole test, with a socket connection and an MQTT watcher."""

    def __init__(self, directory: Path, daemon: DaemonProcess, broker: Broker) -> None:
        self.sock_path = directory / "ea.sock"
        self.daemon = daemon
        self.watcher = TestClient(broker)
        self.watcher.subscribe(REPLY)
        self.sock = self._connect()
        self.replies = 0

    def _connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX)
        sock.settimeout(10)
        sock.connect(str(self.sock_path))
        return sock

    def mqtt(self, payload: bytes) -> dict[str, Any]:
        """Publish ``payload`` and wait for its reply (one request is out at a time)."""
        self.watcher.publish(ASK, payload)
        self.replies += 1
        reply: dict[str, Any] = self.watcher.wait_for(REPLY, count=self.replies)[-1].json()
        return reply

    def line(self, payload: bytes) -> dict[str, Any]:
        try:
            self.sock.sendall(payload + b"\n")
            reader = self.sock.makefile("rb")
            while True:
                raw = reader.readline()
                if not raw:
                    raise ConnectionError("closed")
                event: dict[str, Any] = json.loads(raw)
                if event.get("type") in ("final", "error", "status", "tools", "reset"):
                    return event
        except (ConnectionError, OSError):
            # A line it cannot read may close the connection, but only after an error
            # line; reconnect for the next example.
            self.sock.close()
            self.sock = self._connect()
            raise


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    directory = Path(tempfile.mkdtemp(prefix="ea-fz-", dir="/tmp"))  # socket paths are short
    try:
        with Broker(workdir=directory / "broker") as broker:
            config = write_daemon_config(
                directory,
                socket_path=directory / "ea.sock",
                mqtt_port=broker.port,
                device_id="fuzz",
                extra="[agent]\nprimer = false\ncheck_target = false\n",
            )
            daemon = DaemonProcess(
                config, env={"EDGEAGENT_MQTT__MAX_PAYLOAD_BYTES": str(MAX_PAYLOAD)}
            )
            try:
                daemon.wait_ready(directory / "ea.sock")
                t = Target(directory, daemon, broker)
                yield t
                t.watcher.close()
                t.sock.close()
            finally:
                daemon.stop()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
@given(payload=payloads)
def test_every_malformed_input_is_answered_and_the_daemon_lives(
    target: Target, payload: bytes
) -> None:
    reply = target.mqtt(payload)
    assert set(reply) >= {"id", "text", "error"}, reply
    assert reply["text"] is not None or reply["error"], reply
    line = payload.replace(b"\n", b" ")
    if not line.strip():
        return  # a blank line is a keep-alive on the socket, answered by nothing
    # Lines may be larger than MQTT payloads; the socket answers those with an error.
    event = target.line(line * (1 + 40 * (len(line) % 7 == 6)))
    assert event["type"] in ("final", "error", "status", "tools", "reset"), event
    if event["type"] == "error":
        assert event.get("message") or event.get("error"), event
    assert target.daemon.proc.poll() is None, target.daemon.output()


def test_after_the_fuzz_memory_is_bounded_and_no_traceback_was_logged(target: Target) -> None:
    pid = target.daemon.proc.pid
    before = rss_kib(pid)
    big = b'{"prompt": "' + b"x" * (4 * 1024 * 1024) + b'"}'
    for _ in range(16):  # rejected 4 MB prompts must not be kept
        target.watcher.publish(ASK, big)
    target.watcher.publish(ASK, {"prompt": "hello", "id": "after-the-big-ones"})
    # everything before it has been handled
    target.watcher.wait_for(REPLY, lambda m: m.json().get("id") == "after-the-big-ones")
    assert rss_kib(pid) - before < 40 * 1024, (before, rss_kib(pid))
    output = target.daemon.output()
    assert "Traceback" not in output, output[-4000:]
    assert target.daemon.proc.poll() is None
