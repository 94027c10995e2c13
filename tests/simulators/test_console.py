"""The console's endpoints without a browser: who may POST (CSRF), and what they say
while no daemon answers. The browser tests (tests/browser/test_console.py) drive it
against a real daemon."""

from __future__ import annotations

from pathlib import Path

import pytest
from edgeagent_sim import create_app
from flask import Flask
from flask.testing import FlaskClient

POSTS = ["/console/api/ask", "/console/api/call", "/console/api/reset"]
BODY = {"prompt": "turn the LED red", "tool": "led", "arguments": {"color": "red"}, "session": "s"}


@pytest.fixture
def console_app(short_dir: Path) -> Flask:
    """The app with its console pointed at a socket where no daemon listens."""
    return create_app({"TESTING": True, "DAEMON_SOCKET": str(short_dir / "none.sock")})


@pytest.fixture
def console(console_app: Flask) -> FlaskClient:
    return console_app.test_client()


@pytest.mark.parametrize("path", POSTS)
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://attacker.example"},
        {"Origin": "http://127.0.0.1:9999"},  # another port is another origin
        {"Origin": "null"},  # a sandboxed frame or a data: page
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},  # another port of this host
    ],
)
def test_a_post_from_another_origin_is_refused(
    console: FlaskClient, path: str, headers: dict[str, str]
) -> None:
    reply = console.post(path, json=BODY, headers=headers)
    assert reply.status_code == 403
    assert "refused" in reply.get_json()["error"]


@pytest.mark.parametrize("path", POSTS)
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
def test_a_post_that_a_form_could_send_is_refused(
    console: FlaskClient, path: str, content_type: str
) -> None:
    """A cross-site form (or a no-cors fetch) can only send these types, and without
    an Origin when the browser is old: the body type alone refuses them."""
    reply = console.post(
        path, data='{"tool": "led", "arguments": {}}', headers={"Content-Type": content_type}
    )
    assert reply.status_code == 415
    assert "application/json" in reply.get_json()["error"]


@pytest.mark.parametrize("path", POSTS)
def test_a_same_origin_post_reaches_the_daemon(console: FlaskClient, path: str) -> None:
    headers = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    reply = console.post(path, json=BODY, headers=headers)
    assert reply.status_code == 503  # passed the guard; no daemon listens
    body = reply.get_json()
    assert body["daemon"] is False
    assert "edgeagent is not running" in body["error"]


def test_without_a_daemon_the_reads_say_why_and_the_trace_says_not_running(
    console: FlaskClient,
) -> None:
    for path in ("/console/api/status", "/console/api/tools"):
        reply = console.get(path)
        assert reply.status_code == 503
        assert "no socket at" in reply.get_json()["error"]
    stream = console.get("/console/api/trace").get_data(as_text=True)
    assert stream.startswith("retry: 2000\n\n")
    assert "event: daemon\ndata: " in stream and '"running": false' in stream


def test_without_a_configured_socket_the_console_says_how_to_start_it() -> None:
    client = create_app({"TESTING": True}).test_client()
    error = client.get("/console/api/status").get_json()["error"]
    assert "no daemon socket configured" in error and "edgeagent sim" in error


def test_the_console_answers_loopback_hosts_only(console: FlaskClient) -> None:
    assert (
        console.get("/console/api/status", headers={"Host": "attacker.example"}).status_code == 403
    )
    reply = console.post("/console/api/call", json=BODY, headers={"Host": "attacker.example"})
    assert reply.status_code == 403
