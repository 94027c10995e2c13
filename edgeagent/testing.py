"""Contract suites for plugin authors: the same checks against every backend of a device.

Two pytest base classes. Subclass one in a test module (the subclass's name starts with
``Test``), fill in what it asks for, and pytest runs each check once per backend your
fixture yields: the mock, the simulator, the hardware library on fake pins. Importing
this module needs pytest, a test dependency of a plugin, not a runtime one.

:class:`BackendContract` checks a backend alone: it reads back what it was sent, its
``close()`` is idempotent, and once closed it refuses with :class:`HardwareError`
instead of driving a released device.

:class:`PluginContract` checks the plugin as edgeagent loads it: loading opens no
device, a tool call opens it, bad arguments come back as readable errors that change
nothing, ``close()`` leaves the device in its safe state (and leaves a device never
used alone), and every backend the options can name is in the plugin's
:class:`Backends` table.

The LED and servo plugins' tests (tests/plugins/test_led.py, test_servo.py) are worked
examples of both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, ClassVar, Generic, TypeVar, get_args

import pytest
from pydantic import BaseModel

from edgeagent.errors import HardwareError, PluginError
from edgeagent.tools.device import Backends, Closeable, LazyDevice
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.plugins import PluginContext, load_plugins
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import Tool, ToolResult

B = TypeVar("B", bound=Closeable)
S = TypeVar("S")

UNREACHABLE_URL = "http://127.0.0.1:9"
"""A simulator address where nothing listens (the discard port)."""


@dataclass
class LoadedPlugin:
    """One plugin loaded as the daemon loads it, with what it made."""

    name: str
    options: dict[str, Any]
    registry: ToolRegistry
    simulator_url: str
    devices: list[LazyDevice[Any]] = field(default_factory=list)
    closers: list[Callable[[], None]] = field(default_factory=list)

    @property
    def opened(self) -> bool:
        """Whether any of its devices has been opened."""
        return any(device.opened for device in self.devices)

    def call(self, tool: str, **arguments: Any) -> ToolResult:
        """One call through the real executor: validation, timeout, errors as results."""
        return call_tool(self.registry, tool, **arguments)

    def close(self) -> None:
        """What the daemon does at exit: every closer the plugin registered."""
        for closer in self.closers:
            closer()


def call_tool(tools: Iterable[Tool], name: str, **arguments: Any) -> ToolResult:
    """Call ``name`` among ``tools`` as the agent does: arguments validated against the
    schema, the tool's timeout, every failure a :class:`ToolResult` the model can read."""
    registry = tools if isinstance(tools, ToolRegistry) else ToolRegistry(list(tools))
    return asyncio.run(ToolExecutor(registry).execute(ToolCall(name, arguments)))


def load_plugin(
    module: ModuleType,
    *,
    name: str,
    options: dict[str, Any] | None = None,
    simulator_url: str = UNREACHABLE_URL,
) -> LoadedPlugin:
    """Run ``module``'s ``register_tools`` hook with ``options`` as its ``[plugins.<name>]``
    table; :class:`PluginError` with the reason when it fails to load."""
    registry = ToolRegistry()
    contexts: list[PluginContext] = []

    def context(pname: str) -> PluginContext:
        ctx = PluginContext(name=pname, options=dict(options or {}), simulator_url=simulator_url)
        contexts.append(ctx)
        return ctx

    report = load_plugins(registry.add, contexts=context, plugins=[(name, module)])
    if name in report.failed:
        raise PluginError(f"plugin {name!r} failed to load: {report.failed[name]}")
    (ctx,) = contexts
    return LoadedPlugin(
        name, dict(options or {}), registry, simulator_url, ctx.devices, ctx.closers
    )


class BackendContract(Generic[B, S]):
    """Checks every backend of one device must pass.

    Provide a ``backend`` fixture that yields an open backend (parametrize it over your
    backends and close it afterwards), and fill in :meth:`samples`, :meth:`write` and
    :meth:`read` for your device.
    """

    def samples(self) -> Sequence[S]:
        """At least two different states (or positions) to send, in order."""
        raise NotImplementedError

    def write(self, backend: B, state: S) -> None:
        """Send ``state`` to the device (``backend.write(state)``, ``move_to(angle)``...)."""
        raise NotImplementedError

    def read(self, backend: B) -> S:
        """What the backend says the device shows now."""
        raise NotImplementedError

    def test_reads_back_each_state_it_was_sent(self, backend: B) -> None:
        samples = self.samples()
        assert len(set(map(repr, samples))) >= 2, "samples() needs two different states"
        for state in samples:
            self.write(backend, state)
            assert self.read(backend) == state

    def test_close_is_idempotent(self, backend: B) -> None:
        self.write(backend, self.samples()[0])
        backend.close()
        backend.close()

    def test_refuses_commands_once_closed(self, backend: B) -> None:
        backend.close()
        with pytest.raises(HardwareError, match="closed"):
            self.write(backend, self.samples()[0])
        with pytest.raises(HardwareError, match="closed"):
            self.read(backend)


class PluginContract:
    """Checks a plugin as edgeagent loads it, once per ``plugin_options`` it is given.

    Set :attr:`plugin` and :attr:`name`, provide a ``plugin_options`` fixture (the
    ``[plugins.<name>]`` table, parametrized over backends) and a ``simulator_url``
    fixture where a backend needs the simulator, and fill in :attr:`use`,
    :attr:`bad_calls`, :attr:`safe_state` and :meth:`observe`.
    """

    plugin: ClassVar[ModuleType]
    name: ClassVar[str]
    use: ClassVar[tuple[str, dict[str, Any]]]
    """A call (tool, arguments) that drives the device."""
    bad_calls: ClassVar[Sequence[tuple[str, dict[str, Any]]]] = ()
    """Calls the plugin must refuse with a readable error, leaving the device as it was."""
    safe_state: ClassVar[Any]
    """What :meth:`observe` shows after ``close()``."""
    backends: ClassVar[Backends[Any, Any] | None] = None
    options_model: ClassVar[type[BaseModel] | None] = None
    """With :attr:`backends`: every choice the options accept must have a backend."""

    @pytest.fixture
    def simulator_url(self) -> str:
        return UNREACHABLE_URL

    @pytest.fixture
    def loaded(self, plugin_options: dict[str, Any], simulator_url: str) -> LoadedPlugin:
        return load_plugin(
            self.plugin, name=self.name, options=plugin_options, simulator_url=simulator_url
        )

    def observe(self, loaded: LoadedPlugin) -> Any:
        """What the device shows now, read without the plugin's tools (they refuse after
        ``close()``): the mock's recorded state, the simulator's JSON..."""
        raise NotImplementedError

    def test_tools_have_descriptions_and_object_schemas(self, loaded: LoadedPlugin) -> None:
        assert len(loaded.registry) > 0, f"plugin {self.name!r} registered no tools"
        for tool in loaded.registry:
            assert tool.description.strip(), f"tool {tool.name!r} has no description"
            assert tool.parameters.get("type") == "object", tool.parameters
            assert tool.plugin == self.name

    def test_loading_opens_no_device(self, loaded: LoadedPlugin) -> None:
        assert loaded.devices, "the plugin made no device with context.device()"
        assert not loaded.opened

    def test_closing_an_unused_plugin_opens_nothing(self, loaded: LoadedPlugin) -> None:
        loaded.close()
        assert not loaded.opened
        tool, arguments = self.use
        after = loaded.call(tool, **arguments)
        assert not after.ok and after.error and "closed" in after.error
        assert not loaded.opened

    def test_the_first_call_opens_the_device(self, loaded: LoadedPlugin) -> None:
        tool, arguments = self.use
        result = loaded.call(tool, **arguments)
        assert result.ok, result.error
        assert all(device.opened for device in loaded.devices)
        loaded.close()

    def test_bad_calls_are_readable_errors_that_change_nothing(self, loaded: LoadedPlugin) -> None:
        tool, arguments = self.use
        assert loaded.call(tool, **arguments).ok
        before = self.observe(loaded)
        for bad_tool, bad_arguments in self.bad_calls:
            result = loaded.call(bad_tool, **bad_arguments)
            assert not result.ok, f"{bad_tool}({bad_arguments}) succeeded: {result.result}"
            assert result.error and result.error.strip()
            assert self.observe(loaded) == before, f"{bad_tool}({bad_arguments}) changed it"
        loaded.close()

    def test_close_leaves_the_device_in_its_safe_state(self, loaded: LoadedPlugin) -> None:
        tool, arguments = self.use
        assert loaded.call(tool, **arguments).ok
        loaded.close()
        assert self.observe(loaded) == self.safe_state
        loaded.close()  # idempotent

    def test_every_backend_choice_has_a_backend(self) -> None:
        if self.backends is None or self.options_model is None:
            pytest.skip("no Backends table given")
        field_ = self.options_model.model_fields[self.backends.key]
        assert set(get_args(field_.annotation)) == set(self.backends.names())
