"""Issue 9, the MQTT side, replayed against ``edgeagent run`` and a real mosquitto.

Each test is an attack a client on the broker could make: an oversized prompt, a reply
steered onto someone else's topic, JSON built to crash the parser, a session name that
broke every later session, a password that had to live in the environment. The daemon
must answer each with an error naming the problem, run nothing it should not, keep its
memory, and log no traceback.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from tests.daemon_process import DaemonProcess, over_socket, write_daemon_config
from tests.mqtt_broker import MOSQUITTO, Broker, Received, TestClient, needs_mosquitto_passwd

pytestmark = pytest.mark.skipif(MOSQUITTO is None, reason="needs mosquitto")

LED_CALL = '<tool_call>{"name": "led", "arguments": {"color": "red"}}</tool_call>'
SCRIPT = {
    "rules": [
        {"match": "(?i)^blink", "reply": LED_CALL},
        {"match": "(?i)^hello", "reply": "Hello from the scripted model."},
    ],
    "default": "done",
}
LIMIT = 4096
"""``[mqtt] max_payload_bytes`` of these daemons."""
# Keys that continue write_daemon_config's [mqtt] table, then a table of their own.
MQTT_KEYS = f"""max_payload_bytes = {LIMIT}
response_topic_prefixes = ["clients"]

[agent]
check_target = false
"""
BASE = "edgeagent/bench"


@dataclass
class Served:
    """A running daemon, its broker and a v5 client following its reply topics."""

    daemon: DaemonProcess
    broker: Broker
    socket: Path
    client: TestClient

    def rss_kb(self) -> int:
        status = Path(f"/proc/{self.daemon.proc.pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if "VmRSS" in line))

    def replies(self, predicate: Any = None, *, count: int = 1) -> list[Received]:
        return self.client.wait_for(
            f"{BASE}/reply", predicate or (lambda m: True), count=count, timeout=10 + count / 5
        )

    def assert_no_traceback(self) -> None:
        log = self.daemon.output()
        assert "Traceback" not in log, log[-4000:]


def start_daemon(
    directory: Path,
    broker: Broker,
    *,
    mqtt_keys: str = MQTT_KEYS,
    env: dict[str, str] | None = None,
    configure: Callable[[mqtt.Client], None] | None = None,
) -> Served:
    sock = directory / "ea.sock"
    config = write_daemon_config(
        directory, socket_path=sock, mqtt_port=broker.port, script=SCRIPT, extra=mqtt_keys
    )
    # 300 prompts at once must fit the queue and its deadline, even on a busy CI machine.
    roomy = {"EDGEAGENT_DAEMON__QUEUE_SIZE": "512", "EDGEAGENT_DAEMON__REQUEST_TIMEOUT_S": "120"}
    daemon = DaemonProcess(config, env={**roomy, **(env or {})})
    client = TestClient(broker, configure=configure)
    try:
        for topic in ("status", "reply", "event/tool"):
            client.subscribe(f"{BASE}/{topic}")
        client.subscribe("clients/#")
        daemon.wait_ready(sock)
    except BaseException:
        client.close()
        daemon.stop()
        raise
    return Served(daemon, broker, sock, client)


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    """One v5 daemon for the tests that only send it prompts (a start costs seconds)."""
    directory = Path(tempfile.mkdtemp(prefix="ea-sec-", dir="/tmp"))
    try:
        with Broker(workdir=directory / "broker") as broker:
            running = start_daemon(directory, broker)
            try:
                running.client.wait_for(f"{BASE}/status", lambda m: m.payload == b"online")
                yield running
                running.assert_no_traceback()
            finally:
                running.client.close()
                running.daemon.stop()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def ask_socket(path: Path, request: dict[str, Any]) -> dict[str, Any]:
    """The line that ends the answer (final, error, reset, status)."""
    return over_socket(path, request, timeout=10)[-1]


def daemon_status(served: Served) -> dict[str, Any]:
    status: dict[str, Any] = ask_socket(served.socket, {"op": "status"})["status"]
    return status


# --- Item 7: response topics -------------------------------------------------------------


def test_a_reply_cannot_be_steered_onto_other_topics_and_nothing_runs(served: Served) -> None:
    bad = {
        "homeassistant/switch/evil/config": "under 'homeassistant'",
        "zigbee2mqtt/lamp/set": "not under an allowed prefix",
        f"{BASE}/ask": f"under '{BASE}'",
        "edgeagent/fleet/ask": "under 'edgeagent/fleet/ask'",
        "clients/+/reply": "wildcard '+'",
        "clients/#": "wildcard '#'",
        "$SYS/evil": "starts with '$'",
    }
    watcher = TestClient(served.broker)
    watcher.subscribe("#")
    for i, topic in enumerate(bad):
        served.client.publish(
            f"{BASE}/ask",
            {"prompt": "blink the led", "id": f"bad{i}"},
            response_topic=topic,
            correlation=f"corr{i}".encode(),
        )
    served.client.publish(
        f"{BASE}/ask", {"prompt": "blink the led", "id": "good"}, response_topic="clients/me"
    )
    (good,) = served.client.wait_for("clients/me")
    errors = served.replies(lambda m: str(m.json()["id"]).startswith("bad"), count=len(bad))

    assert good.json()["tool_calls"][0]["name"] == "led"  # the script does call the tool
    for i, expected in enumerate(bad.values()):
        (error,) = [e for e in errors if e.json()["id"] == f"bad{i}"]
        assert expected in error.json()["error"] and error.json()["text"] is None
        assert error.correlation == f"corr{i}".encode()
    watcher.wait_for(f"{BASE}/reply", lambda m: m.json()["id"] == "bad0")
    watcher.close()
    # Nothing was published on a named topic, except the prompts we sent to the ask topics.
    assert [m for m in watcher.messages if m.topic in bad and "prompt" not in m.json()] == []
    tool_events = [m.json() for m in watcher.messages if m.topic == f"{BASE}/event/tool"]
    assert {e["id"] for e in tool_events} == {"good"} and len(tool_events) == 2
    # One warning line each at most (repeats of the same line are rate-limited).
    lines = [line for line in served.daemon.output().splitlines() if "response topic" in line]
    assert 1 <= len(lines) <= len(bad) and all("rejected a prompt" in line for line in lines)
    served.assert_no_traceback()


# --- Item 10: input built to crash the parser --------------------------------------------


def test_hostile_json_gets_an_error_reply_naming_the_problem(served: Served) -> None:
    cases: dict[bytes, str] = {
        b'{"prompt": "hi", "id": "deep", "x": ' + b"[" * 1000 + b"]" * 1000 + b"}": "nested deeper",
        b'{"a": ' * 600: "nested deeper",
        b'{"prompt": "hi \\ud800", "id": "p"}': "lone surrogate",
        b'{"prompt": "hi", "id": "\\ud800"}': "lone surrogate",
        b'{"prompt": "hi", "id": "s", "session": "\\udc00"}': "lone surrogate",
        b'{"prompt": "hi", "id": "e", "session": ""}': "session '' is empty",
    }
    for i, payload in enumerate(cases):
        served.client.publish(f"{BASE}/ask", payload, correlation=f"h{i}".encode())
    replies = served.replies(lambda m: (m.correlation or b"").startswith(b"h"), count=len(cases))
    for i, expected in enumerate(cases.values()):
        (reply,) = [r for r in replies if r.correlation == f"h{i}".encode()]
        assert expected in reply.json()["error"], reply.json()
    by_corr = {r.correlation: r.json() for r in replies}
    assert by_corr[b"h2"]["id"] == "p" and by_corr[b"h5"]["id"] == "e"
    served.client.publish(f"{BASE}/ask", {"prompt": "hello", "id": "after"})
    (after,) = served.replies(lambda m: m.json()["id"] == "after")
    assert after.json()["text"] == "Hello from the scripted model."
    served.assert_no_traceback()


# --- Item 3: session names -----------------------------------------------------------------


def test_sessions_are_per_front_end_and_many_names_break_nothing(served: Served) -> None:
    # The socket user's "kitchen" and an MQTT client's "kitchen" are two conversations.
    assert ask_socket(served.socket, {"prompt": "hello", "session": "kitchen"})["type"] == "final"
    sessions = daemon_status(served)["sessions"]
    served.client.publish(f"{BASE}/ask", {"prompt": "hello", "id": "k", "session": "kitchen"})
    (kitchen,) = served.replies(lambda m: m.json()["id"] == "k")
    assert kitchen.json()["error"] is None
    assert daemon_status(served)["sessions"] == sessions + 1  # a new one, not the socket's
    assert ask_socket(served.socket, {"op": "reset", "session": "kitchen"})["existed"] is True
    assert ask_socket(served.socket, {"op": "reset", "session": "kitchen"})["existed"] is False

    for i in range(300):
        served.client.publish(f"{BASE}/ask", {"prompt": "hello", "id": f"n{i}", "session": f"s{i}"})
    served.client.publish(f"{BASE}/ask", {"prompt": "hello", "id": "empty", "session": ""})
    # Exactly these ids: the module's daemon also answered an "e" in an earlier test.
    wanted = {f"n{i}" for i in range(300)} | {"empty"}
    replies = served.replies(lambda m: m.json()["id"] in wanted, count=301)
    by_id = {r.json()["id"]: r.json() for r in replies}
    assert "session '' is empty" in by_id["empty"]["error"]
    assert [i for i in range(300) if by_id[f"n{i}"]["error"] is not None] == []

    fresh = ask_socket(served.socket, {"prompt": "hello", "session": "after-300"})
    assert fresh["type"] == "final" and fresh["text"] == "Hello from the scripted model."
    served.client.publish(f"{BASE}/ask", {"prompt": "hello", "id": "m", "session": "new"})
    (mqtt_fresh,) = served.replies(lambda m: m.json()["id"] == "m")
    assert mqtt_fresh.json()["text"] == "Hello from the scripted model."
    served.assert_no_traceback()


# --- Item 5: oversized payloads --------------------------------------------------------------


def test_oversized_prompts_are_answered_let_go_and_do_not_silence_the_daemon(
    served: Served,
) -> None:
    rss_before = served.rss_kb()
    asker = TestClient(served.broker)  # not subscribed: the 96 MB need not come back
    try:
        huge = json.dumps({"prompt": "x" * (4 << 20), "id": "huge"})
        for _ in range(24):  # QoS 1, more than mosquitto's 20 in-flight messages
            asker.publish(f"{BASE}/ask", huge)
        over = json.dumps({"prompt": "y" * (2 * LIMIT), "id": "over"})
        asker.publish(f"{BASE}/ask", over)
        asker.publish(f"{BASE}/ask", {"prompt": "hello", "id": "small"})
        (small,) = served.replies(lambda m: m.json()["id"] == "small")
    finally:
        asker.close()
    refused = served.replies(lambda m: m.json()["id"] is None or m.json()["id"] == "over")
    refused = [r.json()["error"] for r in refused if "bytes is over" in (r.json()["error"] or "")]
    assert len(refused) == 25
    assert all(f"over the {LIMIT}-byte limit ([mqtt] max_payload_bytes)" in e for e in refused)
    assert small.json()["text"] == "Hello from the scripted model."
    # Each payload was let go after its answer (64 remembered ones were 256 MB once).
    assert served.rss_kb() - rss_before < 30_000
    served.assert_no_traceback()


# --- Item 6: the password from a file --------------------------------------------------------


@needs_mosquitto_passwd
def test_password_file_relative_to_the_config_and_a_missing_one_named(tmp_path: Path) -> None:
    broker = Broker(workdir=tmp_path / "broker", allow_anonymous=False, users={"edge": "s3cret"})
    broker.start()
    directory = Path(tempfile.mkdtemp(prefix="ea-pw-", dir="/tmp"))
    (directory / "mqtt.secret").write_text("s3cret\n")
    login = {"configure": lambda c: c.username_pw_set("edge", "s3cret")}
    try:
        # Relative to the config file's directory, not to the daemon's working directory.
        served = start_daemon(
            directory,
            broker,
            mqtt_keys='username = "edge"\npassword_file = "mqtt.secret"\n',
            **login,
        )
        try:
            served.client.wait_for(f"{BASE}/status", lambda m: m.payload == b"online")
            assert daemon_status(served)["mqtt"]["connected"] is True
            served.client.publish(f"{BASE}/ask", {"prompt": "hello", "id": "pw"})
            (reply,) = served.replies(lambda m: m.json()["id"] == "pw")
            assert reply.json()["text"] == "Hello from the scripted model."
        finally:
            served.client.close()
            served.daemon.stop()

        served = start_daemon(
            directory,
            broker,
            mqtt_keys='username = "edge"\npassword_file = "gone.secret"\n',
            **login,
        )
        try:  # the socket still serves; status says why MQTT does not
            degraded = daemon_status(served)["degraded"]["mqtt"]
            assert f"[mqtt] password_file = {directory / 'gone.secret'}: cannot read it" in degraded
            assert "No such file" in degraded
            served.assert_no_traceback()
        finally:
            served.client.close()
            served.daemon.stop()
    finally:
        broker.stop()
        shutil.rmtree(directory, ignore_errors=True)
