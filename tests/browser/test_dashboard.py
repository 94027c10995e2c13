"""The simulator dashboard in headless chromium: it draws the devices, follows API
changes live over Server-Sent Events, and its controls change the API's state."""

from __future__ import annotations

import statistics
import time
from typing import Any

import httpx
import pytest
from edgeagent_sim.server import SimulatorServer

from tests.browser.waiting import wait_for

pytestmark = pytest.mark.browser

LATENCY_BUDGET_MS = 150


def open_dashboard(browser: Any, url: str) -> None:
    browser.get(f"{url}/")
    wait_for(lambda: browser.find_element("id", "status").get_attribute("data-connected") == "true")
    browser.execute_script("window.__sameDocument = true;")  # a reload would drop this


def pixel_colors(browser: Any) -> list[tuple[str, str]]:
    """(data-color, computed background) of every pixel on the page."""
    return [
        (p.get_attribute("data-color"), p.value_of_css_property("background-color"))
        for p in browser.find_elements("css selector", "#strip .pixel")
    ]


def test_page_shows_pixel_colors_brightness_and_servo_angle(
    browser: Any, live: SimulatorServer, http: httpx.Client
) -> None:
    http.post(f"{live.url}/api/led", json={"color": "red", "on": True, "brightness": 100})
    http.post(f"{live.url}/api/led", json={"color": "blue", "first": 2, "last": 3})
    http.post(f"{live.url}/api/servo", json={"angle": 30})
    open_dashboard(browser, live.url)
    drawn = [
        ("#ff0000", "rgba(255, 0, 0, 1)"),
        ("#ff0000", "rgba(255, 0, 0, 1)"),
        ("#0000ff", "rgba(0, 0, 255, 1)"),
        ("#0000ff", "rgba(0, 0, 255, 1)"),
    ]
    # The pixels fade into their colours (a 60 ms CSS transition): read them once it ends.
    wait_for(lambda: pixel_colors(browser) == drawn)
    assert pixel_colors(browser) == drawn
    assert browser.find_element("id", "servo-angle").text == "30"
    assert "rotate(30 " in browser.find_element("id", "servo-arm").get_attribute("transform")

    http.post(f"{live.url}/api/led", json={"brightness": 50})
    wait_for(lambda: pixel_colors(browser)[0][1] == "rgba(128, 0, 0, 1)")  # 255 x 50 %


WATCH = """
const [selector, attribute, expected] = arguments;
const target = document.querySelector(selector);
window.__seenAt = null;
const observer = new MutationObserver(() => {
  if (target.getAttribute(attribute) === expected && window.__seenAt === null) {
    window.__seenAt = Date.now();
    observer.disconnect();
  }
});
observer.observe(target, {attributes: true, attributeFilter: [attribute]});
"""


def measure_ms(
    browser: Any, http: httpx.Client, url: str, body: dict[str, Any], watch: tuple[str, str, str]
) -> float:
    """Wall-clock ms from just before the POST to the DOM change (same machine clock)."""
    browser.execute_script(WATCH, *watch)
    start = time.time()
    http.post(url, json=body).raise_for_status()
    seen = wait_for(lambda: browser.execute_script("return window.__seenAt;"), timeout=3)
    return float(seen) - start * 1000


def test_api_changes_appear_live_within_150_ms(
    browser: Any, live: SimulatorServer, http: httpx.Client, record_property: Any
) -> None:
    open_dashboard(browser, live.url)
    samples: list[float] = []
    changes = [("#ff0000", 10), ("#00ff00", -20), ("#0000ff", 45), ("#ffd700", -90)]
    for color, angle in changes:
        led = ("#strip .pixel", "data-color", color)
        samples.append(measure_ms(browser, http, f"{live.url}/api/led", {"color": color}, led))
        servo = ("#servo-arm", "data-angle", str(angle))
        samples.append(measure_ms(browser, http, f"{live.url}/api/servo", {"angle": angle}, servo))
    record_property("dashboard_latency_ms", samples)
    print(f"POST->DOM ms: median {statistics.median(samples):.1f}, max {max(samples):.1f}")
    assert browser.execute_script("return window.__sameDocument === true;")  # no reload
    assert max(samples) < LATENCY_BUDGET_MS, samples


def test_manual_controls_change_the_api_state(
    browser: Any, live: SimulatorServer, http: httpx.Client
) -> None:
    from selenium.webdriver.common.keys import Keys

    open_dashboard(browser, live.url)
    assert http.get(f"{live.url}/api/led").json()["on"] is False

    browser.find_element("id", "led-on").click()
    wait_for(lambda: http.get(f"{live.url}/api/led").json()["on"] is True)

    brightness = browser.find_element("id", "led-brightness-input")
    brightness.send_keys(Keys.ARROW_LEFT * 3)
    wait_for(lambda: http.get(f"{live.url}/api/led").json()["brightness"] == 97)

    angle = browser.find_element("id", "servo-angle-input")
    angle.send_keys(Keys.ARROW_RIGHT * 5)
    wait_for(lambda: http.get(f"{live.url}/api/servo").json()["angle"] == 5)

    # The colour picker's native dialog is out of reach; set it as the picker would.
    browser.execute_script(
        "const c = document.getElementById('led-color');"
        "c.value = '#00ced1'; c.dispatchEvent(new Event('input', {bubbles: true}));"
    )
    wait_for(lambda: http.get(f"{live.url}/api/led").json()["pixels"] == ["#00ced1"] * 4)
