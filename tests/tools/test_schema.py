"""Exact JSON schemas generated from typed signatures (what the model sees)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from edgeagent.errors import ToolDefinitionError
from edgeagent.tools import ToolKind, make_tool, tool, tools_from


def schema_of(func: Any) -> dict[str, Any]:
    return make_tool(func).parameters


def test_plain_types_required_and_defaults() -> None:
    def f(name: str, count: int, ratio: float = 0.5, loud: bool = False) -> str:
        """Say hello."""
        return name

    assert schema_of(f) == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "count": {"type": "integer"},
            "ratio": {"type": "number", "default": 0.5},
            "loud": {"type": "boolean", "default": False},
        },
        "required": ["name", "count"],
    }


def test_annotated_constraints_and_description_are_kept() -> None:
    def f(
        brightness: Annotated[int, Field(ge=0, le=100, description="Percent")] = 100,
        label: Annotated[str, Field(max_length=20)] = "x",
    ) -> None:
        """Dim."""

    assert schema_of(f) == {
        "type": "object",
        "properties": {
            "brightness": {
                "type": "integer",
                "minimum": 0,
                "maximum": 100,
                "description": "Percent",
                "default": 100,
            },
            "label": {"type": "string", "maxLength": 20, "default": "x"},
        },
        "required": [],
    }


def test_literal_becomes_enum() -> None:
    def f(mode: Literal["on", "off", "blink"], unit: Literal["c"] = "c") -> None:
        """Switch."""

    assert schema_of(f) == {
        "type": "object",
        "properties": {
            "mode": {"type": "string", "enum": ["on", "off", "blink"]},
            "unit": {"type": "string", "enum": ["c"], "default": "c"},
        },
        "required": ["mode"],
    }


def test_optional_parameter_is_not_required_and_not_nullable() -> None:
    def f(pixel: int | None = None, note: str | None = None) -> None:
        """Pick."""

    assert schema_of(f) == {
        "type": "object",
        "properties": {"pixel": {"type": "integer"}, "note": {"type": "string"}},
        "required": [],
    }


def test_google_docstring_describes_parameters_and_tool() -> None:
    def f(location: str, day: int = 0) -> None:
        """Forecast for a place.

        Longer text that the model does not need.

        Args:
            location: City name,
                e.g. Oslo.
            day: Days from today.
        """

    t = make_tool(f)
    assert t.description == "Forecast for a place."
    assert t.parameters == {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "City name, e.g. Oslo."},
            "day": {"type": "integer", "description": "Days from today.", "default": 0},
        },
        "required": ["location"],
    }


def test_sphinx_docstring_params() -> None:
    def f(expr: str) -> None:
        """Evaluate arithmetic.

        :param expr: An expression like 2*(3+4).
        """

    assert schema_of(f)["properties"] == {
        "expr": {"type": "string", "description": "An expression like 2*(3+4)."}
    }


def test_param_descriptions_override_docstring_and_field() -> None:
    @tool(param_descriptions={"path": "Path inside the root", "n": "Lines to show"})
    def f(path: str, n: Annotated[int, Field(ge=1, description="ignored")] = 10) -> None:
        """Show a file.

        Args:
            path: docstring text that loses.
        """

    assert schema_of(f) == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Path inside the root"},
            "n": {"type": "integer", "minimum": 1, "description": "Lines to show", "default": 10},
        },
        "required": ["path"],
    }


def test_lists_and_nested_enums() -> None:
    def f(
        args: list[str],
        colors: list[Literal["red", "green"]] | None = None,
    ) -> None:
        """Run."""

    assert schema_of(f) == {
        "type": "object",
        "properties": {
            "args": {"type": "array", "items": {"type": "string"}},
            "colors": {"type": "array", "items": {"type": "string", "enum": ["red", "green"]}},
        },
        "required": ["args"],
    }


def test_method_tools_skip_self_and_keep_metadata() -> None:
    class Servo:
        def __init__(self) -> None:
            self.angle = 0.0

        @tool(kind="act", timeout_s=3)
        def servo(self, angle: Annotated[float, Field(ge=-90, le=90)]) -> float:
            """Point the arm."""
            self.angle = angle
            return angle

        def helper(self) -> None:
            """Not a tool."""

    device = Servo()
    (t,) = tools_from(device)
    assert t.name == "servo"
    assert t.kind is ToolKind.ACT
    assert t.timeout_s == 3
    assert t.parameters == {
        "type": "object",
        "properties": {"angle": {"type": "number", "minimum": -90, "maximum": 90}},
        "required": ["angle"],
    }
    assert t.func(angle=12) == 12 and device.angle == 12


def test_explicit_name_and_description() -> None:
    @tool(name="lamp", description="Switch the lamp.")
    async def f(on: bool) -> bool:
        return on

    t = make_tool(f)
    assert (t.name, t.description, t.is_async) == ("lamp", "Switch the lamp.", True)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def f(x): 'Doc.'", "has no type hint"),
        ("def f(*args: int) -> None: 'Doc.'", "named, typed parameters"),
        ("def f(x: int) -> None: pass", "no description"),
    ],
)
def test_bad_signatures_are_refused_with_a_reason(source: str, message: str) -> None:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    with pytest.raises(ToolDefinitionError, match=message):
        make_tool(namespace["f"])


def test_param_descriptions_naming_unknown_parameter_is_refused() -> None:
    @tool(param_descriptions={"colour": "typo"})
    def f(color: str) -> None:
        """Set."""

    with pytest.raises(ToolDefinitionError, match="colour"):
        make_tool(f)
