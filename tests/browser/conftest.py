"""Make the first-party packages importable from a plain checkout.

After ``pip install -e .`` they already are and this does nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for folder in ("plugins", "simulators"):
    if str(ROOT / folder) not in sys.path:
        sys.path.append(str(ROOT / folder))


import shutil  # noqa: E402
from collections.abc import Iterator  # noqa: E402

import httpx  # noqa: E402
import pytest  # noqa: E402
from edgeagent_sim import create_app  # noqa: E402
from edgeagent_sim.server import SimulatorServer  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


@pytest.fixture
def live(tmp_path: Path) -> Iterator[SimulatorServer]:
    app = create_app({"STATE_FILE": str(tmp_path / "sim.json"), "LED_COUNT": 4})
    with SimulatorServer(app) as server:
        yield server


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=5, trust_env=False) as client:
        yield client


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[object]:
    """Headless Debian chromium through its own chromedriver (no driver download)."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()) and not shutil.which("chromium"):
        pytest.skip("Debian chromium is not installed (apt install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()
