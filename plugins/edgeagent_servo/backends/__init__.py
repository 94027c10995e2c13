"""Servo backends behind one seam: :data:`BACKENDS` is the only place that picks one.

``[plugins.servo] backend`` chooses ``real``, ``sim`` or ``mock``; for ``real``,
``driver`` chooses how the pulses are made (:data:`REAL_DRIVERS`). Each is opened on the
first tool call, never while the plugin loads (a GPIO pin claimed by ``config check``
would be refused to the running daemon). ``real`` never falls back to ``sim``: a
machine without GPIO fails loudly with what to install or enable.
"""

from __future__ import annotations

from typing import Literal, Protocol

from edgeagent.plugin import Backend, Backends, PluginContext
from edgeagent_servo.options import ServoOptions


class ServoBackend(Protocol):
    """Drives one servo. ``read`` is the current angle, ``None`` while it is unknown (a
    real servo has no position feedback until it has been set once). After ``close``
    (idempotent), ``move_to`` raises :class:`HardwareError`."""

    name: str

    def move_to(self, angle: float) -> None:
        """Move, hold for the settle time, then stop driving the servo."""

    def read(self) -> float | None: ...

    def close(self) -> None: ...


def _open_mock(options: ServoOptions, context: PluginContext) -> ServoBackend:
    from edgeagent_servo.backends.mock import MockServo

    return MockServo()


def _open_sim(options: ServoOptions, context: PluginContext) -> ServoBackend:
    from edgeagent_servo.backends.sim import SimServo

    return SimServo(context.simulator_url, timeout_s=options.timeout_s)


def _check_gpiozero(options: ServoOptions) -> None:
    from edgeagent_servo.backends.gpiozero_servo import GpiozeroServo

    GpiozeroServo.check(options)


def _open_gpiozero(options: ServoOptions, context: PluginContext) -> ServoBackend:
    from edgeagent_servo.backends.gpiozero_servo import GpiozeroServo

    return GpiozeroServo.open(options)


def _check_sysfs(options: ServoOptions) -> None:
    from edgeagent_servo.backends.sysfs import SysfsServo

    SysfsServo.check(options)


def _open_sysfs(options: ServoOptions, context: PluginContext) -> ServoBackend:
    from edgeagent_servo.backends.sysfs import SysfsServo

    return SysfsServo.open(options)


REAL_DRIVERS: dict[Literal["gpiozero", "sysfs"], Backend[ServoOptions, ServoBackend]] = {
    "gpiozero": Backend(
        open=_open_gpiozero,
        check=_check_gpiozero,
        about=lambda o, _: f"GPIO{o.pin} through gpiozero",
        hardware=True,
    ),
    "sysfs": Backend(
        open=_open_sysfs,
        check=_check_sysfs,
        about=lambda o, _: f"hardware PWM {o.pwm_root}/pwmchip{o.pwm_chip}/pwm{o.pwm_channel}",
        hardware=True,
    ),
}


def _real(options: ServoOptions) -> Backend[ServoOptions, ServoBackend]:
    return REAL_DRIVERS[options.driver]


BACKENDS: Backends[ServoOptions, ServoBackend] = Backends(
    "servo",
    {
        "real": Backend(
            open=lambda o, c: _real(o).open(o, c),
            check=lambda o: _real(o).check(o),
            about=lambda o, c: _real(o).about(o, c),
            hardware=True,
        ),
        "sim": Backend(
            open=_open_sim,
            about=lambda o, c: f"the simulator at {c.simulator_url} (run `edgeagent sim`)",
        ),
        "mock": Backend(open=_open_mock, about=lambda o, _: "in memory (nothing moves)"),
    },
)
"""``[plugins.servo] backend`` -> how the servo is reached."""
