"""Stand-ins with realistic signatures for first-party tools whose plugin did not load.

The manifest benchmark only needs names, descriptions and schemas, so these functions
never run. They mirror the first-party plugins' signatures (parameter names, ranges,
descriptions) closely enough that their manifests cost about the same tokens.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from edgeagent.tools import Tool, make_tool, tool


@tool(kind="act")
def led(
    on: Annotated[bool | None, Field(description="on/off")] = None,
    color: Annotated[str | None, Field(description="CSS name or #rrggbb")] = None,
    brightness: Annotated[int | None, Field(ge=0, le=100, description="percent")] = None,
    first: Annotated[int | None, Field(ge=0, description="first pixel; default all")] = None,
    last: Annotated[int | None, Field(ge=0, description="last pixel")] = None,
    effect: Annotated[
        Literal["blink", "pulse"] | None, Field(description="brief animation")
    ] = None,
) -> dict[str, Any]:
    """Set the LED strip; give only what changes."""
    raise NotImplementedError("benchmark stub")


@tool
def led_state() -> dict[str, Any]:
    """Read the LED strip: on, color, brightness."""
    raise NotImplementedError("benchmark stub")


@tool(kind="act")
def servo(
    angle: Annotated[float | None, Field(description="degrees -90..90, 0 = center")] = None,
    move: Annotated[float | None, Field(description="relative degrees; negative = left")] = None,
) -> dict[str, Any]:
    """Turn the servo to an angle, or move it by some degrees."""
    raise NotImplementedError("benchmark stub")


@tool
def servo_state() -> dict[str, Any]:
    """Read the servo angle (negative = left)."""
    raise NotImplementedError("benchmark stub")


@tool
def weather(
    location: Annotated[str, Field(min_length=1, max_length=100, description="place name")],
    day: Annotated[int, Field(ge=0, le=6, description="0=today")] = 0,
) -> dict[str, Any]:
    """Daily weather forecast for a place."""
    raise NotImplementedError("benchmark stub")


@tool
def shell(command: Annotated[str, Field(description="e.g. 'ls -l' or 'df -h'")]) -> str:
    """Run a read-only command (no pipes)."""
    raise NotImplementedError("benchmark stub")


@tool(name="math")
def calculate(
    expression: Annotated[str, Field(max_length=200, description="e.g. 'sqrt(2)*3'")],
) -> float:
    """Evaluate arithmetic (+-*/ ** sqrt sin log pi ...)."""
    raise NotImplementedError("benchmark stub")


STUBS: dict[str, list[Any]] = {
    "led": [led, led_state],
    "servo": [servo, servo_state],
    "weather": [weather],
    "shell": [shell],
    "math": [calculate],
}


def stub_tools(plugin: str) -> list[Tool]:
    """The stand-in tools of one first-party plugin."""
    return [make_tool(func, plugin=f"{plugin} (stub)") for func in STUBS[plugin]]
