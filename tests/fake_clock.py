"""A clock for code that takes ``clock=``: it stands still until the test moves it."""

from __future__ import annotations


class FakeClock:
    """Monotonic seconds; ``clock.now += 61`` is a minute and a second later."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
