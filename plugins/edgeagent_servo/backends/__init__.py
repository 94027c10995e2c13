"""Servo backends behind one seam; ``open_backend`` is the only place that picks one.

``real`` never falls back to ``sim``: a machine without GPIO fails loudly with what to
install or enable.
"""

from __future__ import annotations

from typing import Any, Protocol

from edgeagent_servo.options import ServoOptions


class ServoBackend(Protocol):
    """Drives one servo. ``read`` is the current angle, ``None`` while it is unknown (a
    real servo has no position feedback until it has been set once)."""

    name: str

    def move_to(self, angle: float) -> None:
        """Move, hold for the settle time, then stop driving the servo."""

    def read(self) -> float | None: ...

    def close(self) -> None: ...


def open_backend(
    options: ServoOptions, *, simulator_url: str, pin_factory: Any = None
) -> ServoBackend:
    if options.backend == "mock":
        from edgeagent_servo.backends.mock import MockServo

        return MockServo()
    if options.backend == "sim":
        from edgeagent_servo.backends.sim import SimServo

        return SimServo(simulator_url, timeout_s=options.timeout_s)
    if options.driver == "sysfs":
        from edgeagent_servo.backends.sysfs import SysfsServo

        return SysfsServo.open(options)
    from edgeagent_servo.backends.gpiozero_servo import GpiozeroServo

    return GpiozeroServo.open(options, pin_factory=pin_factory)
