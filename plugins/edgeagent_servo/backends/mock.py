"""In-memory servo for tests and tools-only runs; it records every angle it was sent.

A behavioural mock: like the hardware, it refuses to be driven once closed.
"""

from __future__ import annotations

from edgeagent.plugin import HardwareError


class MockServo:
    name = "mock"

    def __init__(self, angle: float | None = 0.0) -> None:
        self.angle: float | None = angle
        self.history: list[float] = []
        self.closed = False

    def move_to(self, angle: float) -> None:
        if self.closed:
            raise HardwareError("the servo is closed")
        self.angle = angle
        self.history.append(angle)

    def read(self) -> float | None:
        if self.closed:
            raise HardwareError("the servo is closed")
        return self.angle

    def close(self) -> None:
        self.closed = True
