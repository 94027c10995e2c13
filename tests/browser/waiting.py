"""Waiting for a page to get somewhere: the browser tests' one polling loop."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def wait_for(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    """``check()``'s first truthy value, polled every 20 ms; fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(0.02)
