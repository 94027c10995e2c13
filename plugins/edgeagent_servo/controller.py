"""The ``servo`` and ``servo_state`` tools, bound to one servo backend.

The arguments mirror what people say: ``angle`` is a position ("point it at 30°"),
``left_of_center``/``right_of_center`` are positions said from the center ("20 degrees
left of center"), ``left``/``right`` are turns from where it is ("30 degrees to the
left") and ``by`` is a signed turn ("by -20 degrees"). A small model maps words onto
argument names far better than onto signs, so the sign convention (negative = left)
stays inside this module: measured on fresh servo requests, "N left of center" went to
``left`` (a turn) 7 times of 7 until it had its own name; given those names, "center
it" came as ``{"center": true}``, which is now one too. ``back`` returns to where the
servo was before its last move ("put it back where it was", "undo that move"): asked
that, the model turned the LED off, or wrote the undone move's size as a position.
"""

from __future__ import annotations

import math
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
        self._before: float | None = None
        """Where the servo was before its last move: what ``back`` returns to."""
        self._aimed = False
        """Whether the last move went to a position (an angle, the center, back), not by
        a turn."""

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
        left_of_center: float | None = None,
        right_of_center: float | None = None,
        by: float | None = None,
        center: bool = False,
        back: bool = False,
    ) -> dict[str, Any]:
        """Point the servo/camera: angle = absolute -90..90 (0 = center); left/right = turn
        by that many degrees; left_of_center/right_of_center = position; by = signed turn
        (<0 = left); center = true points it straight ahead; back = true undoes the last
        move."""
        if back:
            return self._back(by, angle, left, right, left_of_center, right_of_center, center)
        target, turn = aim(
            angle=angle,
            left=left,
            right=right,
            left_of_center=left_of_center,
            right_of_center=right_of_center,
            by=by,
            center=center,
        )
        self._reachable(target, turn)
        with self._lock.held():
            backend = self.device.get()
            current = backend.read()
            if target is None:
                if current is None:
                    raise ToolError(
                        "the servo's angle is unknown until it has been set once; "
                        "give an absolute angle first"
                    )
                target = current + turn
            return self._move(backend, target, current, aimed=turn == 0)

    def _reachable(self, target: float | None, turn: float) -> None:
        """Refuse a position off the servo's range, or a turn longer than the range.

        "spin the camera round so it faces the moon" came as ``angle: 180`` and "three
        full turns" as ``angle: 360``: clamped, the servo moved to its end for a request
        it cannot serve. A turn that only runs past an end ("110 degrees to the left"
        from 55) still goes as far as it can."""
        span = self.max_angle - self.min_angle
        if target is not None and not self.min_angle <= target <= self.max_angle:
            raise ToolError(
                f"the servo points only from {_tidy(self.min_angle)} to "
                f"{_tidy(self.max_angle)} degrees (0 = center), not {_tidy(target)}; "
                f"nothing moved"
            )
        if abs(turn) > span:
            raise ToolError(
                f"the servo turns at most {_tidy(span)} degrees end to end, not "
                f"{_tidy(abs(turn))}; nothing moved"
            )

    def _back(self, by: float | None, *given: float | bool | None) -> dict[str, Any]:
        """``back``: the position before the last move; with ``by``, that many degrees
        towards it ("come back fifteen degrees"). A small model fills what it does not
        mean with 0 or false, so those are ignored."""
        if any(given):
            raise ToolArgumentError(
                "servo got back=true and a position or turn; give back alone to return "
                "to where it was before the last move (with by = degrees to go only part "
                "of the way), or the position or turn alone"
            )
        with self._lock.held():
            if self._before is None:
                raise ToolError(
                    "the servo has not moved since edgeagent started, so there is no "
                    'earlier position to go back to; give an angle, e.g. {"angle": 0}'
                )
            backend = self.device.get()
            current = backend.read()
            if not by or current is None or current == self._before:
                return self._move(backend, self._before, current, aimed=True)
            turn = math.copysign(by, self._before - current)
            return self._move(backend, current + turn, current, aimed=False)

    def _move(
        self, backend: ServoBackend, target: float, before: float | None, *, aimed: bool
    ) -> dict[str, Any]:
        """Move from ``before`` to ``target`` clamped to the servo's range (the lock
        held), remembering where it was for ``back`` and whether it was ``aimed`` at a
        position rather than turned."""
        clamped = min(self.max_angle, max(self.min_angle, target))
        backend.move_to(clamped)
        if before is not None and before != clamped:
            self._before, self._aimed = before, aimed
        result: dict[str, Any] = {"angle": _tidy(clamped)}
        if clamped != target:
            result["note"] = f"clamped to {_tidy(clamped)} (asked {_tidy(target)})"
        return result

    def last_turn(self) -> float | None:
        """How far the last move turned the servo (negative = left): from where it was
        before it (``back``) to where it is; ``None`` before any move."""
        if self._before is None:
            return None
        with self._lock.held():
            now = self.device.get().read()
        return None if now is None else _tidy(now - self._before)

    def last_turn_turned(self) -> float | None:
        """:meth:`last_turn` where the last move was a turn (left, right, by), ``None``
        where it went to a position: "no, the other way" after "aim the camera at 60
        degrees" (from -40) meant -60, the model wrote it, and the turn of 100 mirrored
        took the servo back to -40 (fresh69)."""
        return None if self._aimed else self.last_turn()

    # Titled so a refused "where's the camera looking right now?" gets a second look
    # that may read it (two blind prompt sets), and a call for "did I leave the iron
    # on?" faces the topic question.
    @tool(
        kind="read",
        answer=servo_state_answer,
        title="the camera servo now: its angle, where it points",
    )
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


def aim(
    *,
    angle: float | None = None,
    left: float | None = None,
    right: float | None = None,
    left_of_center: float | None = None,
    right_of_center: float | None = None,
    by: float | None = None,
    center: bool = False,
) -> tuple[float | None, float]:
    """Where the servo's arguments point it: ``(position, 0)``, or ``(None, turn)`` for
    a turn from where it points now (negative = left).

    A small model fills the arguments it does not mean with 0, so zeros are ignored
    where another argument says more. ``center`` with a turn ("60 degrees left from
    center" came as ``{"left": 60, "center": true}``) is a position from center."""
    for name, value in (("left_of_center", left_of_center), ("right_of_center", right_of_center)):
        if value is not None and value < 0:
            raise ToolArgumentError(
                f"{name} takes degrees from center, 0..90, got {value:g}; "
                f'for a signed position give angle, e.g. {{"angle": {value:g}}}'
            )
    placed = {
        name: value
        for name, value in (
            ("angle", angle),
            ("left_of_center", None if left_of_center is None else -left_of_center),
            ("right_of_center", right_of_center),
        )
        if value is not None
    }
    if len(placed) > 1:
        placed = {k: v for k, v in placed.items() if v} or {"angle": 0.0}
    turns = {k: v for k, v in (("left", left), ("right", right), ("by", by)) if v}
    turn = (right or 0) - (left or 0) + (by or 0)
    # Measured: Qwen2.5-Coder writes "to -45" and "to minus seventy-five" as left=-45 /
    # left=-75. A left/right turn has no sign; a negative number there is a position
    # ("by -30" has its own argument).
    negative = next((v for k, v in turns.items() if k != "by" and v < 0), None)
    if center:
        if any(placed.values()):
            shown = ", ".join(f"{k}={_given(k, v):g}" for k, v in placed.items())
            raise ToolArgumentError(
                f"servo got center=true and a position ({shown}); give one of them"
            )
        return (negative if negative is not None else turn), 0.0
    chosen = placed | turns
    if not chosen and (left, right, by) != (None, None, None):
        # "move the camera into the kitchen" came as {"left": 0}, answered "The servo is
        # now at 0°": a move that moves nothing, for a request no move serves.
        raise ToolArgumentError(
            "servo got a turn of 0°, which moves nothing; give the degrees to turn, e.g. "
            '{"left": 30}, or a position, e.g. {"angle": 0}'
        )
    if len(chosen) > 1 or not chosen:
        shown = ", ".join(f"{k}={_given(k, v):g}" for k, v in chosen.items()) or "nothing"
        raise ToolArgumentError(
            f"servo needs exactly one of angle, left_of_center or right_of_center (a "
            f"position), or left, right or by (a turn), got {shown}; "
            f'e.g. {{"left": 30}} or {{"angle": 0}}'
        )
    position = next(iter(placed.values()), negative)
    return (position, 0.0) if position is not None else (None, turn)


def _given(name: str, value: float) -> float:
    """An argument as the model wrote it (left_of_center is kept negated inside)."""
    return -value if name == "left_of_center" else value


def _tidy(angle: float) -> float | int:
    """90.0 -> 90, 12.345 -> 12.3: short numbers for the model to read."""
    rounded = round(angle, 1)
    return int(rounded) if rounded == int(rounded) else rounded
