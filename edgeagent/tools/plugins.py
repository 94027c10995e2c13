"""Plugin discovery: pluggy hooks on top of the ``edgeagent.tools`` entry points.

A plugin is a module named by an entry point in the ``edgeagent.tools`` group. It
defines a ``register_tools`` hook and never imports a registry:

.. code-block:: python

    from edgeagent.tools import hookimpl, tool

    @hookimpl
    def register_tools(register, context):
        register(my_tool)

First-party plugins in ``plugins/`` load through exactly this path. A plugin that fails
to import or register is logged and skipped; the rest still load.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pluggy
from pydantic import BaseModel, ValidationError

from edgeagent.errors import ConfigError, DuplicateToolError, PluginError
from edgeagent.tools.tool import Tool, make_tool

log = logging.getLogger(__name__)

GROUP = "edgeagent.tools"
hookspec = pluggy.HookspecMarker("edgeagent")
hookimpl = pluggy.HookimplMarker("edgeagent")

M = TypeVar("M", bound=BaseModel)
Register = Callable[[Tool | Callable[..., Any]], None]


@dataclass
class PluginContext:
    """What a plugin gets from the daemon: its own options and a few shared facts."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    """The ``[plugins.<name>]`` table of the config file, unvalidated."""
    config_path: Path | None = None
    simulator_url: str = "http://127.0.0.1:8765"
    closers: list[Callable[[], None]] = field(default_factory=list)

    def options_as(self, model: type[M]) -> M:
        """Validate this plugin's options; errors name ``plugins.<name>.<key>`` and the file."""
        try:
            return model.model_validate(self.options)
        except ValidationError as exc:
            where = f" in {self.config_path}" if self.config_path else ""
            problems = "; ".join(
                f"plugins.{self.name}.{'.'.join(str(p) for p in err['loc'])}: {err['msg']} "
                f"(got {err.get('input')!r})"
                for err in exc.errors()
            )
            raise ConfigError(
                f"Invalid options for plugin {self.name!r}{where}: {problems}"
            ) from exc

    def on_close(self, closer: Callable[[], None]) -> None:
        """Run ``closer`` at shutdown (put the hardware into a safe state)."""
        self.closers.append(closer)


class HookSpecs:
    @hookspec
    def register_tools(self, register: Register, context: PluginContext) -> None:
        """Register this plugin's tools by calling ``register(tool_or_function)``."""


@dataclass
class PluginLoadReport:
    loaded: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    duplicates: list[str] = field(default_factory=list)


def discover(group: str = GROUP) -> list[EntryPoint]:
    """The installed plugins' entry points, sorted by name for a stable order."""
    return sorted(entry_points(group=group), key=lambda ep: ep.name)


def _constant(value: object) -> Callable[[], object]:
    return lambda: value


def load_plugins(
    add: Callable[[Tool], None],
    *,
    contexts: Callable[[str], PluginContext],
    plugins: Iterable[tuple[str, ModuleType | object]] | None = None,
    group: str = GROUP,
) -> PluginLoadReport:
    """Import every plugin and call its ``register_tools`` hook.

    ``add`` receives each tool (the registry's ``add``). ``plugins`` replaces entry-point
    discovery with explicit ``(name, module)`` pairs (tests, embedding).
    """
    report = PluginLoadReport()
    pm = pluggy.PluginManager("edgeagent")
    pm.add_hookspecs(HookSpecs)
    candidates: list[tuple[str, Callable[[], object]]] = []
    if plugins is None:
        for ep in discover(group):
            candidates.append((ep.name, ep.load))
    else:
        for pname, module in plugins:
            candidates.append((pname, _constant(module)))
    for pname, load in candidates:
        try:
            module = load()
            pm.register(module, name=pname)
            impls = [i for i in pm.hook.register_tools.get_hookimpls() if i.plugin_name == pname]
            if not impls:
                raise PluginError(f"plugin {pname!r} defines no register_tools hook")
            context = contexts(pname)
            collected: list[Tool] = []

            def register(
                obj: Tool | Callable[..., Any], _p: str = pname, _into: list[Tool] = collected
            ) -> None:
                t = obj if isinstance(obj, Tool) else make_tool(obj, plugin=_p)
                _into.append(t.with_plugin(_p))

            for impl in impls:
                impl.function(register=register, context=context)
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}"
            log.error("plugin %r skipped: %s", pname, reason)
            report.failed[pname] = reason
            if pm.is_registered(pm.get_plugin(pname)):
                pm.unregister(name=pname)
            continue
        for t in collected:  # only a plugin that registered cleanly adds its tools
            try:
                add(t)
            except DuplicateToolError as exc:
                log.error("%s", exc)
                report.duplicates.append(str(exc))
        report.loaded.append(pname)
        log.info("plugin %r loaded", pname)
    return report
