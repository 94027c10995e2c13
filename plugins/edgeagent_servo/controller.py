"""The ``servo`` and ``servo_state`` tools, bound to one servo backend."""

from __future__ import annotations

import threading
from typing import Annotated, Any

from pydantic import Field

from edgeagent.errors import ToolArgumentError, ToolError
from edgeagent.tools import tool
from edgeagent_servo.backends import ServoBackend


class ServoController:
    """Holds the servo backend; its two marked methods are the plugin's tools."""

    def __init__(
        self, *, backend: ServoBackend, min_angle: float = -90, max_angle: float = 90
    ) -> None:
        self.backend = backend
        self.min_angle = min_angle
        self.max_angle = max_angle
        self._lock = threading.Lock()
        self._closed = False

    @tool(kind="act", timeout_s=10.0)
    def servo(
        self,
        angle: Annotated[float | None, Field(description="degrees -90..90, 0 = center")] = None,
        move: Annotated[
            float | None, Field(description="relative degrees; negative = left")
        ] = None,
    ) -> dict[str, Any]:
        """Turn the servo to angle -90..90 (0 = center) or move it by relative degrees;
        negative = left."""
        if (angle is None) == (move is None):
            raise ToolArgumentError("give either angle (absolute) or move (relative), not both")
        with self._lock:
            if move is not None:
                current = self.backend.read()
                if current is None:
                    raise ToolError(
                        "the servo's angle is unknown until it has been set once; "
                        "give an absolute angle first"
                    )
                target = current + move
            else:
                assert angle is not None
                target = angle
            clamped = min(self.max_angle, max(self.min_angle, target))
            self.backend.move_to(clamped)
            result: dict[str, Any] = {"angle": _tidy(clamped)}
            if clamped != target:
                result["note"] = f"clamped to {_tidy(clamped)} (asked {_tidy(target)})"
            return result

    @tool(kind="read")
    def servo_state(self) -> dict[str, Any]:
        """Read the servo angle."""
        with self._lock:
            current = self.backend.read()
        if current is None:
            return {"angle": None, "note": "unknown until the servo is first moved"}
        return {"angle": _tidy(current)}

    def close(self) -> None:
        """Safe state: stop driving the servo (backends detach after each move). Idempotent."""
        if not self._closed:
            self._closed = True
            self.backend.close()


def _tidy(angle: float) -> float | int:
    """90.0 -> 90, 12.345 -> 12.3: short numbers for the model to read."""
    rounded = round(angle, 1)
    return int(rounded) if rounded == int(rounded) else rounded
