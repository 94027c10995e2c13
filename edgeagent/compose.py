"""The composition root: the one place that turns a :class:`Config` into live parts.

The daemon, ``edgeagent chat`` and ``edgeagent tools ...`` build what they need here;
nothing else chooses concrete backends.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING

from edgeagent.config import Config
from edgeagent.errors import HardwareError
from edgeagent.llm.profiles import select_profile
from edgeagent.tools.executor import CallPolicy, Confirm, ToolExecutor
from edgeagent.tools.plugins import PluginContext, PluginLoadReport, load_plugins
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import ToolKind

if TYPE_CHECKING:
    from edgeagent.agent.loop import Agent
    from edgeagent.llm.base import LLM

log = logging.getLogger(__name__)


@dataclass
class ToolSet:
    """The loaded tools and what it took to load them."""

    registry: ToolRegistry
    report: PluginLoadReport
    closers: list[Callable[[], None]] = field(default_factory=list)
    wrapped_errors: list[str] = field(default_factory=list)

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


def build_tools(
    config: Config,
    *,
    plugins: Iterable[tuple[str, ModuleType | object]] | None = None,
) -> ToolSet:
    """Load plugins (entry points, or ``plugins``), ``.tool`` files, then apply [tools]."""
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

    report = load_plugins(everything.add, contexts=context, plugins=plugins)
    wrapped_errors: list[str] = []
    if config.tools.wrapped_dir is not None:
        from edgeagent.tools.wrapped import load_wrapped_tools

        wrapped_errors = load_wrapped_tools(config.resolve(config.tools.wrapped_dir), everything)
    registry = everything.select(enabled=config.tools.enabled, disabled=config.tools.disabled)
    return ToolSet(registry, report, closers, wrapped_errors)


def build_executor(
    config: Config, registry: ToolRegistry, *, confirm: Confirm | None = None
) -> ToolExecutor:
    policy = CallPolicy(
        allow=config.tools.policy.allow,
        deny=config.tools.policy.deny,
        confirm_act=frozenset(config.tools.policy.confirm_act),
        confirm=confirm,
    )
    return ToolExecutor(registry, policy=policy)


def build_llm(config: Config, *, in_process: bool = False) -> LLM:
    """The model [llm] selects: in its worker process, or (tests, tools) in this one."""
    from edgeagent.llm.select import create_engine, select_engine_spec

    spec = select_engine_spec(config)
    if in_process:
        from edgeagent.llm.base import InProcessLLM

        return InProcessLLM(create_engine(spec))
    from edgeagent.llm.worker import WorkerLLM

    return WorkerLLM(spec, generation_timeout_s=config.llm.generation_timeout_s)


def _has_llama_cpp() -> bool:
    import importlib.util

    return importlib.util.find_spec("llama_cpp") is not None


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
    from edgeagent.agent.loop import Agent
    from edgeagent.agent.prompt import build_primer, build_system_prompt
    from edgeagent.tools.calls import get_call_format

    profile = select_profile(config.agent.profile, model=model_name(config))
    call_format = get_call_format(resolve_call_format(config))
    tools = list(registry)
    offers_decline = config.agent.decline and bool(tools) and DECLINE not in registry
    if offers_decline:
        tools.append(decline_tool())
    system_prompt = build_system_prompt(
        tools,
        manifest_format=config.agent.manifest_format,
        call_format=call_format,
        persona=config.agent.system_prompt,
    )
    primer = build_primer(tools, call_format=call_format) if config.agent.primer else []
    grammar: str | None = None
    call_grammar: str | None = None
    wants_grammar = config.llm.llamacpp.grammar
    if wants_grammar is None:
        wants_grammar = profile.grammar
    if tools and call_format.name in ("json", "fence") and _has_llama_cpp():
        from edgeagent.llm.grammar import build_tool_grammar

        # Engines other than llama.cpp ignore grammars, so they are safe to always pass
        # (the converter comes with llama-cpp-python; without it there is no grammar).
        opener = call_format.marker + ("json\n" if call_format.name == "fence" else "")
        closer = call_format.end_marker
        # A forced call is for a value only a tool can know: never an acting tool.
        readers = [t for t in tools if t.kind is ToolKind.READ and t.name != DECLINE]
        if readers:
            call_grammar = build_tool_grammar(
                readers, open_marker=opener, close_marker=closer, require_call=True
            )
        if wants_grammar:
            grammar = build_tool_grammar(
                tools, open_marker=opener, close_marker=closer, calls_first=True
            )
    elif wants_grammar and tools:
        log.warning(
            "[llm.llamacpp] grammar needs the json or fence call format and llama-cpp-python "
            "installed; [agent] call_format = %r runs unconstrained",
            call_format.name,
        )
    return Agent(
        llm=llm,
        executor=executor,
        call_format=call_format,
        system_prompt=system_prompt,
        max_steps=config.agent.max_steps,
        context_threshold=config.agent.context_threshold,
        max_tokens=config.llm.max_tokens,
        temperature=config.llm.temperature,
        grammar=grammar,
        primer=primer,
        stop=profile.stop,
        call_grammar=call_grammar,
        decline=offers_decline,
        check_target=config.agent.check_target,
    )
