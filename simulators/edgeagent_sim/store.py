"""The simulated devices' state: validated updates, a JSON state file, change feeds.

One :class:`DeviceStore` per app (in ``app.extensions``), never a module global. Every
change bumps ``version``, is written to the state file (atomically, so a crash never
leaves half a file) and is pushed to each Server-Sent-Events subscriber's queue.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import re
import threading
from pathlib import Path
from typing import Any

import webcolors
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

log = logging.getLogger(__name__)

HEX = re.compile(r"^#[0-9a-f]{6}$")
MAX_PIXELS = 1024
CLOSED = None  # what a subscriber queue receives when the store shuts down


def to_hex(color: str) -> str:
    """``red``, ``#F00`` or ``#ff0000`` -> ``#ff0000``; ValueError names the bad value."""
    text = color.strip().lower()
    try:
        if text.startswith("#"):
            return str(webcolors.normalize_hex(text))
        return str(webcolors.name_to_hex(text))
    except ValueError:
        raise ValueError(
            f"unknown color {color!r}; use a CSS color name like 'red' or '#rrggbb'"
        ) from None


class LedUpdate(BaseModel):
    """A change to the strip; every field is optional, only what is given changes."""

    model_config = ConfigDict(extra="forbid")

    on: bool | None = None
    brightness: int | None = Field(None, ge=0, le=100)
    pixels: list[str] | None = Field(None, min_length=1, max_length=MAX_PIXELS)
    color: str | None = None
    first: int | None = Field(None, ge=0)
    last: int | None = Field(None, ge=0)

    @field_validator("pixels")
    @classmethod
    def _pixels_hex(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else [to_hex(p) for p in value]

    @field_validator("color")
    @classmethod
    def _color_hex(cls, value: str | None) -> str | None:
        return None if value is None else to_hex(value)


class ServoUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    angle: float = Field(ge=-90, le=90)


def describe(exc: ValidationError) -> str:
    """``brightness: must be 0-100 ..., got 150``: one clause per problem."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "body"
        parts.append(f"{where}: {err['msg']} (got {err.get('input')!r})")
    return "; ".join(parts)


def default_state(led_count: int) -> dict[str, Any]:
    return {
        "led": {"on": False, "brightness": 100, "pixels": ["#000000"] * led_count},
        "servo": {"angle": 0.0},
        "version": 0,
    }


class DeviceStore:
    """Thread-safe device state shared by the API, the dashboard feed and the file."""

    def __init__(self, *, state_file: Path | None, led_count: int = 8) -> None:
        self.state_file = state_file
        self._lock = threading.Lock()
        self._subscribers: list[queue.Queue[dict[str, Any] | None]] = []
        self._state = self._load(led_count)

    def _load(self, led_count: int) -> dict[str, Any]:
        state = default_state(led_count)
        if self.state_file is None or not self.state_file.exists():
            return state
        try:
            saved = json.loads(self.state_file.read_text(encoding="utf-8"))
            led = LedUpdate.model_validate(
                {k: saved["led"][k] for k in ("on", "brightness", "pixels")}
            )
            servo = ServoUpdate.model_validate(saved["servo"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # A stale or hand-edited file must not stop the simulator from starting.
            log.warning("ignoring state file %s (%s); starting fresh", self.state_file, exc)
            return state
        state["led"] = {"on": led.on, "brightness": led.brightness, "pixels": led.pixels}
        state["servo"] = {"angle": servo.angle}
        state["version"] = int(saved.get("version", 0))
        return state

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            copy: dict[str, Any] = json.loads(json.dumps(self._state))  # callers may keep it
            return copy

    def update_led(self, update: LedUpdate) -> dict[str, Any]:
        with self._lock:
            led = self._state["led"]
            pixels = list(update.pixels) if update.pixels is not None else list(led["pixels"])
            if update.color is not None:
                first = update.first if update.first is not None else 0
                last = update.last if update.last is not None else len(pixels) - 1
                if first > last or last >= len(pixels):
                    raise ValueError(
                        f"pixel range {first}-{last} is outside the strip; "
                        f"expected 0 <= first <= last <= {len(pixels) - 1}"
                    )
                pixels[first : last + 1] = [update.color] * (last - first + 1)
            elif update.first is not None or update.last is not None:
                raise ValueError("first/last only make sense together with color")
            led["pixels"] = pixels
            if update.brightness is not None:
                led["brightness"] = update.brightness
            if update.on is not None:
                led["on"] = update.on
            led_state: dict[str, Any] = self._changed()["led"]
            return led_state

    def update_servo(self, update: ServoUpdate) -> dict[str, Any]:
        with self._lock:
            self._state["servo"]["angle"] = update.angle
            servo_state: dict[str, Any] = self._changed()["servo"]
            return servo_state

    def _changed(self) -> dict[str, Any]:
        """Bump the version, persist, notify. Called with the lock held."""
        self._state["version"] += 1
        snapshot: dict[str, Any] = json.loads(json.dumps(self._state))
        self._save(snapshot)
        for q in self._subscribers:
            q.put(snapshot)
        return snapshot

    def _save(self, snapshot: dict[str, Any]) -> None:
        if self.state_file is None:
            return
        try:
            self.state_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.state_file.with_suffix(self.state_file.suffix + ".tmp")
            tmp.write_text(json.dumps(snapshot, indent=1), encoding="utf-8")
            os.replace(tmp, self.state_file)
        except OSError as exc:
            log.warning("cannot write state file %s: %s", self.state_file, exc)

    def subscribe(self) -> queue.Queue[dict[str, Any] | None]:
        q: queue.Queue[dict[str, Any] | None] = queue.Queue()
        with self._lock:
            self._subscribers.append(q)
        return q

    def unsubscribe(self, q: queue.Queue[dict[str, Any] | None]) -> None:
        with self._lock:
            if q in self._subscribers:
                self._subscribers.remove(q)

    def close(self) -> None:
        """End every event stream (their generators return). Idempotent."""
        with self._lock:
            subscribers, self._subscribers = self._subscribers, []
        for q in subscribers:
            q.put(CLOSED)
