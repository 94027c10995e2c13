"""The deployable files shipped with edgeagent: the systemd units and example configs.

In the source tree they live at the top (``systemd/``, ``config/``, where
``./scripts/up`` and the config search path find them); ``edgeagent/deploy/systemd``
and ``edgeagent/deploy/config`` are links to those directories, which building a wheel
turns into copies (``[tool.setuptools.package-data]``). So ``edgeagent install-service``
reads them through :mod:`importlib.resources` wherever edgeagent is installed.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable


def unit_file(name: str) -> Traversable:
    """A systemd unit, e.g. ``edgeagent.service``."""
    return files(__name__) / "systemd" / name


def example_config(name: str) -> Traversable:
    """An example config, e.g. ``edgeagent.pi.toml``."""
    return files(__name__) / "config" / name


def example_tools() -> list[Traversable]:
    """The example ``.tool`` files (``config/tools.d``), by name."""
    tools_d = files(__name__) / "config" / "tools.d"
    if not tools_d.is_dir():
        return []
    return sorted((t for t in tools_d.iterdir() if t.name.endswith(".tool")), key=lambda t: t.name)
