"""The ``led`` and ``led_state`` tools, bound to one strip backend."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from edgeagent.plugin import BUSY_WAIT_S, DeviceLock, LazyDevice, ToolArgumentError, tool
from edgeagent_led.backends import LedBackend
from edgeagent_led.strip import BLACK, OFF_COLORS, LedState, to_hex

BLINK_PERIOD_S = 0.5
PULSE_STEP_S = 0.05
PULSE_PERIOD_S = 1.0
CLOSE_WAIT_S = 1.0
"""At shutdown, how long the safe state waits for a running command (an effect stops at
its next step) before darkening the strip regardless."""
WHITE = "#ffffff"
BRIGHTNESS_WORDS = {
    "off": 0, "min": 1, "minimum": 1, "lowest": 1, "dimmest": 1,
    "half": 50, "max": 100, "maximum": 100, "full": 100, "brightest": 100,
}  # fmt: skip


def brightness_word(value: Any) -> Any:
    """``minimum`` -> 1, ``max`` -> 100, ``30%`` -> ``30``, ``off`` -> 0; a number 0 -> 1.

    Measured: Qwen2.5-Coder writes 0 for "the minimum", "the lowest setting" and with a
    colour ("dark blue"); a person meant dim, not off. Only the word "off" is off.
    """
    if isinstance(value, int | float) and not isinstance(value, bool) and value == 0:
        return 1
    if not isinstance(value, str):
        return value
    text = value.strip().lower().removesuffix("%").strip()
    return BRIGHTNESS_WORDS.get(text, text)


def lit(state: LedState, *, keep_pixels: bool) -> LedState:
    """``state`` switched on so that it gives light: a strip whose pixels are all black
    turns white (a person saying "on" expects light), a zero level becomes 100 %."""
    if not keep_pixels and all(p == BLACK for p in state.pixels):
        state = replace(state, pixels=(WHITE,) * len(state.pixels))
    return replace(state, on=True, brightness=state.brightness or 100)


def led_answer(result: dict[str, Any]) -> str:
    """The ``led`` result as one sentence, e.g. The LED strip is now red at 30% brightness."""
    if not result["on"]:
        return "The LED strip is now off."
    text = f"The LED strip is now {_looks(result)}"
    return f"{text} (after a {result['effect']})." if "effect" in result else f"{text}."


def led_state_answer(result: dict[str, Any]) -> str:
    """The ``led_state`` result, e.g. The LED strip is on: red at 30% brightness."""
    return f"The LED strip is on: {_looks(result)}." if result["on"] else "The LED strip is off."


def _looks(result: dict[str, Any]) -> str:
    level = f"{result['brightness']}% brightness"
    if "color" in result:
        return f"{result['color']} at {level}"
    runs = ", ".join(run.replace(":", "") for run in result["pixels"])
    return f"at {level} with pixels {runs}"


class LedController:
    """Holds the strip backend; its two marked methods are the plugin's tools."""

    def __init__(
        self,
        *,
        backend: LedBackend | LazyDevice[LedBackend],
        count: int,
        effect_s: float = 3.0,
        sleep: Callable[[float], None] = time.sleep,
        busy_wait_s: float = BUSY_WAIT_S,
    ) -> None:
        """``backend``: the plugin passes a :class:`LazyDevice` (opened by the first
        command); tests and embedders may pass an open backend."""
        if not isinstance(backend, LazyDevice):
            backend = LazyDevice.of(backend, device="LED strip")
        self.device = backend
        self.count = count
        self.effect_s = effect_s
        self._sleep = sleep
        self._lock = DeviceLock("LED", wait_s=busy_wait_s)  # one change at a time
        self._closed = False
        self._before: LedState | None = None
        """The strip's state before its last change (:meth:`before`)."""

    @tool(
        kind="act",
        timeout_s=10.0,
        answer=led_answer,
        title="the LED strip (lights, lamp, colors, brightness)",
        idempotent=True,  # it sets a state; an effect ends on the same one
    )
    def led(
        self,
        on: Annotated[bool | None, Field(description="on/off")] = None,
        color: Annotated[
            str | None, Field(description="CSS name or #rrggbb; 'off' turns it off")
        ] = None,
        brightness: Annotated[
            int | None,
            Field(ge=0, le=100, description="percent; 0 and 1 = dimmest"),
            BeforeValidator(brightness_word),  # after Field, so the schema keeps 0-100
        ] = None,
        first: Annotated[int | None, Field(ge=0, description="first pixel; default all")] = None,
        last: Annotated[int | None, Field(ge=0, description="last pixel")] = None,
        effect: Annotated[
            Literal["blink", "pulse"] | None, Field(description="brief animation")
        ] = None,
    ) -> dict[str, Any]:
        """Set the LED strip (color: CSS name, #rrggbb or off; brightness 1-100; off:
        on=false); give only what changes."""
        if color is None and (first is not None or last is not None):
            raise ToolArgumentError("first/last select pixels for a color; give color too")
        whole = first is None and last is None
        dark = color is not None and color.strip().lower() in OFF_COLORS
        with self._lock.held():
            backend = self.device.get()
            state = was = backend.read()
            if color is not None and not (dark and whole):
                lo, hi = self._range(first, last)
                state = state.with_color(BLACK if dark else to_hex(color), lo, hi)
            if brightness:  # 0 is only ever the word "off": the level is kept for "on"
                state = replace(state, brightness=brightness)
            if (dark and whole) or brightness == 0 or on is False:
                state = replace(state, on=False)
            elif on or color is not None or brightness:
                state = lit(state, keep_pixels=color is not None)
            if effect is not None:
                self._effect(backend, effect, state)
            backend.write(state)
            if state != was:  # written: "undo that last change to the light" is ``was``
                self._before = was
            result = state.summary()
            if effect is not None:
                result["effect"] = f"{effect} for {self.effect_s:g} s"
            return result

    @tool(
        kind="read",
        answer=led_state_answer,
        title=(
            "whether the lights (the LED strip, the lamp) are on, and their color and "
            "brightness now"
        ),
    )
    def led_state(self) -> dict[str, Any]:
        """Read the LED strip (on, color, brightness)."""
        return self.state().summary()

    def state(self) -> LedState:
        """The strip's state now (the strip opened if it was not)."""
        with self._lock.held():
            return self.device.get().read()

    def before(self) -> LedState | None:
        """The strip's state before the last ``led`` call that changed it; ``None``
        before the first (the strip is not opened)."""
        return self._before

    def _range(self, first: int | None, last: int | None) -> tuple[int, int]:
        end = self.count - 1
        lo = 0 if first is None else first
        hi = (end if first is None else lo) if last is None else last
        if lo == 0 and hi > end:
            hi = end  # "first": 0, "last": 100 for "the strip": all of it
        if hi > end or lo > hi:
            raise ToolArgumentError(
                f"pixels {lo}-{hi} are not on the strip; expected 0 <= first <= last <= {end}"
            )
        return lo, hi

    def _effect(self, backend: LedBackend, effect: str, final: LedState) -> None:
        """Animate for ``effect_s`` (bounded by the options), ending on ``final``."""
        deadline = time.monotonic() + self.effect_s
        steps = 0
        if effect == "blink":
            steps = max(1, round(self.effect_s / BLINK_PERIOD_S))
            for _ in range(steps):
                backend.write(replace(final, on=False))
                self._sleep(BLINK_PERIOD_S / 2)
                backend.write(replace(final, on=True))
                self._sleep(BLINK_PERIOD_S / 2)
                if time.monotonic() > deadline or self._closed:
                    break
            return
        steps = max(1, round(self.effect_s / PULSE_STEP_S))
        peak = final.brightness or 100
        for i in range(steps):
            phase = (i * PULSE_STEP_S / PULSE_PERIOD_S) % 1.0
            level = round(peak * (0.55 + 0.45 * math.cos(2 * math.pi * phase)))
            backend.write(replace(final, on=True, brightness=level))
            self._sleep(PULSE_STEP_S)
            if time.monotonic() > deadline or self._closed:
                break

    def close(self) -> None:
        """Safe state: the strip dark, then the backend released; a strip that was never
        opened is left as it is. Idempotent."""
        if self._closed:
            return
        self._closed = True  # a running effect stops at its next step
        self.device.close(self._darken)

    def _darken(self, backend: LedBackend) -> None:
        with self._lock.held_if_free_within(CLOSE_WAIT_S):
            backend.write(LedState.dark(self.count))
