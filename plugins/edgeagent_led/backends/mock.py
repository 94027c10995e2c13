"""In-memory strip for tests and tools-only runs; it records every state written.

A behavioural mock: like the hardware, it refuses to be driven once closed.
"""

from __future__ import annotations

from edgeagent.plugin import HardwareError
from edgeagent_led.strip import LedState


class MockLed:
    name = "mock"

    def __init__(self, *, count: int) -> None:
        self.state = LedState.dark(count)
        self.history: list[LedState] = []
        self.closed = False

    def write(self, state: LedState) -> None:
        if self.closed:
            raise HardwareError("the LED strip is closed")
        self.state = state
        self.history.append(state)

    def read(self) -> LedState:
        if self.closed:
            raise HardwareError("the LED strip is closed")
        return self.state

    def close(self) -> None:
        self.closed = True
