"""The plugin tests' simulator: the shared one (tests/conftest.py), as a URL."""

from __future__ import annotations

import pytest
from edgeagent_sim.server import SimulatorServer


@pytest.fixture
def simulator(live: SimulatorServer) -> str:
    """The simulator (4 LEDs) served on a free port of 127.0.0.1; its URL."""
    return live.url
