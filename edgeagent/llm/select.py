"""Backend selection: ``[llm] backend = auto|hailo|llamacpp|http|scripted``.

:func:`select_engine_spec` decides in the parent process and produces a picklable
:class:`EngineSpec`; :func:`create_engine` turns it into an engine wherever the model
runs (normally the worker process). Backend modules are imported only in
:func:`create_engine`, so choosing a backend never loads a native library here.

``auto`` never falls back to the scripted engine: a device with no usable model must
say so and what to install, not answer from a script.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edgeagent.config import Config, HailoConfig, HTTPConfig
from edgeagent.errors import BackendUnavailableError, ConfigError, ModelNotFoundError
from edgeagent.llm.base import Engine
from edgeagent.llm.models import fetch_command, resolve_model

BACKENDS = ("hailo", "llamacpp", "http", "scripted")


@dataclass(frozen=True)
class EngineSpec:
    """Which engine to build and with what keyword arguments (plain, picklable data)."""

    backend: str
    options: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        where = self.options.get("model_path") or self.options.get("script") or ""
        return f"{self.backend}{f' ({where})' if where else ''}"


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _hailo_spec(config: Config) -> EngineSpec:
    hailo = config.llm.hailo
    options = hailo.model_dump(mode="json")
    if hailo.hef is not None:
        options["hef"] = str(config.resolve(hailo.hef))
    options["context_cache_dir"] = str(config.resolve(hailo.context_cache_dir))
    return EngineSpec("hailo", {"config": options})


def _llamacpp_spec(config: Config) -> EngineSpec:
    if not _importable("llama_cpp"):
        raise BackendUnavailableError(
            "[llm] backend = 'llamacpp' but llama-cpp-python is not installed; build and "
            "install it with `scripts/build-llama-wheel.sh` (pip install "
            "'edgeagent[llamacpp]' also works, slowly)"
        )
    llm = config.llm
    model_path = resolve_model(llm.model, config.resolve(llm.models_dir))
    return EngineSpec(
        "llamacpp",
        {
            "model_path": str(config.resolve(model_path)),
            "n_ctx": llm.llamacpp.n_ctx,
            "n_threads": llm.llamacpp.n_threads,
            "plain_markers": llm.llamacpp.plain_markers,
            "state_cache_dir": str(config.resolve(llm.llamacpp.state_cache_dir)),
            "state_cache_max_mb": llm.llamacpp.state_cache_max_mb,
        },
    )


def _scripted_spec(config: Config) -> EngineSpec:
    if config.llm.script is None:
        raise ConfigError(
            "[llm] backend = 'scripted' needs [llm] script = '<path to a JSON script>'"
        )
    return EngineSpec("scripted", {"script": str(config.resolve(config.llm.script))})


def select_engine_spec(config: Config) -> EngineSpec:
    """The engine ``config`` asks for; ``auto`` = Hailo, else llama.cpp, else an error."""
    backend = config.llm.backend
    if backend == "hailo":
        if config.llm.hailo.hef is None:
            raise ConfigError("[llm] backend = 'hailo' needs [llm.hailo] hef = '<model .hef>'")
        return _hailo_spec(config)
    if backend == "llamacpp":
        return _llamacpp_spec(config)
    if backend == "http":
        return EngineSpec("http", {"config": config.llm.http.model_dump(mode="json")})
    if backend == "scripted":
        return _scripted_spec(config)

    reasons = []
    if config.llm.hailo.hef is not None and _importable("hailo_platform"):
        return _hailo_spec(config)
    if config.llm.hailo.hef is not None:
        reasons.append("[llm.hailo] hef is set but hailo_platform (HailoRT) is not installed")
    else:
        reasons.append("no [llm.hailo] hef is configured")
    if not _importable("llama_cpp"):
        reasons.append("llama-cpp-python is not installed (scripts/build-llama-wheel.sh)")
    else:
        try:
            return _llamacpp_spec(config)
        except ModelNotFoundError as exc:
            reasons.append(str(exc))
    raise BackendUnavailableError(
        "No LLM backend is usable: "
        + "; ".join(reasons)
        + f". Install llama-cpp-python and run `{fetch_command('qwen-coder-1.5b')}`, or set "
        "[llm] backend = 'http' with [llm.http] base_url, or [llm.hailo] hef on a Hailo-10H."
    )


def create_engine(spec: EngineSpec) -> Engine:
    """Build the engine a spec describes, importing only that backend's module."""
    opts = dict(spec.options)
    if spec.backend == "llamacpp":
        from edgeagent.llm.llamacpp import LlamaCppEngine
        from edgeagent.llm.prompt_cache import PromptStateCache

        max_mb = int(opts.get("state_cache_max_mb", 0))
        states = None
        if max_mb > 0 and opts.get("state_cache_dir"):
            states = PromptStateCache(Path(opts["state_cache_dir"]), max_bytes=max_mb * 2**20)
        return LlamaCppEngine(
            model_path=Path(opts["model_path"]),
            n_ctx=int(opts["n_ctx"]),
            n_threads=opts.get("n_threads"),
            plain_markers=bool(opts.get("plain_markers", True)),
            state_cache=states,
        )
    if spec.backend == "hailo":
        from edgeagent.llm.hailo import HailoEngine

        hailo = HailoConfig.model_validate(opts["config"])
        # The engine takes the [llm.hailo] fields as keyword arguments.
        fields = {name: getattr(hailo, name) for name in type(hailo).model_fields}
        if fields.get("call_markers") == ():
            fields["call_markers"] = None
        engine: Engine = HailoEngine(**fields)
        return engine
    if spec.backend == "http":
        from edgeagent.llm.http import HTTPEngine

        http = HTTPConfig.model_validate(opts["config"])
        engine = HTTPEngine(**{name: getattr(http, name) for name in type(http).model_fields})
        return engine
    if spec.backend == "scripted":
        from edgeagent.llm.scripted import ScriptedEngine

        return ScriptedEngine.from_file(Path(opts["script"]))
    raise ConfigError(
        f"Unknown LLM backend {spec.backend!r}; expected one of {', '.join(BACKENDS)}"
    )
