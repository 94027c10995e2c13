"""In-memory servo for tests and tools-only runs; it records every angle it was sent."""

from __future__ import annotations


class MockServo:
    name = "mock"

    def __init__(self, angle: float = 0.0) -> None:
        self.angle: float | None = angle
        self.history: list[float] = []
        self.closed = False

    def move_to(self, angle: float) -> None:
        self.angle = angle
        self.history.append(angle)

    def read(self) -> float | None:
        return self.angle

    def close(self) -> None:
        self.closed = True
