"""Screenshots of the dashboard's console for the README (docs/img/console*.png).

Runs what a developer runs: the simulator (its console pointed at the daemon's socket)
and ``edgeagent run`` on the scripted model, both on free ports and a temporary socket,
then drives headless Debian chromium through a few turns from the page, the call form
and the socket, and saves:

* docs/img/console.png: the devices, a conversation, the trace and the tools;
* docs/img/console-daemon-down.png: the page while no daemon runs.

Usage: ``.venv/bin/python scripts/screenshots.py`` (needs chromium and
chromium-driver from apt, and selenium from the test extra).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from edgeagent_sim import create_app
from edgeagent_sim.server import SimulatorServer
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from edgeagent.frontends.client import DaemonClient

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img"
WIDTH, HEIGHT = 1200, 1400
MAX_PNG_BYTES = 200_000


def call(name: str, **arguments: Any) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


SCRIPT = {
    "rules": [
        {"match": r"^\{\"ok\": true, \"result\": 1024", "reply": "2^10 is 1024."},
        {"match": "^turn the led purple", "reply": call("led", color="purple")},
        {"match": "^point the camera left", "reply": call("servo", angle=-45)},
        {"match": r"^what is 2\^10", "reply": call("math", expression="2^10")},
    ],
    "default": "I only know scripted answers.",
    "chunk_size": 4,
}

CONFIG = """
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
backend = "sim"

[simulator]
port = {port}

[socket]
path = "{socket}"

[mqtt]
enabled = false
"""


def wait_for(check: Callable[[], Any], timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise SystemExit(f"screenshots: gave up waiting ({timeout} s)")
        time.sleep(0.05)
    return value


def browser(profile: Path) -> Any:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        f"--window-size={WIDTH},{HEIGHT}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))


def save(driver: Any, name: str) -> None:
    path = OUT / name
    driver.save_screenshot(str(path))
    size = path.stat().st_size
    print(f"{path.relative_to(ROOT)}: {size // 1000} KB")
    if size > MAX_PNG_BYTES:
        raise SystemExit(f"{path} is over {MAX_PNG_BYTES // 1000} KB; make the window smaller")


def ask_page(driver: Any, prompt: str) -> None:
    answered = ".message.agent[data-done='true']"
    done = len(driver.find_elements("css selector", answered))
    driver.find_element("id", "prompt").send_keys(prompt)
    driver.find_element("id", "ask-button").click()
    wait_for(lambda: len(driver.find_elements("css selector", answered)) > done)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ea-shots-", dir="/tmp") as tmp:
        work = Path(tmp)
        sock = work / "ea.sock"
        app = create_app({"LED_COUNT": 8, "DAEMON_SOCKET": str(sock)})
        sim = SimulatorServer(app).start()
        (work / "script.json").write_text(json.dumps(SCRIPT))
        config = work / "edgeagent.toml"
        config.write_text(CONFIG.format(port=sim.url.rsplit(":", 1)[1], socket=sock))
        driver = browser(work / "profile")
        daemon: subprocess.Popen[bytes] | None = None
        try:
            driver.get(f"{sim.url}/")
            body = driver.find_element("tag name", "body")
            wait_for(lambda: body.get_attribute("data-daemon") == "down")
            driver.set_window_size(WIDTH, 700)
            save(driver, "console-daemon-down.png")
            driver.set_window_size(WIDTH, HEIGHT)

            log = (work / "daemon.log").open("wb")
            daemon = subprocess.Popen(
                [sys.executable, "-m", "edgeagent", "--config", str(config), "run"],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            wait_for(lambda: body.get_attribute("data-daemon") == "running")
            wait_for(lambda: driver.find_elements("css selector", "#tools li"))
            ask_page(driver, "turn the led purple")
            ask_page(driver, "point the camera left")
            driver.find_element("css selector", "#call-tool option[value='led']").click()
            driver.find_element("css selector", "#call-fields [name='brightness']").send_keys("40")
            driver.find_element("id", "call-button").click()
            wait_for(lambda: driver.find_element("id", "call-result").get_attribute("data-ok"))
            with DaemonClient(sock, timeout_s=10) as client:  # a turn from another client
                for line in client.request({"prompt": "what is 2^10", "id": "cli-1"}):
                    if line["type"] in ("final", "error"):
                        break
            time.sleep(0.3)
            save(driver, "console.png")
        finally:
            driver.quit()
            if daemon is not None:
                daemon.terminate()
                daemon.wait(15)
            sim.close()


if __name__ == "__main__":
    main()
