"""The type of data that goes out as JSON: statuses, tool listings, engine extras."""

from __future__ import annotations

from typing import TypeAlias

JSONValue: TypeAlias = str | int | float | bool | list["JSONValue"] | dict[str, "JSONValue"] | None
