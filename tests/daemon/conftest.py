"""The daemon tests' fixture: daemons started as subprocesses, stopped at teardown."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.daemon_process import DaemonProcess


@pytest.fixture
def daemon_factory() -> Iterator[Callable[..., DaemonProcess]]:
    started: list[DaemonProcess] = []

    def start(config: Path, **kwargs: Any) -> DaemonProcess:
        daemon = DaemonProcess(config, **kwargs)
        started.append(daemon)
        return daemon

    yield start
    for daemon in started:
        daemon.stop()
