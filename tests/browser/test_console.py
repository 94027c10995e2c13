"""The dashboard's console in headless chromium, against a real daemon on the scripted
model whose LED is the simulator's: a prompt typed in the page runs a turn (the call in
the trace, the LED changing, the answer), a tool called from the form, and the banner
when the daemon stops, gone again when it is back."""

from __future__ import annotations

import functools
import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from edgeagent_sim import create_app
from edgeagent_sim.server import SimulatorServer
from flask import Response, request

from tests.agent.scripted_agent import call
from tests.browser.waiting import wait_for
from tests.daemon_process import DaemonProcess

pytestmark = pytest.mark.browser

RECONNECT_S = 10.0
"""The page retries the daemon every 2 s; a loaded machine may take a few rounds."""

SCRIPT = {
    "rules": [
        {"match": "^turn the led red", "reply": call("led", color="red")},
        {"match": "(?i)^hello", "reply": "Hello from the scripted model."},
    ],
    "default": "I only know scripted answers.",
    "chunk_size": 8,
}


class Rig:
    """The simulator (its console pointed at the daemon's socket) and the daemon's config;
    the daemon starts and stops on demand."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.socket = directory / "ea.sock"
        app = create_app(
            {
                "TESTING": True,
                "LED_COUNT": 4,
                "SSE_KEEPALIVE_S": 1.0,
                "DAEMON_SOCKET": str(self.socket),
            }
        )
        self.sim = SimulatorServer(app).start()
        port = self.sim.url.rsplit(":", 1)[1]
        (directory / "script.json").write_text(json.dumps(SCRIPT))
        self.config = directory / "edgeagent.toml"
        self.config.write_text(
            f"""
[llm]
backend = "scripted"
script = "script.json"

[agent]
call_format = "json"
primer = false
check_target = false

[tools]
wrapped_dir = "none.d"

[plugins.led]
backend = "sim"

[plugins.servo]
backend = "mock"

[simulator]
port = {port}

[socket]
path = "{self.socket}"

[mqtt]
enabled = false

[daemon]
request_timeout_s = 10
shutdown_grace_s = 1
"""
        )
        self.daemon: DaemonProcess | None = None

    def start_daemon(self) -> None:
        self.daemon = DaemonProcess(self.config)
        self.daemon.wait_ready(self.socket)

    def stop_daemon(self) -> None:
        if self.daemon is not None:
            self.daemon.stop()
            self.daemon = None

    def close(self) -> None:
        self.stop_daemon()
        self.sim.close()


@pytest.fixture
def rig(short_dir: Path) -> Iterator[Rig]:
    made = Rig(short_dir)
    try:
        yield made
    finally:
        made.close()


def open_console(browser: Any, rig: Rig, *, daemon: str = "running") -> None:
    browser.get(f"{rig.sim.url}/")
    wait_for(
        lambda: browser.find_element("tag name", "body").get_attribute("data-daemon") == daemon
    )


def css(browser: Any, selector: str) -> list[Any]:
    found: list[Any] = browser.find_elements("css selector", selector)
    return found


def strip_color(browser: Any) -> str | None:
    """The colour of every pixel, when they all have the same."""
    colors = {p.get_attribute("data-color") for p in css(browser, "#strip .pixel")}
    return colors.pop() if len(colors) == 1 else None


def test_a_prompt_shows_its_call_in_the_trace_the_led_change_and_the_answer(
    browser: Any, rig: Rig
) -> None:
    rig.start_daemon()
    open_console(browser, rig)
    assert css(browser, "#daemon-banner")[0].is_displayed() is False
    session = browser.find_element("id", "session-id").text
    assert session.startswith("tab-")

    browser.find_element("id", "prompt").send_keys("turn the led red")
    browser.find_element("id", "ask-button").click()

    answer = wait_for(lambda: css(browser, ".message.agent[data-done='true']"))[0]
    assert "red" in answer.text.lower()
    assert wait_for(lambda: strip_color(browser) == "#ff0000")
    call_row = wait_for(lambda: css(browser, "#trace .step.call[data-tool='led']"))[0]
    assert call_row.text == '→ led({"color":"red"})'
    turn = css(browser, "#trace .turn")[0]
    assert turn.get_attribute("data-frontend") == "dashboard"
    assert "turn the led red" in turn.find_element("css selector", ".what").text
    assert f"session {session}" in turn.find_element("css selector", ".what").text
    wait_for(lambda: turn.get_attribute("data-done") == "true")
    stats = turn.find_element("css selector", ".stats").text
    assert "first token" in stats and "prompt tokens" in stats
    # The LED's change is shown as that call's doing.
    led = browser.find_element("id", "device-led")
    wait_for(lambda: "caused" in led.get_attribute("class"))
    assert led.get_attribute("data-caused-by").startswith('led({"color":"red"})')
    assert "caused" in call_row.get_attribute("class")
    # The answer streamed in the conversation shows the call too.
    assert css(browser, ".message.call")[0].text == '→ led({"color":"red"})'

    # Filtering by another front end hides the turn.
    browser.find_element("css selector", "#trace-filter option[value='mqtt']").click()
    assert not turn.is_displayed()
    browser.find_element("css selector", "#trace-filter option[value='']").click()
    assert turn.is_displayed()

    # A new conversation resets the tab's session in the daemon and clears the view.
    browser.find_element("id", "new-conversation").click()
    wait_for(lambda: css(browser, ".message.note"))
    assert css(browser, ".message.you") == []


def test_a_tool_called_from_the_form_runs_under_the_dashboard_policy(
    browser: Any, rig: Rig
) -> None:
    rig.start_daemon()
    open_console(browser, rig)
    wait_for(lambda: css(browser, "#tools li[data-tool='led']"))
    kinds = {
        li.get_attribute("data-tool"): li.find_element("css selector", ".kind").text
        for li in css(browser, "#tools li")
    }
    assert kinds["led"] == "act" and kinds["led_state"] == "read"

    browser.find_element("css selector", "#call-tool option[value='led']").click()
    fields = {e.get_attribute("name"): e for e in css(browser, "#call-fields [name]")}
    assert {"color", "brightness", "on"} <= set(fields)
    fields["color"].send_keys("blue")
    browser.find_element("id", "call-button").click()
    result = browser.find_element("id", "call-result")
    wait_for(lambda: result.get_attribute("data-ok") == "true")
    assert wait_for(lambda: strip_color(browser) == "#0000ff")
    turn = wait_for(lambda: css(browser, "#trace .turn[data-done='true']"))[0]
    assert turn.get_attribute("data-frontend") == "dashboard"
    assert 'call led({"color":"blue"})' in turn.find_element("css selector", ".what").text

    # The shell is denied to the dashboard front end by default: the call says so.
    browser.find_element("css selector", "#call-tool option[value='shell']").click()
    fields = {e.get_attribute("name"): e for e in css(browser, "#call-fields [name]")}
    fields["command"].send_keys("uptime")
    browser.find_element("id", "call-button").click()
    wait_for(lambda: result.get_attribute("data-ok") == "false")
    assert "dashboard" in result.text


def test_the_banner_shows_while_the_daemon_is_down_and_goes_when_it_is_back(
    browser: Any, rig: Rig
) -> None:
    open_console(browser, rig, daemon="down")
    banner = browser.find_element("id", "daemon-banner")
    assert banner.is_displayed()
    assert "daemon not running" in banner.text and "edgeagent is not running" in banner.text
    assert len(css(browser, "#strip .pixel")) == 4  # the devices are still drawn
    assert browser.find_element("id", "ask-button").get_attribute("disabled") == "true"

    rig.start_daemon()
    wait_for(lambda: not banner.is_displayed(), RECONNECT_S)
    wait_for(lambda: css(browser, "#tools li[data-tool='led']"))

    rig.stop_daemon()
    wait_for(lambda: banner.is_displayed(), RECONNECT_S)
    assert "daemon not running" in banner.text

    rig.start_daemon()
    wait_for(lambda: not banner.is_displayed(), RECONNECT_S)
    browser.find_element("id", "prompt").send_keys("hello")
    browser.find_element("id", "ask-button").click()
    answer = wait_for(lambda: css(browser, ".message.agent[data-done='true']"))[0]
    assert answer.text == "Hello from the scripted model."


EVIL_PAGE = """<!doctype html><html><body>
<form id="form" method="POST" enctype="text/plain" action="{url}/console/api/call" target="sink">
  <input name='{{"tool": "led", "arguments": {{"color": "green"}}, "x": "' value='"}}'>
</form>
<iframe name="sink"></iframe>
<script>
  const body = JSON.stringify({{tool: "led", arguments: {{color: "green"}}}});
  window.tries = Promise.allSettled([
    fetch("{url}/console/api/call", {{method: "POST", mode: "no-cors",
      headers: {{"Content-Type": "text/plain"}}, body}}),
    fetch("{url}/console/api/call", {{method: "POST",
      headers: {{"Content-Type": "application/json"}}, body}}),
    fetch("{url}/console/api/ask", {{method: "POST", mode: "no-cors",
      headers: {{"Content-Type": "text/plain"}},
      body: JSON.stringify({{prompt: "turn the led red"}})}}),
  ]).then(() => {{ document.getElementById("form").submit(); return "sent"; }});
</script></body></html>"""


class EvilSite:
    """A page on another origin (another port of 127.0.0.1) that tries to drive the
    console through the visitor's browser."""

    def __init__(self, directory: Path, target: str) -> None:
        directory.mkdir()
        (directory / "index.html").write_text(EVIL_PAGE.format(url=target))
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(directory))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_page_on_another_origin_cannot_drive_the_console(
    browser: Any, rig: Rig, tmp_path: Path
) -> None:
    """CSRF: the Host is right (the browser talks to 127.0.0.1 itself), so only the
    Origin, Sec-Fetch-Site and the JSON-only rule stand between the page and the LED."""
    rig.start_daemon()
    refused: list[int] = []
    app = rig.sim.app

    def record(response: Response) -> Response:
        if request.method == "POST" and request.path.startswith("/console/"):
            refused.append(response.status_code)
        return response

    app.after_request(record)

    evil = EvilSite(tmp_path / "evil", rig.sim.url)
    try:
        browser.get(evil.url)
        assert (
            browser.execute_async_script("window.tries.then(arguments[arguments.length - 1])")
            == "sent"
        )
        wait_for(lambda: len(refused) >= 3)  # the preflighted fetch never comes
        time.sleep(0.5)
    finally:
        evil.close()
    assert refused and set(refused) <= {403, 415}
    with httpx.Client(timeout=5, trust_env=False) as http:
        assert http.get(f"{rig.sim.url}/api/led").json()["pixels"][0] != "#00ff00"
        trace = http.get(f"{rig.sim.url}/console/api/status").json()["status"]
    assert trace["requests"]["served"] == 0  # no turn and no call ran
