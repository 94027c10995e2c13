"""The ``servo`` and ``servo_state`` tools, bound to one servo backend.

The arguments mirror what people say: ``angle`` is a position ("point it at 30°"),
``left``/``right`` are turns from where it is ("30 degrees to the left"). A small model
maps words onto argument names far better than onto signs, so the sign convention
(negative = left) stays inside this module.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from edgeagent.plugin import BUSY_WAIT_S, DeviceLock, LazyDevice, ToolArgumentError, ToolError, tool
from edgeagent_servo.backends import ServoBackend


def servo_answer(result: dict[str, Any]) -> str:
    """``{"angle": -30}`` -> "The servo is now at -30°." (with the clamp note if any)."""
    text = f"The servo is now at {result['angle']}°"
    return f"{text}; {result['note']}." if "note" in result else f"{text}."


def servo_state_answer(result: dict[str, Any]) -> str:
    """``{"angle": 20}`` -> "The servo is at 20°."."""
    if result.get("angle") is None:
        return f"The servo's angle is {result.get('note', 'unknown')}."
    return f"The servo is at {result['angle']}°."


class ServoController:
    """Holds the servo backend; its two marked methods are the plugin's tools."""

    def __init__(
        self,
        *,
        backend: ServoBackend | LazyDevice[ServoBackend],
        min_angle: float = -90,
        max_angle: float = 90,
        busy_wait_s: float = BUSY_WAIT_S,
    ) -> None:
        """``backend``: the plugin passes a :class:`LazyDevice` (opened by the first
        command); tests and embedders may pass an open backend."""
        if not isinstance(backend, LazyDevice):
            backend = LazyDevice.of(backend, device="servo")
        self.device = backend
        self.min_angle = min_angle
        self.max_angle = max_angle
        self._lock = DeviceLock("servo", wait_s=busy_wait_s)
        self._closed = False

    @tool(
        kind="act",
        timeout_s=10.0,
        answer=servo_answer,
        title="the servo that turns the camera (angles, left, right)",
    )
    def servo(
        self,
        angle: Annotated[
            float | None, Field(description="absolute position -90..90; 0 = center, <0 = left")
        ] = None,
        left: Annotated[float | None, Field(description="degrees to turn left")] = None,
        right: Annotated[float | None, Field(description="degrees to turn right")] = None,
    ) -> dict[str, Any]:
        """Point the servo/camera: angle = absolute -90..90 (0 = center); left/right = turn
        by that many degrees."""
        turns = {k: v for k, v in (("left", left), ("right", right)) if v}  # 0 = no turn
        chosen = ({"angle": angle} if angle is not None else {}) | turns
        if len(chosen) > 1 or (not chosen and left is None and right is None):
            shown = ", ".join(f"{k}={v:g}" for k, v in chosen.items()) or "nothing"
            raise ToolArgumentError(
                f"servo needs exactly one of angle (absolute position), left or right "
                f'(degrees to turn), got {shown}; e.g. {{"left": 30}} or {{"angle": 0}}'
            )
        negative = next((v for v in turns.values() if v < 0), None)
        if angle is None and negative is not None:
            # Measured: Qwen2.5-Coder writes "to -45" and "to minus seventy-five" as
            # left=-45 / left=-75. A turn has no sign; a negative number is a position.
            angle = negative
        with self._lock.held():
            backend = self.device.get()
            if angle is not None:
                target = angle
            else:
                current = backend.read()
                if current is None:
                    raise ToolError(
                        "the servo's angle is unknown until it has been set once; "
                        "give an absolute angle first"
                    )
                target = current - (left or 0) + (right or 0)
            clamped = min(self.max_angle, max(self.min_angle, target))
            backend.move_to(clamped)
            result: dict[str, Any] = {"angle": _tidy(clamped)}
            if clamped != target:
                result["note"] = f"clamped to {_tidy(clamped)} (asked {_tidy(target)})"
            return result

    @tool(kind="read", answer=servo_state_answer)
    def servo_state(self) -> dict[str, Any]:
        """Read the servo angle."""
        with self._lock.held():
            current = self.device.get().read()
        if current is None:
            return {"angle": None, "note": "unknown until the servo is first moved"}
        return {"angle": _tidy(current)}

    def close(self) -> None:
        """Safe state: stop driving the servo (backends detach after each move); a servo
        that was never opened is left as it is. Idempotent."""
        if not self._closed:
            self._closed = True
            self.device.close()


def _tidy(angle: float) -> float | int:
    """90.0 -> 90, 12.345 -> 12.3: short numbers for the model to read."""
    rounded = round(angle, 1)
    return int(rounded) if rounded == int(rounded) else rounded
