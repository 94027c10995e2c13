"""The ``led`` and ``led_state`` tools, bound to one strip backend."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import Field

from edgeagent.errors import ToolArgumentError
from edgeagent.tools import tool
from edgeagent_led.backends import LedBackend
from edgeagent_led.strip import LedState, to_hex

BLINK_PERIOD_S = 0.5
PULSE_STEP_S = 0.05
PULSE_PERIOD_S = 1.0


class LedController:
    """Holds the strip backend; its two marked methods are the plugin's tools."""

    def __init__(
        self,
        *,
        backend: LedBackend,
        count: int,
        effect_s: float = 3.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.backend = backend
        self.count = count
        self.effect_s = effect_s
        self._sleep = sleep
        self._lock = threading.Lock()  # one change at a time, effects included
        self._closed = False

    @tool(kind="act", timeout_s=10.0)
    def led(
        self,
        on: Annotated[bool | None, Field(description="on/off")] = None,
        color: Annotated[str | None, Field(description="CSS name or #rrggbb")] = None,
        brightness: Annotated[int | None, Field(ge=0, le=100, description="percent")] = None,
        first: Annotated[int | None, Field(ge=0, description="first pixel; default all")] = None,
        last: Annotated[int | None, Field(ge=0, description="last pixel")] = None,
        effect: Annotated[
            Literal["blink", "pulse"] | None, Field(description="brief animation")
        ] = None,
    ) -> dict[str, Any]:
        """Set the LED strip (color: CSS name or #rrggbb); give only what changes."""
        with self._lock:
            state = self.backend.read()
            if color is not None:
                lo, hi = self._range(first, last)
                state = state.with_color(to_hex(color), lo, hi)
            elif first is not None or last is not None:
                raise ToolArgumentError("first/last select pixels for a color; give color too")
            if brightness is not None:
                state = replace(state, brightness=brightness)
            if on is not None:
                state = replace(state, on=on)
            elif color is not None or (brightness or 0) > 0:
                state = replace(state, on=True)  # "make it red" means light it up
            if effect is not None:
                self._effect(effect, state)
            self.backend.write(state)
            result = state.summary()
            if effect is not None:
                result["effect"] = f"{effect} for {self.effect_s:g} s"
            return result

    @tool(kind="read")
    def led_state(self) -> dict[str, Any]:
        """Read the LED strip (on, color, brightness)."""
        with self._lock:
            return self.backend.read().summary()

    def _range(self, first: int | None, last: int | None) -> tuple[int, int]:
        end = self.count - 1
        lo = 0 if first is None else first
        hi = (end if first is None else lo) if last is None else last
        if hi > end or lo > hi:
            raise ToolArgumentError(
                f"pixels {lo}-{hi} are not on the strip; expected 0 <= first <= last <= {end}"
            )
        return lo, hi

    def _effect(self, effect: str, final: LedState) -> None:
        """Animate for ``effect_s`` (bounded by the options), ending on ``final``."""
        deadline = time.monotonic() + self.effect_s
        steps = 0
        if effect == "blink":
            steps = max(1, round(self.effect_s / BLINK_PERIOD_S))
            for _ in range(steps):
                self.backend.write(replace(final, on=False))
                self._sleep(BLINK_PERIOD_S / 2)
                self.backend.write(replace(final, on=True))
                self._sleep(BLINK_PERIOD_S / 2)
                if time.monotonic() > deadline:
                    break
            return
        steps = max(1, round(self.effect_s / PULSE_STEP_S))
        peak = final.brightness or 100
        for i in range(steps):
            phase = (i * PULSE_STEP_S / PULSE_PERIOD_S) % 1.0
            level = round(peak * (0.55 + 0.45 * math.cos(2 * math.pi * phase)))
            self.backend.write(replace(final, on=True, brightness=level))
            self._sleep(PULSE_STEP_S)
            if time.monotonic() > deadline:
                break

    def close(self) -> None:
        """Safe state: the strip dark, then the backend released. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            self.backend.write(LedState.dark(self.count))
        finally:
            self.backend.close()
