"""A first-party plugin's ``reread`` on its mock backend, for the reread tables."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from edgeagent.testing import load_plugin


def reread(plugin: ModuleType, name: str, arguments: dict[str, Any], request: str) -> Any:
    """What tool ``name`` of ``plugin`` (loaded on its mock backend) reads again from
    ``request`` for ``arguments``; the plugin is closed after."""
    loaded = load_plugin(plugin, name=name, options={"backend": "mock"})
    try:
        hook = loaded.registry.get(name).reread
        assert hook is not None
        return hook(arguments, request)
    finally:
        loaded.close()


def undone(plugin: ModuleType, name: str, request: str) -> bool:
    """Whether tool ``name`` of ``plugin`` (loaded on its mock backend) reads ``request``
    as an undo (its ``undone_in``); the plugin is closed after."""
    loaded = load_plugin(plugin, name=name, options={"backend": "mock"})
    try:
        undone_in = loaded.registry.get(name).undone_in
        assert undone_in is not None
        return undone_in(request)
    finally:
        loaded.close()
