"""In-memory strip for tests and tools-only runs; it records every state written."""

from __future__ import annotations

from edgeagent_led.strip import LedState


class MockLed:
    name = "mock"

    def __init__(self, *, count: int) -> None:
        self.state = LedState.dark(count)
        self.history: list[LedState] = []
        self.closed = False

    def write(self, state: LedState) -> None:
        self.state = state
        self.history.append(state)

    def read(self) -> LedState:
        return self.state

    def close(self) -> None:
        self.closed = True
