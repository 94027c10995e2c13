"""One TOML file, validated by pydantic, with ``EDGEAGENT_...`` environment overrides.

``EDGEAGENT_MQTT__PORT=1884`` overrides ``[mqtt] port`` (sections and keys joined by a
double underscore). An invalid config fails with the file, the key, the bad value and
what is allowed; ``edgeagent config check`` reports the same without starting anything.
"""

from __future__ import annotations

import json
import os
import socket
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from edgeagent.errors import ConfigError

ENV_PREFIX = "EDGEAGENT_"
SEARCH_PATHS = (Path("config/edgeagent.toml"), Path("/etc/edgeagent/edgeagent.toml"))
DEFAULT_CACHE = Path("~/.cache/edgeagent").expanduser()


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True)


# --- LLM -------------------------------------------------------------------------------


class LlamaCppConfig(Section):
    n_ctx: int = Field(4096, ge=512, le=131072)
    n_threads: int | None = Field(None, ge=1)
    grammar: bool | None = None
    """Constrain tool calls with a grammar built from the enabled tools' schemas;
    unset: as the model profile says ([agent] profile)."""
    plain_markers: bool = True
    """Spell call markers as ordinary text, not as the (untrained) special tokens."""


class HailoConfig(Section):
    hef: Path | None = None
    group_id: str = "SHARED"
    read_timeout_ms: int = Field(10000, ge=100)
    context_cache_dir: Path = DEFAULT_CACHE / "hailo"
    reprime_ratio: float = Field(0.8, gt=0, le=1)
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    frequency_penalty: float | None = None
    do_sample: bool | None = False
    seed: int | None = None
    call_markers: tuple[str, str] | tuple[()] | None = ("<tool-call>", "</tool-call>")
    """Plain-text spelling of the call tags for the model (the HEF's tokenizer would
    turn ``<tool_call>`` into Qwen-Coder's untrained special token); ``[]``: native tags."""


class HTTPConfig(Section):
    api: Literal["ollama", "openai"] = "ollama"
    base_url: str = "http://127.0.0.1:8000"
    model: str = "qwen2.5-coder:1.5b"
    api_key: str | None = None
    connect_timeout_s: float = Field(5.0, gt=0)
    read_timeout_s: float = Field(120.0, gt=0)
    native_tools: Literal["auto", "on", "off"] = "auto"
    context_window: int = Field(2048, ge=256)
    """The served model's context, for the agent's trimming budget (hailo-ollama: 2048)."""


class LLMConfig(Section):
    backend: Literal["auto", "hailo", "llamacpp", "http", "scripted"] = "auto"
    model: str = "qwen-coder-1.5b"
    """A GGUF path, or the name of a fetched model (``qwen-coder-1.5b``, ``smollm2``)."""
    models_dir: Path = DEFAULT_CACHE / "models"
    max_tokens: int = Field(256, ge=1, le=8192)
    temperature: float = Field(0.0, ge=0, le=2)
    generation_timeout_s: float = Field(120.0, gt=0)
    script: Path | None = None
    """Replies for the ``scripted`` backend (tests and load benchmarks only)."""
    llamacpp: LlamaCppConfig = LlamaCppConfig()
    hailo: HailoConfig = HailoConfig()
    http: HTTPConfig = HTTPConfig()


# --- Agent and tools -------------------------------------------------------------------


class AgentConfig(Section):
    manifest_format: Literal["concise", "verbose", "qwen", "openai", "anthropic"] = "concise"
    profile: str = "auto"
    """The model profile (edgeagent.llm.profiles): call format, stop words, grammar
    default. ``auto``: chosen from the model's name."""
    call_format: Literal["auto", "fence", "json", "xml"] = "auto"
    """``auto``: the profile's format."""
    primer: bool = True
    """Start each conversation with worked example turns (a call and a refusal)."""
    decline: bool = False
    """Offer the model a ``decline`` call for requests no tool serves (restraint)."""
    check_target: bool = True
    """Before an acting tool runs, ask the model in one constrained word which device
    the request is about; "none" refuses the call (restraint)."""
    max_steps: int = Field(5, ge=1, le=50)
    context_threshold: float = Field(0.8, gt=0, le=1)
    system_prompt: str | None = None
    """Replaces the built-in persona line; call instructions are always added."""


class PolicyConfig(Section):
    allow: dict[str, list[str]] = {}
    """Front end -> tools it may call (``["*"]`` for all). Unlisted front ends: all."""
    deny: dict[str, list[str]] = {}
    confirm_act: list[str] = ["chat"]
    """Front ends that ask before an acting tool runs."""


class ToolsConfig(Section):
    enabled: list[str] = []
    """Only these tools (empty: every loaded tool)."""
    disabled: list[str] = []
    wrapped_dir: Path | None = Path("tools.d")
    """``.tool`` files, relative to the config file's directory."""
    policy: PolicyConfig = PolicyConfig()


# --- Simulator and front ends ---------------------------------------------------------


class SimulatorConfig(Section):
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=1, le=65535)
    state_file: Path | None = DEFAULT_CACHE / "simulator.json"

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"


class TLSConfig(Section):
    enabled: bool = False
    ca_certs: Path | None = None
    certfile: Path | None = None
    keyfile: Path | None = None
    insecure: bool = False


class MQTTConfig(Section):
    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = Field(1883, ge=1, le=65535)
    device_id: str = Field(default_factory=lambda: socket.gethostname().split(".")[0] or "edge")
    base_topic: str | None = None
    """Defaults to ``edgeagent/<device_id>``."""
    username: str | None = None
    password: str | None = None
    tls: TLSConfig = TLSConfig()
    protocol: Literal["5", "3.1.1"] = "5"
    keepalive_s: int = Field(30, ge=5)
    session_expiry_s: int = Field(3600, ge=0)
    homeassistant_discovery: bool = False
    homeassistant_prefix: str = "homeassistant"
    shared_group: str | None = None
    """Also take prompts from ``$share/<group>/edgeagent/fleet/ask``."""
    max_payload_bytes: int = Field(16384, ge=64)

    @property
    def topic_base(self) -> str:
        return (self.base_topic or f"edgeagent/{self.device_id}").rstrip("/")


class SocketConfig(Section):
    enabled: bool = True
    path: Path = Path("/run/edgeagent/edgeagent.sock")
    group: str | None = None
    max_line_bytes: int = Field(65536, ge=256)


class DaemonConfig(Section):
    queue_size: int = Field(16, ge=1)
    request_timeout_s: float = Field(120.0, gt=0)
    shutdown_grace_s: float = Field(10.0, ge=0)
    session_idle_s: float = Field(900.0, gt=0)
    safe_state_on_exit: bool = True
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"


class Config(Section):
    llm: LLMConfig = LLMConfig()
    agent: AgentConfig = AgentConfig()
    tools: ToolsConfig = ToolsConfig()
    plugins: dict[str, dict[str, Any]] = {}
    """Per-plugin options, ``[plugins.<name>]``; each plugin validates its own table."""
    simulator: SimulatorConfig = SimulatorConfig()
    mqtt: MQTTConfig = MQTTConfig()
    socket: SocketConfig = SocketConfig()
    daemon: DaemonConfig = DaemonConfig()
    source: Path | None = Field(None, exclude=True)
    """The file this config was read from (``None`` for defaults only)."""

    def resolve(self, path: Path) -> Path:
        """A path from the config, relative to the config file's directory."""
        path = path.expanduser()
        if path.is_absolute() or self.source is None:
            return path
        return self.source.parent / path


def find_config(
    explicit: Path | None = None, *, env: Mapping[str, str] | None = None
) -> Path | None:
    """The config file to use: ``--config``, ``$EDGEAGENT_CONFIG``, then the search paths."""
    env = os.environ if env is None else env
    if explicit is not None:
        return explicit
    if env.get("EDGEAGENT_CONFIG"):
        return Path(env["EDGEAGENT_CONFIG"])
    return next((p for p in SEARCH_PATHS if p.is_file()), None)


def _parse_env_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _apply_env(data: dict[str, Any], env: Mapping[str, str]) -> dict[str, str]:
    """Apply ``EDGEAGENT_SECTION__KEY`` overrides in place; return key -> variable name."""
    origins: dict[str, str] = {}
    for var, raw in sorted(env.items()):
        if not var.startswith(ENV_PREFIX) or "__" not in var:
            continue
        parts = [p.lower() for p in var[len(ENV_PREFIX) :].split("__")]
        node = data
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ConfigError(f"{var} overrides {'.'.join(parts)}, but {part} is not a table")
            node = child
        node[parts[-1]] = _parse_env_value(raw)
        origins[".".join(parts)] = var
    return origins


def load_config(path: Path | None = None, *, env: Mapping[str, str] | None = None) -> Config:
    """Read, override from the environment, and validate. Raise :class:`ConfigError`."""
    env = os.environ if env is None else env
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(
                f"Config file {path} does not exist; copy config/edgeagent.toml (laptop) "
                f"or config/edgeagent.pi.toml (Pi) there, or pass --config"
            ) from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    origins = _apply_env(data, env)
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, path, origins)) from None
    config.source = path.resolve() if path is not None else None
    return config


def format_validation_error(
    exc: ValidationError, path: Path | None, origins: Mapping[str, str] | None = None
) -> str:
    where = str(path) if path else "the default config"
    lines = [f"Invalid configuration in {where}:"]
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        via = f" (from {origins[key]})" if origins and key in origins else ""
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key; check its spelling against config/edgeagent.toml"
        lines.append(f"  {key} = {err.get('input')!r}{via}: {msg}")
    return "\n".join(lines)
