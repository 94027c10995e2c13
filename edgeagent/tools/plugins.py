"""Plugin discovery: pluggy hooks on top of the ``edgeagent.tools`` entry points.

A plugin is a module named by an entry point in the ``edgeagent.tools`` group. It
defines a ``register_tools`` hook and never imports a registry; what it imports comes
from :mod:`edgeagent.plugin`:

.. code-block:: python

    from edgeagent.plugin import PluginContext, Register, hookimpl, tool

    @hookimpl
    def register_tools(register: Register, context: PluginContext) -> None:
        register(my_tool)

First-party plugins in ``plugins/`` load through exactly this path. A plugin that fails
to import or register is logged and skipped; the rest still load. A plugin named in
``[tools] disabled_plugins`` is never imported.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pluggy
from pydantic import BaseModel, ValidationError

from edgeagent.errors import ConfigError, DuplicateToolError, PluginError
from edgeagent.tools.device import Backends, Closeable, LazyDevice, is_raspberry_pi
from edgeagent.tools.tool import Tool, make_tool

log = logging.getLogger(__name__)

GROUP = "edgeagent.tools"
hookspec = pluggy.HookspecMarker("edgeagent")
hookimpl = pluggy.HookimplMarker("edgeagent")

M = TypeVar("M", bound=BaseModel)
B = TypeVar("B", bound=Closeable)
Register = Callable[[Tool | Callable[..., Any]], None]
"""What ``register_tools`` receives: call it with a :class:`Tool` or a (marked) function."""


@dataclass
class PluginContext:
    """What a plugin gets from the daemon: its own options and a few shared facts."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    """The ``[plugins.<name>]`` table of the config file, unvalidated."""
    config_path: Path | None = None
    simulator_url: str = "http://127.0.0.1:8765"
    closers: list[Callable[[], None]] = field(default_factory=list)
    devices: list[LazyDevice[Any]] = field(default_factory=list)
    """The devices :meth:`device` made; each one's ``about`` says which backend drives it."""

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

    def device(self, backends: Backends[M, B], options: M) -> LazyDevice[B]:
        """The device that ``options`` choose from ``backends``, opened on its first use.

        The chosen backend's ``check`` runs now and opens nothing; the backend in use is
        logged and shown by ``config check``, with a warning when a Raspberry Pi runs a
        device on its default, non-hardware backend (a Pi that quietly drives nothing).
        """
        choice = backends.choice(options)
        backend = backends[choice]
        backend.check(options)
        about = f"{backends.device}: backend {choice!r}, {backend.about(options, self)}"
        level = logging.INFO
        hardware = [name for name in backends.names() if backends[name].hardware]
        if backends.key not in options.model_fields_set and hardware and not backend.hardware:
            about += (
                f" (the default; set [plugins.{self.name}] {backends.key} = "
                f"{hardware[0]!r} to drive the hardware)"
            )
            if is_raspberry_pi():
                about += "; nothing on this Raspberry Pi is driven"
                level = logging.WARNING
        log.log(level, "plugin %r: %s", self.name, about)

        def open_backend() -> B:
            return backend.open(options, self)

        device = LazyDevice(open_backend, device=backends.device, about=about)
        self.devices.append(device)
        return device


class HookSpecs:
    @hookspec
    def register_tools(self, register: Register, context: PluginContext) -> None:
        """Register this plugin's tools by calling ``register(tool_or_function)``."""


@dataclass
class PluginLoadReport:
    loaded: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    duplicates: list[str] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)
    devices: dict[str, list[str]] = field(default_factory=dict)
    """Per loaded plugin, what :meth:`PluginContext.device` said about each device."""


def discover(group: str = GROUP) -> list[EntryPoint]:
    """The installed plugins' entry points, sorted by name for a stable order."""
    return sorted(entry_points(group=group), key=lambda ep: ep.name)


def _constant(value: object) -> Callable[[], object]:
    return lambda: value


def _refuse(reason: str) -> Callable[[], object]:
    def load() -> object:
        raise PluginError(reason)

    return load


def _from_entry_points(group: str) -> list[tuple[str, Callable[[], object]]]:
    """``(name, load)`` per plugin. Two distributions that register one name for the same
    module (an old checkout's metadata beside the plugin's own) load it once; for two
    different modules the name is refused, naming both, rather than one winning silently."""
    by_name: dict[str, list[EntryPoint]] = {}
    for ep in discover(group):
        if ep.value not in (e.value for e in by_name.get(ep.name, [])):
            by_name.setdefault(ep.name, []).append(ep)
    candidates: list[tuple[str, Callable[[], object]]] = []
    for name, eps in by_name.items():
        if len(eps) == 1:
            candidates.append((name, eps[0].load))
            continue
        owners = ", ".join(
            f"{ep.value} from {ep.dist.name if ep.dist else 'an unknown distribution'}"
            for ep in eps
        )
        candidates.append(
            (name, _refuse(f"two installed plugins are named {name!r} ({owners}); uninstall one"))
        )
    return candidates


def _unknown(names: Collection[str], installed: Collection[str], form: str) -> list[str]:
    """``form`` for each name no plugin has, with the closest installed one."""
    problems = []
    for name in sorted(set(names) - set(installed)):
        close = difflib.get_close_matches(name, installed, n=1)
        hint = f" (did you mean {form.format(close[0])}?)" if close else ""
        problems.append(f"{form.format(name)}{hint}")
    return problems


def check_plugin_tables(
    tables: Collection[str], installed: Collection[str], *, config_path: Path | None = None
) -> None:
    """Refuse a ``[plugins.<name>]`` table that no installed plugin reads (a typo would
    otherwise leave the real plugin on its defaults, silently)."""
    problems = _unknown(tables, installed, "[plugins.{}]")
    if not problems:
        return
    where = f" in {config_path}" if config_path else ""
    raise ConfigError(
        f"No installed plugin reads {', '.join(problems)}{where}; installed plugins: "
        f"{', '.join(sorted(installed)) or 'none'}. Fix the table name, remove the table, "
        f"or install the plugin (its entry point group is {GROUP!r})"
    )


def check_disabled_plugins(
    disabled: Collection[str], installed: Collection[str], *, config_path: Path | None = None
) -> None:
    """Refuse a ``[tools] disabled_plugins`` entry that names no installed plugin (a typo
    would otherwise leave the plugin running, and its device open)."""
    problems = _unknown(disabled, installed, "{!r}")
    if not problems:
        return
    where = f" in {config_path}" if config_path else ""
    raise ConfigError(
        f"tools.disabled_plugins{where} names {', '.join(problems)}, which no installed "
        f"plugin is; installed plugins: {', '.join(sorted(installed)) or 'none'}"
    )


def load_plugins(
    add: Callable[[Tool], None],
    *,
    contexts: Callable[[str], PluginContext],
    plugins: Iterable[tuple[str, ModuleType | object]] | None = None,
    group: str = GROUP,
    tables: Collection[str] = (),
    disabled: Collection[str] = (),
    config_path: Path | None = None,
) -> PluginLoadReport:
    """Import every plugin that is not ``disabled`` and call its ``register_tools`` hook.

    ``add`` receives each tool (the registry's ``add``). ``plugins`` replaces entry-point
    discovery with explicit ``(name, module)`` pairs (tests, embedding). ``tables`` are
    the config's ``[plugins.<name>]`` tables: one that names no plugin is a
    :class:`ConfigError` before any plugin loads, and so is a ``disabled`` name. A
    disabled plugin is never imported; its table may stay.
    """
    report = PluginLoadReport()
    pm = pluggy.PluginManager("edgeagent")
    pm.add_hookspecs(HookSpecs)
    if plugins is None:
        candidates = _from_entry_points(group)
    else:
        candidates = [(pname, _constant(module)) for pname, module in plugins]
    installed = [name for name, _ in candidates]
    check_plugin_tables(tables, installed, config_path=config_path)
    check_disabled_plugins(disabled, installed, config_path=config_path)
    for pname, load in candidates:
        if pname in disabled:
            report.disabled.append(pname)
            log.info("plugin %r disabled ([tools] disabled_plugins): not loaded", pname)
            continue
        context = contexts(pname)
        try:
            tools = _register(pm, pname, load, context)
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}"
            log.error("plugin %r skipped: %s", pname, reason)
            report.failed[pname] = reason
            if pm.has_plugin(pname):
                pm.unregister(name=pname)
            continue
        for t in tools:  # only a plugin that registered cleanly adds its tools
            try:
                add(t)
            except DuplicateToolError as exc:
                log.error("%s", exc)
                report.duplicates.append(str(exc))
        report.loaded.append(pname)
        if context.devices:
            report.devices[pname] = [device.about for device in context.devices]
        log.info("plugin %r loaded", pname)
    return report


def _register(
    pm: pluggy.PluginManager, pname: str, load: Callable[[], object], context: PluginContext
) -> list[Tool]:
    """Import one plugin and run its hook; the tools it registered."""
    module = load()
    pm.register(module, name=pname)
    impls = [i for i in pm.hook.register_tools.get_hookimpls() if i.plugin_name == pname]
    if not impls:
        raise PluginError(f"plugin {pname!r} defines no register_tools hook")
    collected: list[Tool] = []

    def register(obj: Tool | Callable[..., Any]) -> None:
        t = obj if isinstance(obj, Tool) else make_tool(obj, plugin=pname)
        collected.append(t.with_plugin(pname))

    for impl in impls:
        impl.function(register=register, context=context)
    return collected
