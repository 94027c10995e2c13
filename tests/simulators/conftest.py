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


from collections.abc import Iterator  # noqa: E402

import httpx  # noqa: E402
import pytest  # noqa: E402
from edgeagent_sim import create_app  # noqa: E402
from edgeagent_sim.server import SimulatorServer  # noqa: E402
from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402


@pytest.fixture
def state_file(tmp_path: Path) -> Path:
    return tmp_path / "state" / "simulator.json"


@pytest.fixture
def app(state_file: Path) -> Flask:
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
    with httpx.Client(timeout=5, trust_env=False) as client:
        yield client
