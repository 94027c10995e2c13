"""Fixtures shared by every test folder.

A short directory for Unix sockets, a real mosquitto and paho clients that record what
they receive, the simulator (its app, a test client, a live server), a clock the test
moves by hand, and the fake hardware libraries in tests/fakes.

What is not a fixture lives in a module named for what it is, imported by the tests
that need it: ``tests.loopback`` (a free port, waiting for one), ``tests.mqtt_broker``
(the :class:`Broker` and :class:`TestClient` behind these fixtures),
``tests.fake_clock`` and ``tests.daemon_process`` (``edgeagent run`` as a subprocess,
and its config).
"""

from __future__ import annotations

import importlib
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from edgeagent_sim import create_app
from edgeagent_sim.server import SimulatorServer
from flask import Flask
from flask.testing import FlaskClient

from tests.fake_clock import FakeClock
from tests.mqtt_broker import MOSQUITTO, Broker, TestClient

FAKES = Path(__file__).resolve().parent / "fakes"


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A directory with a short path: a Unix socket path must fit in 108 bytes."""
    path = Path(tempfile.mkdtemp(prefix="ea-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# --- MQTT: a real mosquitto per test ---------------------------------------------------


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A mosquitto of this test's own on a free port of 127.0.0.1."""
    if MOSQUITTO is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    with Broker(workdir=tmp_path / "broker") as running:
        yield running


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


# --- the simulator ---------------------------------------------------------------------


@pytest.fixture
def state_file(tmp_path: Path) -> Path:
    return tmp_path / "state" / "simulator.json"


@pytest.fixture
def app(state_file: Path) -> Flask:
    """The simulator app with 4 LEDs, its state in the test's tmp dir."""
    return create_app({"TESTING": True, "STATE_FILE": str(state_file), "LED_COUNT": 4})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def live(app: Flask) -> Iterator[SimulatorServer]:
    """The simulator on a free port of 127.0.0.1, served by a real threaded server."""
    with SimulatorServer(app) as server:
        yield server


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    """A plain HTTP client that ignores proxy settings in the environment."""
    with httpx.Client(timeout=5, trust_env=False) as http_client:
        yield http_client


# --- time and hardware, faked ----------------------------------------------------------


@pytest.fixture
def clock() -> FakeClock:
    """A clock to pass as ``clock=``; the test moves it: ``clock.now += 10``."""
    return FakeClock()


def _forget(name: str) -> None:
    for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[loaded]


@pytest.fixture
def fake_library(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], ModuleType]]:
    """``fake_library("rpi_ws281x")`` imports tests/fakes/rpi_ws281x under the real name.

    For this test only: tests/fakes is on ``sys.path`` until teardown, and the fake
    modules are dropped from ``sys.modules`` again, so no other test sees them.
    """
    monkeypatch.syspath_prepend(str(FAKES))
    imported: list[str] = []

    def load(name: str) -> ModuleType:
        _forget(name)  # a real library of that name, or another test's fake
        imported.append(name)
        return importlib.import_module(name)

    yield load
    for name in imported:
        _forget(name)
