"""What Home Assistant does with the messages edgeagent leaves on the broker, as far as a
test can do it without Home Assistant (whose releases need a newer Python than the
3.11 these tests run on): its templates, rendered the way it renders them."""

from __future__ import annotations

from typing import Any

import jinja2


def render(template: str, payload: Any) -> str:
    """A discovery template evaluated as Home Assistant does: Jinja, ``value_json``."""
    env = jinja2.Environment()
    env.policies["json.dumps_kwargs"] = {"sort_keys": True}
    return env.from_string(template).render(value_json=payload)


def keys(value: object) -> set[str]:
    """Every key at any depth of a JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()
