"""The composition root: the one place that turns a :class:`Config` into live parts.

:func:`build_runtime` assembles what answers a prompt, always in the same order: the
model starts loading (in its worker process), the tools load meanwhile, then the
executor, then the agent once the model is up. The daemon, ``edgeagent chat`` and the
accuracy benchmark all enter it; ``edgeagent tools ...`` and ``config check`` use the
single builders below. Nothing else chooses concrete backends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from asyncio import Future
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from edgeagent.config import Config
from edgeagent.errors import EdgeAgentError, HardwareError
from edgeagent.llm.profiles import select_profile
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.plugins import PluginContext, PluginLoadReport, load_plugins
from edgeagent.tools.policy import CallPolicy, Confirm
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import Tool

if TYPE_CHECKING:
    from edgeagent.agent.loop import Agent
    from edgeagent.llm.base import LLM
    from edgeagent.mcp.client import MCPConnections

log = logging.getLogger(__name__)


@dataclass
class ToolSet:
    """The loaded tools and what it took to load them."""

    registry: ToolRegistry
    report: PluginLoadReport
    closers: list[Callable[[], None]] = field(default_factory=list)
    wrapped_errors: list[str] = field(default_factory=list)
    mcp: MCPConnections | None = None
    """The connections to ``[mcp.servers]`` whose tools are in ``registry``."""

    def disconnect(self) -> None:
        """Close the connections to MCP servers (a stdio server's process ends). Idempotent."""
        if self.mcp is not None:
            self.mcp.close()

    def close(self) -> None:
        """Put every plugin's hardware into its safe state. Idempotent."""
        closers, self.closers = self.closers, []
        for closer in closers:
            try:
                closer()
            except HardwareError as exc:  # e.g. the simulator is already gone
                log.warning("could not put a device into its safe state: %s", exc)
            except Exception:
                log.exception("plugin shutdown hook failed")

    async def safe_state(self, *, timeout_s: float) -> None:
        """Every device into its safe state (LED dark, servo released), side by side and
        within ``timeout_s`` ([daemon] safe_state_timeout_s): a device that hangs is named
        in the log and left behind, so that a stop ends before systemd's TimeoutStopSec.
        Daemon threads, because a hung one must not hold the process at exit either.
        Idempotent."""
        closers, self.closers = self.closers, []
        loop = asyncio.get_running_loop()
        running = {_run_detached(loop, _safely(closer)): closer for closer in closers}
        if not running:
            return
        _, late = await asyncio.wait(running, timeout=timeout_s)
        for future in late:
            log.error(
                "safe state: %s did not finish within %g s ([daemon] safe_state_timeout_s); "
                "that device may not be in its safe state",
                _device_name(running[future]),
                timeout_s,
            )


def _device_name(closer: Callable[[], None]) -> str:
    """``LedController.close`` -> ``LedController``: the part whose safe state it is."""
    name = getattr(closer, "__qualname__", None) or repr(closer)
    return str(name).removesuffix(".close")


def _safely(closer: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        try:
            closer()
        except HardwareError as exc:  # e.g. the simulator is already gone
            log.warning("safe state: %s failed: %s", _device_name(closer), exc)
        except Exception:
            log.exception("safe state: %s failed", _device_name(closer))

    return run


def _run_detached(loop: asyncio.AbstractEventLoop, func: Callable[[], None]) -> Future[None]:
    """``func`` in a daemon thread; the future completes when it returns."""
    future: Future[None] = loop.create_future()

    def finish() -> None:
        if not future.done():
            future.set_result(None)

    def run() -> None:
        try:
            func()
        finally:
            with contextlib.suppress(RuntimeError):  # the loop may have closed meanwhile
                loop.call_soon_threadsafe(finish)

    threading.Thread(target=run, name="edgeagent-safe-state", daemon=True).start()
    return future


def build_tools(
    config: Config,
    *,
    plugins: Iterable[tuple[str, ModuleType | object]] | None = None,
) -> ToolSet:
    """Load plugins (entry points, or ``plugins``), ``.tool`` files, the tools of
    ``[mcp.servers]`` (connected here; ``ToolSet.disconnect`` closes them), then apply
    [tools].

    Opens no device: a plugin's backends open on their first tool call, so a disabled
    tool never touches its hardware, and ``config check`` or ``tools list`` never claim
    what a running daemon holds. ``[tools] disabled_plugins`` are never imported.
    """
    everything = ToolRegistry()
    closers: list[Callable[[], None]] = []

    def context(name: str) -> PluginContext:
        ctx = PluginContext(
            name=name,
            options=dict(config.plugins.get(name, {})),
            config_path=config.source,
            simulator_url=config.simulator.url,
        )
        ctx.closers = closers
        return ctx

    report = load_plugins(
        everything.add,
        contexts=context,
        plugins=plugins,
        tables=config.plugins,
        disabled=config.tools.disabled_plugins,
        config_path=config.source,
    )
    wrapped_errors: list[str] = []
    if config.tools.wrapped_dir is not None:
        from edgeagent.tools.wrapped import load_wrapped_tools

        wrapped_errors = load_wrapped_tools(config.resolve(config.tools.wrapped_dir), everything)
    connections = None
    if config.mcp.servers:  # their tools are named around the local ones, so they come last
        from edgeagent.mcp.client import connect_servers

        connections = connect_servers(config, everything)
    registry = everything.select(enabled=config.tools.enabled, disabled=config.tools.disabled)
    return ToolSet(registry, report, closers, wrapped_errors, connections)


def build_executor(
    config: Config, registry: ToolRegistry, *, confirm: Confirm | None = None
) -> ToolExecutor:
    policy = CallPolicy.from_config(
        allow=config.tools.policy.allow,
        deny=config.tools.policy.deny,
        confirm_act=config.tools.policy.confirm_act,
        confirm=confirm,
    )
    for rule in policy.unknown_rules(registry):
        log.warning("[tools.policy] %s names no loaded tool or plugin; check its spelling", rule)
    return ToolExecutor(registry, policy=policy)


def build_llm(config: Config, *, in_process: bool = False) -> LLM:
    """The model [llm] selects: in its worker process, or (tests, tools) in this one."""
    from edgeagent.llm.select import create_engine, select_engine_spec

    spec = select_engine_spec(config)
    if in_process:
        from edgeagent.llm.base import InProcessLLM

        return InProcessLLM(create_engine(spec))
    from edgeagent.llm.worker import WorkerLLM

    return WorkerLLM(
        spec,
        start_timeout_s=config.llm.start_timeout_s,
        generation_timeout_s=config.llm.generation_timeout_s,
    )


def _runs_llama_cpp(config: Config) -> bool:
    """Whether the model runs on llama.cpp, the one engine that reads grammars.

    Only then are grammars built: their converter comes with llama-cpp-python, whose
    import (numpy and all) would cost a daemon on the Hailo or the scripted engine about
    30 MB it never uses.
    """
    import importlib.util

    from edgeagent.llm.select import select_engine_spec

    try:
        backend = select_engine_spec(config).backend
    except EdgeAgentError:  # no engine can be chosen: the runtime says why, not this
        return False
    return backend == "llamacpp" and importlib.util.find_spec("llama_cpp") is not None


def model_name(config: Config) -> str:
    """The name of the model [llm] runs, as far as the config tells (for its profile)."""
    llm = config.llm
    if llm.backend == "http":
        return llm.http.model
    if llm.backend == "hailo" or (llm.backend == "auto" and llm.hailo.hef is not None):
        return str(llm.hailo.hef or "")
    return llm.model


def resolve_call_format(config: Config) -> str:
    """[agent] call_format, or the model profile's when it is ``auto``."""
    if config.agent.call_format != "auto":
        return config.agent.call_format
    return select_profile(config.agent.profile, model=model_name(config)).call_format


def build_agent(
    config: Config, *, llm: LLM, executor: ToolExecutor, registry: ToolRegistry
) -> Agent:
    """The agent loop for the enabled tools, with the model profile and [agent] settings."""
    from edgeagent.agent.decline import NAME as DECLINE
    from edgeagent.agent.decline import decline_tool
    from edgeagent.agent.grammars import TurnGrammars, turn_grammars
    from edgeagent.agent.loop import Agent
    from edgeagent.agent.prompt import (
        build_primer,
        build_system_prompt,
        build_tools_note,
        render_manifest_text,
    )
    from edgeagent.agent.selection import ToolSelector, TurnTools
    from edgeagent.tools.calls import get_call_format
    from edgeagent.tools.render import render_openai

    profile = select_profile(config.agent.profile, model=model_name(config))
    call_format = get_call_format(resolve_call_format(config))
    tools = list(registry)
    offers_decline = config.agent.decline and bool(tools) and DECLINE not in registry
    if offers_decline:
        tools.append(decline_tool())

    def prompt_for(shown: Sequence[Tool]) -> str:
        return build_system_prompt(
            shown,
            manifest_format=config.agent.manifest_format,
            call_format=call_format,
            persona=config.agent.system_prompt,
        )

    wants_grammar = config.llm.llamacpp.grammar
    if wants_grammar is None:
        wants_grammar = profile.grammar
    llama_cpp = _runs_llama_cpp(config)
    # Tools llama.cpp cannot make a grammar of: left out of grammars, still callable.
    refused: set[str] = set()
    if tools and call_format.name in ("json", "fence") and llama_cpp:
        from edgeagent.llm.grammar import grammar_refusals

        for name, why in grammar_refusals(tools).items():
            log.warning(
                "tool %r: llama.cpp cannot make a grammar of its arguments schema (%s); "
                "it stays callable, but forced calls and [llm.llamacpp] grammar leave it out",
                name,
                why,
            )
            refused.add(name)

    def grammars_for(shown: Sequence[Tool]) -> TurnGrammars:
        """The grammars of a turn that shows the ``shown`` tools."""
        shown = [t for t in shown if t.name not in refused]
        if not (shown and call_format.name in ("json", "fence") and llama_cpp):
            return TurnGrammars()
        return turn_grammars(
            shown,
            call_format=call_format,
            every_step=bool(wants_grammar),
            second_look=config.agent.check_target,
        )

    def native_for(shown: Sequence[Tool]) -> list[dict[str, Any]] | None:
        # [llm.http] native_tools: the schemas go to the server as well as in the prompt.
        if config.llm.backend == "http" and config.llm.http.native_tools != "off" and shown:
            return render_openai(shown)
        return None

    def note_for(extra: Sequence[Tool]) -> str:
        return build_tools_note(extra, manifest_format=config.agent.manifest_format)

    after_primer = config.agent.selected_tools == "after_primer"

    def turn_for(always: Sequence[Tool], extra: Sequence[Tool]) -> TurnTools:
        """A selected turn: the grammars of an agent with the ``always`` shown tools and
        the ``extra`` ones; the system prompt shows both, or ([agent] selected_tools =
        "after_primer") the ``always`` ones only (the same for every turn, so it and the
        primer stay cached) and a note after the primer the ``extra`` ones."""
        shown = [*always, *extra]
        grammars = grammars_for(shown)
        native = native_for(shown)
        return TurnTools(
            tools=tuple(shown),
            system_prompt=prompt_for(always if after_primer else shown),
            note=note_for(extra) if extra and after_primer else None,
            grammar=grammars.grammar,
            call_grammar=grammars.call,
            recheck_grammar=grammars.recheck,
            recheck_without=grammars.recheck_without,
            recheck_elsewhere=grammars.recheck_elsewhere,
            act_grammar=grammars.act,
            native_tools=None if native is None else tuple(native),
        )

    system_prompt = prompt_for(tools)
    primer = build_primer(tools, call_format=call_format) if config.agent.primer else []
    grammars = grammars_for(tools)
    if wants_grammar and tools and grammars.grammar is None:
        log.warning(
            "[llm.llamacpp] grammar needs the json or fence call format and llama-cpp-python "
            "installed; [agent] call_format = %r runs unconstrained",
            call_format.name,
        )
    native_tools = native_for(tools)
    selector = None
    if config.agent.max_manifest_tokens and tools:
        selector = ToolSelector(
            tools,
            budget=config.agent.max_manifest_tokens,
            render=lambda shown: render_manifest_text(shown, config.agent.manifest_format),
            note=note_for if after_primer else None,
            build=turn_for,
            always=config.agent.always_tools,
        )
    return Agent(
        llm=llm,
        executor=executor,
        call_format=call_format,
        system_prompt=system_prompt,
        max_steps=config.agent.max_steps,
        max_calls_per_step=config.agent.max_calls_per_step,
        context_threshold=config.agent.context_threshold,
        max_tokens=config.llm.max_tokens,
        temperature=config.llm.temperature,
        grammar=grammars.grammar,
        native_tools=native_tools,
        primer=primer,
        stop=profile.stop,
        call_grammar=grammars.call,
        recheck_grammar=grammars.recheck,
        recheck_without=grammars.recheck_without,
        recheck_elsewhere=grammars.recheck_elsewhere,
        act_grammar=grammars.act,
        decline=offers_decline,
        check_target=config.agent.check_target,
        selector=selector,
        read_ahead=config.agent.read_ahead,
    )


@dataclass
class Runtime:
    """The assembled parts that answer a prompt; :func:`build_runtime` owns their lives."""

    tools: ToolSet
    executor: ToolExecutor
    llm: LLM
    agent: Agent


@contextlib.asynccontextmanager
async def build_runtime(
    config: Config,
    *,
    confirm: Confirm | None = None,
    on_tools: Callable[[ToolSet], None] | None = None,
    safe_state: bool = True,
    tools: ToolSet | None = None,
    llm: LLM | None = None,
) -> AsyncIterator[Runtime]:
    """Model, tools, executor and agent for ``config``, ready to run turns.

    The model loads in its worker while the plugins load here; ``on_tools`` sees the
    loaded tools (what failed, duplicates, bad ``.tool`` files) before the model is up.
    ``confirm`` asks before acting tools run (``edgeagent chat``). At exit the devices go
    into their safe state within ``[daemon] safe_state_timeout_s`` (unless ``safe_state``
    is false), then the model is released, each step even when the other fails.

    ``tools`` and ``llm`` are for a caller that keeps its own across several runtimes
    (the accuracy benchmark): they are used as given, and not closed here.
    """
    async with contextlib.AsyncExitStack() as stack:
        if llm is None:
            llm = build_llm(config)
            stack.push_async_callback(_logged, "release the model", llm.aclose)
        loading = asyncio.create_task(llm.start(), name="edgeagent-model-start")
        try:
            if tools is None:
                tools = built = build_tools(config)
                disconnect = built.disconnect
                stack.push_async_callback(
                    _logged, "disconnect the MCP servers", lambda: asyncio.to_thread(disconnect)
                )
                if safe_state:
                    timeout = config.daemon.safe_state_timeout_s
                    stack.push_async_callback(
                        _logged, "put the hardware into its safe state",
                        lambda: built.safe_state(timeout_s=timeout),
                    )  # fmt: skip
            if on_tools is not None:
                on_tools(tools)
            executor = build_executor(config, tools.registry, confirm=confirm)
            await loading
        finally:
            loading.cancel()  # when the tools failed first; a no-op once it is done
            await asyncio.gather(loading, return_exceptions=True)
        agent = build_agent(config, llm=llm, executor=executor, registry=tools.registry)
        stack.push_async_callback(_logged, "stop reading ahead", agent.stop_reading_ahead)
        yield Runtime(tools, executor, llm, agent)


async def _logged(what: str, step: Callable[[], Awaitable[None]]) -> None:
    """One step of a shutdown: a failure is logged and the next step still runs."""
    try:
        await step()
    except Exception:
        log.exception("shutdown: failed to %s", what)
