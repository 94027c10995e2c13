"""Fixtures: a real mosquitto on a free port per test, and real paho test clients."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.frontends.mqtt_broker import MOSQUITTO, Broker, TestClient


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    if MOSQUITTO is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    b = Broker(workdir=tmp_path / "broker")
    b.workdir.mkdir()
    b.start()
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture
def clients(broker: Broker) -> Iterator[Callable[..., TestClient]]:
    """Factory for test clients bound to ``broker``; all are closed at teardown."""
    made: list[TestClient] = []

    def make(**kwargs: Any) -> TestClient:
        c = TestClient(broker, **kwargs)
        made.append(c)
        return c

    try:
        yield make
    finally:
        for c in made:
            c.close()
