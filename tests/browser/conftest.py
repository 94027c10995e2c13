"""A headless chromium for the dashboard tests; the simulator is tests/conftest.py's."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


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
