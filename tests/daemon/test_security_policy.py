"""Issue 9, items 1 and 2, against the real daemon: a real mosquitto, the real socket.

An MQTT client asks for a secret file through every name that runs the shell: the
shell itself, a shipped-style wrapper (``grep``), a two-line alias (``files.tool``) and
a command the model calls as if it were a tool (``cat``). With the default policy each
is refused and nothing is read; the same prompts over the socket (trusted by its file
mode) read the file, which shows the test can see a read when one happens.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.agent.scripted_agent import call
from tests.daemon_process import DaemonProcess, over_socket, write_daemon_config
from tests.mqtt_broker import Broker, TestClient

SECRET = "hunter2-the-secret"


SCRIPT = {
    "rules": [
        # Tool results come back as the last message: answer from them.
        {"match": "not allowed", "reply": "That is not allowed from here."},
        {"match": SECRET, "reply": "The file says " + SECRET},
        {"match": "^via shell", "reply": call("shell", command="cat secret.txt")},
        {"match": "^via grep", "reply": call("grep", arguments=["hunter2", "."])},
        {"match": "^via files", "reply": call("files", command="cat secret.txt")},
        {"match": "^via cat", "reply": call("cat", path="secret.txt")},
        {"match": "^via led", "reply": call("led", color="red")},
    ],
    "default": "I only know scripted answers.",
    "chunk_size": 64,
}

ROUTES = ["via shell", "via grep", "via files", "via cat"]


def make_config(short_dir: Path, sock_path: Path, port: int, policy: str = "") -> Path:
    files = short_dir / "files"
    files.mkdir()
    (files / "secret.txt").write_text(SECRET + "\n")
    tools = short_dir / "tools.d"
    tools.mkdir()
    (tools / "grep.tool").write_text(
        "Search files.\n\n@title Search files\n@name grep\n@wrapped shell\n"
        "@command grep -rnI {arguments}\n"
        "@param arguments {array<string>} [required] Pattern, then paths\n"
    )
    (tools / "files.tool").write_text("@name files\n@wrapped shell\n")
    extra = f"""
[agent]
call_format = "json"
primer = false
check_target = false

[plugins.shell]
roots = ["{files}"]

{policy}
"""
    return write_daemon_config(
        short_dir, socket_path=sock_path, mqtt_port=port, script=SCRIPT, extra=extra
    )


def ask_socket(sock_path: Path, prompt: str) -> dict[str, Any]:
    return over_socket(sock_path, {"prompt": prompt, "stream": False})[-1]


def ask_mqtt(watcher: TestClient, prompt: str, request_id: str) -> dict[str, Any]:
    watcher.publish("edgeagent/bench/ask", {"prompt": prompt, "id": request_id})
    (received,) = watcher.wait_for(
        "edgeagent/bench/reply", lambda m: m.json()["id"] == request_id
    )
    reply: dict[str, Any] = received.json()
    return reply


def test_mqtt_cannot_reach_the_shell_through_any_name_by_default(
    short_dir: Path,
    broker: Broker,
    clients: Callable[..., TestClient],
    daemon_factory: Callable[..., DaemonProcess],
) -> None:
    sock_path = short_dir / "ea.sock"
    daemon = daemon_factory(make_config(short_dir, sock_path, broker.port))
    watcher = clients()
    watcher.subscribe("edgeagent/bench/reply")
    daemon.wait_ready(sock_path)
    for n, route in enumerate(ROUTES):
        reply = ask_mqtt(watcher, route, f"m{n}")
        assert SECRET not in json.dumps(reply), (route, reply)
        calls = reply["tool_calls"]
        assert calls and all(not c.get("ok", False) for c in calls), (route, reply)
        assert "not allowed from mqtt" in json.dumps(calls), (route, reply)
    # Acting device tools stay available to home automation.
    reply = ask_mqtt(watcher, "via led", "m-led")
    assert reply["tool_calls"][0]["name"] == "led" and reply["tool_calls"][0]["ok"]
    # The socket is trusted by its file mode: the same prompts read the file.
    for route in ROUTES:
        answer = ask_socket(sock_path, route)
        assert SECRET in json.dumps(answer), (route, answer)
    assert "Traceback" not in daemon.output()


def test_a_deny_rule_on_the_socket_covers_its_wrappers_and_aliases(
    short_dir: Path,
    broker: Broker,
    daemon_factory: Callable[..., DaemonProcess],
) -> None:
    sock_path = short_dir / "ea.sock"
    policy = '[tools.policy]\ndeny = { socket = ["shell"] }\n'
    daemon = daemon_factory(make_config(short_dir, sock_path, broker.port, policy))
    daemon.wait_ready(sock_path)
    for route in ROUTES:
        answer = ask_socket(sock_path, route)
        assert SECRET not in json.dumps(answer), (route, answer)
        assert "not allowed from socket" in json.dumps(answer), (route, answer)
