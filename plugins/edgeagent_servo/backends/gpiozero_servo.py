"""A hobby servo through gpiozero's AngularServo (lgpio pin factory on a Pi 5).

After each move the pulse is held for ``settle_s`` and then the servo is detached:
software PWM jitters, and a detached servo holds its position quietly.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from edgeagent.plugin import HardwareError
from edgeagent_servo.options import ServoOptions


class GpiozeroServo:
    name = "gpiozero"

    def __init__(
        self, servo: Any, *, settle_s: float, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.servo = servo
        self.settle_s = settle_s
        self._sleep = sleep
        self._angle: float | None = None

    @classmethod
    def check(
        cls, options: ServoOptions, *, dev_dir: Path = Path("/dev"), pin_factory: Any = None
    ) -> None:
        """gpiozero installed, and GPIO to drive: a GPIO chip, or a pin factory chosen by
        ``pin_factory`` or $GPIOZERO_PIN_FACTORY (remote or mock pins). Claims no pin."""
        try:
            import gpiozero  # noqa: F401 -- only whether it is there
        except ImportError:
            raise HardwareError(
                "servo backend 'real' needs gpiozero, which is not installed: run "
                "`pip install gpiozero lgpio` (or edgeagent[hardware]), or use "
                'backend = "sim" without hardware'
            ) from None
        chosen = pin_factory is not None or os.environ.get("GPIOZERO_PIN_FACTORY")
        if not chosen and not any(dev_dir.glob("gpiochip*")):
            raise HardwareError(
                f"cannot drive a servo on GPIO{options.pin}: this machine has no GPIO chip "
                f"({dev_dir}/gpiochip*). On a Pi, install lgpio (`sudo apt install "
                f"python3-lgpio` or `pip install lgpio`) and add this user to the gpio group; "
                f'elsewhere use backend = "sim"'
            )

    @classmethod
    def open(
        cls,
        options: ServoOptions,
        *,
        pin_factory: Any = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> GpiozeroServo:
        cls.check(options, pin_factory=pin_factory)
        from gpiozero import AngularServo
        from gpiozero.exc import GPIOZeroError, PinFactoryFallback

        with warnings.catch_warnings(record=True) as fallbacks:
            # gpiozero warns once per pin factory it cannot load; fold those reasons
            # into one error instead of printing a stack of warnings.
            warnings.simplefilter("always", PinFactoryFallback)
            try:
                servo = cls._angular_servo(AngularServo, options, pin_factory)
            except (GPIOZeroError, OSError, RuntimeError, ImportError) as exc:
                tried = "; ".join(str(w.message) for w in fallbacks)
                raise HardwareError(
                    f"cannot drive a servo on GPIO{options.pin}: {type(exc).__name__}: {exc}"
                    f"{f' ({tried})' if tried else ''}. On a Pi, install lgpio (`sudo apt "
                    f"install python3-lgpio` or `pip install lgpio`) and add this user to the "
                    f'gpio group; elsewhere use backend = "sim"'
                ) from None
        return cls(servo, settle_s=options.settle_s, sleep=sleep)

    @staticmethod
    def _angular_servo(angular_servo: Any, options: ServoOptions, pin_factory: Any) -> Any:
        return angular_servo(
            options.pin,
            initial_angle=None,  # stay detached until the first move
            min_angle=options.min_angle,
            max_angle=options.max_angle,
            min_pulse_width=options.min_pulse_us / 1e6,
            max_pulse_width=options.max_pulse_us / 1e6,
            frame_width=options.frame_us / 1e6,
            pin_factory=pin_factory,
        )

    def move_to(self, angle: float) -> None:
        if self.servo is None:
            raise HardwareError("the servo is closed")
        self.servo.angle = angle
        self._sleep(self.settle_s)
        self.servo.detach()
        self._angle = angle

    def read(self) -> float | None:
        if self.servo is None:
            raise HardwareError("the servo is closed")
        return self._angle

    def close(self) -> None:
        servo, self.servo = self.servo, None
        if servo is not None:
            servo.close()
