"""The configuration's schema: pydantic sections, one per TOML table, every value checked.

Reading a file and its ``EDGEAGENT_...`` environment overrides, and the errors that name
the file, the key and the bad value, are :mod:`edgeagent.config_file`.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import unicodedata
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

DEFAULT_CACHE = Path("~/.cache/edgeagent").expanduser()
MAX_SOCKET_PATH_BYTES = 107
"""The longest path ``bind()`` takes for an AF_UNIX socket (``sun_path`` is 108 bytes)."""


class Section(BaseModel):
    # Fields use StrictBool/StrictInt/StrictFloat: TOML has real booleans and numbers, so
    # "yes" or 1 for a flag is a guess the user should hear about, not a coercion. No
    # float may be inf or nan (an infinite timeout is no timeout).
    model_config = ConfigDict(extra="forbid", validate_default=True, allow_inf_nan=False)


# --- Value checks ----------------------------------------------------------------------


def _topic_text(value: str) -> str:
    """What every topic part the daemon publishes or subscribes under must satisfy."""
    if not value:
        raise ValueError("must not be empty")
    if value.startswith("$"):
        raise ValueError("must not start with '$' (such topics belong to the broker)")
    wildcards = sorted({c for c in value if c in "#+"})
    if wildcards:
        raise ValueError(
            f"must not contain {' or '.join(repr(c) for c in wildcards)}: MQTT wildcards are "
            f"not allowed in topics the daemon publishes to; use letters, digits, '-' or '_'"
        )
    control = next((c for c in value if unicodedata.category(c) in ("Cc", "Cs")), None)
    if control is not None:
        raise ValueError(f"must not contain control characters (found {control!r})")
    return value


def _topic_level(value: str) -> str:
    _topic_text(value)
    if "/" in value:
        raise ValueError("must be a single topic level, without '/'")
    return value


def _topic_prefix(value: str) -> str:
    value = _topic_text(value).rstrip("/")
    if "" in value.split("/"):
        raise ValueError("must not have empty levels ('/' at the start or '//'), e.g. 'edge/pi1'")
    return value


def _http_url(value: str) -> str:
    example = "e.g. 'http://127.0.0.1:8000' (hailo-ollama) or 'http://localhost:11434' (Ollama)"
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 -- parsing the port is the check (raises on 'x:abc')
    except ValueError as exc:
        raise ValueError(f"is not a valid URL ({exc}); {example}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"must be an http:// or https:// URL with a host, {example}")
    if any(c.isspace() or unicodedata.category(c) == "Cc" for c in value):
        raise ValueError(f"must not contain spaces or control characters, {example}")
    return value


def _socket_path(value: Path) -> Path:
    if value.name in ("", ".", ".."):  # "" reads as ".", the working directory
        raise ValueError("must name the socket file, e.g. /run/edgeagent/edgeagent.sock")
    raw = os.fsencode(value)
    if b"\0" in raw:
        raise ValueError("must not contain a NUL character")
    if len(raw) > MAX_SOCKET_PATH_BYTES:
        raise ValueError(
            f"is {len(raw)} bytes long, more than the {MAX_SOCKET_PATH_BYTES} a Unix socket "
            f"path may have; pick a shorter path, e.g. /run/edgeagent/edgeagent.sock"
        )
    return value


TopicLevel = Annotated[str, AfterValidator(_topic_level)]
"""One MQTT topic level: no wildcards, no '/', not empty, not a '$' topic."""
TopicPrefix = Annotated[str, AfterValidator(_topic_prefix)]
"""Leading topic levels: no wildcards, no empty level, not a '$' topic."""
HttpUrl = Annotated[str, AfterValidator(_http_url)]
SocketPath = Annotated[Path, AfterValidator(_socket_path)]


# --- LLM -------------------------------------------------------------------------------


class LlamaCppConfig(Section):
    n_ctx: StrictInt = Field(4096, ge=512, le=131072)
    n_threads: StrictInt | None = Field(None, ge=1)
    grammar: StrictBool | None = None
    """Constrain tool calls with a grammar built from the enabled tools' schemas;
    unset: as the model profile says ([agent] profile)."""
    plain_markers: StrictBool = True
    """Spell call markers as ordinary text, not as the (untrained) special tokens."""
    state_cache_dir: Path = DEFAULT_CACHE / "llamacpp"
    """Where the KV state of the system prompt and primer is saved, so a restart
    restores it instead of evaluating it again (edgeagent.llm.prompt_cache)."""
    state_cache_max_mb: StrictInt = Field(256, ge=0)
    """The state directory's bound (least recently used files go first); 0: no cache."""


class HailoConfig(Section):
    hef: Path | None = None
    group_id: str = "SHARED"
    read_timeout_ms: StrictInt = Field(10000, ge=100)
    context_cache_dir: Path = DEFAULT_CACHE / "hailo"
    reprime_ratio: StrictFloat = Field(0.8, gt=0, le=1)
    temperature: StrictFloat | None = None
    top_p: StrictFloat | None = None
    top_k: StrictInt | None = None
    frequency_penalty: StrictFloat | None = None
    do_sample: StrictBool | None = False
    seed: StrictInt | None = None
    call_markers: tuple[str, str] | tuple[()] | None = ("<tool-call>", "</tool-call>")
    """Plain-text spelling of the call tags for the model (the HEF's tokenizer would
    turn ``<tool_call>`` into Qwen-Coder's untrained special token); ``[]``: native tags."""


class HTTPConfig(Section):
    api: Literal["ollama", "openai"] = "ollama"
    base_url: HttpUrl = "http://127.0.0.1:8000"
    model: str = "qwen2.5-coder:1.5b"
    api_key: str | None = None
    connect_timeout_s: StrictFloat = Field(5.0, gt=0)
    read_timeout_s: StrictFloat = Field(120.0, gt=0)
    native_tools: Literal["auto", "on", "off"] = "auto"
    context_window: StrictInt = Field(2048, ge=256)
    """The served model's context, for the agent's trimming budget (hailo-ollama: 2048)."""


class LLMConfig(Section):
    backend: Literal["auto", "hailo", "llamacpp", "http", "scripted"] = "auto"
    model: str = "qwen-coder-1.5b"
    """A GGUF path, or the name of a fetched model (``qwen-coder-1.5b``, ``smollm2``)."""
    models_dir: Path = DEFAULT_CACHE / "models"
    max_tokens: StrictInt = Field(256, ge=1, le=8192)
    temperature: StrictFloat = Field(0.0, ge=0, le=2)
    generation_timeout_s: StrictFloat = Field(120.0, gt=0)
    start_timeout_s: StrictFloat = Field(120.0, gt=0)
    """The longest the model worker may take to load the model (a large model on an SD
    card is slow to read)."""
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
    primer: StrictBool = True
    """Start each conversation with worked example turns (a call and a refusal)."""
    decline: StrictBool = False
    """Offer the model a ``decline`` call for requests no tool serves (restraint)."""
    check_target: StrictBool = True
    """Before an acting tool runs, ask the model in one constrained word which device
    the request is about; "none" refuses the call (restraint)."""
    read_ahead: StrictBool = True
    """After a turn of a conversation, once the model is idle, read the turn's tool
    results and answer into its context, so the next turn evaluates only its prompt."""
    max_steps: StrictInt = Field(5, ge=1, le=50)
    max_calls_per_step: StrictInt = Field(4, ge=1, le=32)
    """Calls run from one model reply; the rest are refused and the model is told why."""
    context_threshold: StrictFloat = Field(0.8, gt=0, le=1)
    system_prompt: str | None = None
    """Replaces the built-in persona line; call instructions are always added."""
    max_manifest_tokens: StrictInt = Field(600, ge=0)
    """When the manifest of every tool is larger, each turn shows the tools not from an
    MCP server plus the remote ones the request is about (edgeagent.agent.selection).
    0: every tool, always."""
    always_tools: list[str] = []
    """Remote tools (or ``mcp:<server>`` plugins) shown on every turn regardless."""
    selected_tools: Literal["system_prompt", "after_primer"] = "system_prompt"
    """Where a selection's remote tools are shown: in the system prompt after the local
    tools, or in a message after the primer (the start of every conversation then stays
    the same and cached: faster on llama.cpp, less accurate; docs/benchmarks.md)."""


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
    disabled_plugins: list[str] = []
    """Plugins never imported: their tools do not exist and their devices are never opened."""
    wrapped_dir: Path | None = Path("tools.d")
    """``.tool`` files, relative to the config file's directory."""
    policy: PolicyConfig = PolicyConfig()


# --- Simulator and front ends ---------------------------------------------------------


class SimulatorConfig(Section):
    host: str = "127.0.0.1"
    port: StrictInt = Field(8765, ge=1, le=65535)
    state_file: Path | None = DEFAULT_CACHE / "simulator.json"
    allowed_hosts: list[str] = []
    """Host names the dashboard answers besides loopback ones (``localhost``,
    ``127.0.0.1``, ``[::1]``); a guard against DNS rebinding. ``["*"]``: any."""

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"


class TLSConfig(Section):
    enabled: StrictBool = False
    ca_certs: Path | None = None
    certfile: Path | None = None
    keyfile: Path | None = None
    insecure: StrictBool = False


class MQTTConfig(Section):
    enabled: StrictBool = False
    host: str = "127.0.0.1"
    port: StrictInt = Field(1883, ge=1, le=65535)
    device_id: TopicLevel = Field(
        default_factory=lambda: socket.gethostname().split(".")[0] or "edge"
    )
    base_topic: TopicPrefix = Field(None, validate_default=True)
    """The prefix of every topic; left out, ``edgeagent/<device_id>``."""
    username: str | None = None
    password: str | None = None
    password_file: Path | None = None
    """Read the password from this file (first line), so it need not be in the
    environment or the config; relative to the config file's directory."""
    tls: TLSConfig = TLSConfig()
    protocol: Literal["5", "3.1.1"] = "5"
    keepalive_s: StrictInt = Field(30, ge=5)
    session_expiry_s: StrictInt = Field(3600, ge=0)
    homeassistant_discovery: StrictBool = False
    """Announce the device to Home Assistant (``[homeassistant]`` says what it offers);
    ``false`` removes what an earlier run announced."""
    homeassistant_prefix: TopicPrefix = "homeassistant"
    homeassistant_status_topic: TopicPrefix = "homeassistant/status"
    """Home Assistant's birth and last-will topic (its MQTT options set it apart from
    the discovery prefix): ``online`` there re-announces the device."""
    shared_group: TopicLevel | None = None
    """Also take prompts from ``$share/<group>/<fleet_topic>`` (``edgeagent/fleet/ask``
    with the default base topic)."""
    max_payload_bytes: StrictInt = Field(16384, ge=64)
    response_topic_prefixes: list[TopicPrefix] = []
    """MQTT v5 response topics must start with one of these (empty: any topic that is
    not the daemon's own, the discovery prefix, ``$``-topics or wildcards)."""

    @field_validator("password_file")
    @classmethod
    def _one_password(cls, path: Path | None, info: ValidationInfo) -> Path | None:
        # On this key, so the error shows the file's path and never the password.
        if path is not None and info.data.get("password") is not None:
            raise ValueError(
                "password and password_file are both set; keep password_file and remove "
                "password (a password in the config or environment is readable by more)"
            )
        if path is not None and info.data.get("username") is None:
            raise ValueError("password_file needs [mqtt] username too; the broker asks for both")
        return path

    @property
    def fleet_topic(self) -> str:
        """Where a fleet's prompts go: ``fleet/ask`` beside the device's own level of the
        base topic (``edgeagent/pi1`` -> ``edgeagent/fleet/ask``)."""
        parent, _, _ = self.base_topic.rpartition("/")
        return f"{parent}/fleet/ask" if parent else "fleet/ask"

    @field_validator("base_topic", mode="before")
    @classmethod
    def _default_base_topic(cls, value: object, info: ValidationInfo) -> object:
        # device_id is validated first (declared first): the default follows it.
        if value is None:
            return f"edgeagent/{info.data.get('device_id', 'edge')}"
        return value


class HomeAssistantConfig(Section):
    """What the device offers Home Assistant when ``[mqtt] homeassistant_discovery`` is on."""

    buttons: dict[str, str] = {}
    """A button per entry, its name -> the prompt a press sends, e.g.
    ``{"Lights off" = "turn the LED off"}``."""
    prompt_expiry_s: StrictInt = Field(60, ge=1, le=86400)
    """A prompt from the text entity or a button that the broker held longer than this
    (the Pi was down) is dropped, not run late (MQTT v5 message expiry, set by HA)."""
    announce_delay_max_s: StrictFloat = Field(5.0, ge=0, le=300)
    """After Home Assistant comes online, re-announce within a random delay up to this
    (HA's advice: many devices answering its birth at once load the broker)."""

    @field_validator("buttons")
    @classmethod
    def _buttons(cls, buttons: dict[str, str]) -> dict[str, str]:
        # Entity ids come from the names, by the rule that makes every other entity id.
        from edgeagent.frontends.homeassistant import button_ids

        button_ids(buttons)  # ValueError naming an unusable or clashing name
        return buttons


class SocketConfig(Section):
    enabled: StrictBool = True
    path: SocketPath = Path("/run/edgeagent/edgeagent.sock")
    group: str | None = None
    max_line_bytes: StrictInt = Field(65536, ge=256)
    max_connections: StrictInt = Field(32, ge=1)
    """Clients connected at once; more are answered with an error and closed."""
    idle_timeout_s: StrictFloat = Field(300.0, gt=0)
    """A connection with no complete line for this long is closed."""


class MCPServerConfig(Section):
    """One MCP server whose tools join the registry, ``[mcp.servers.<name>]``."""

    url: HttpUrl | None = None
    """Its streamable HTTP endpoint, e.g. ``http://homeassistant.local:8123/api/mcp``."""
    command: list[str] = []
    """Or the command that starts it on stdio, e.g. ``["uvx", "mcp-server-time"]``."""
    env: dict[str, str] = {}
    """Environment for ``command`` (besides a minimal PATH/HOME)."""
    token_file: Path | None = None
    """A file holding the bearer token sent to ``url`` (mode 0600, like a password file)."""
    include: list[str] = []
    """Only these of its tools (by their name on the server); empty: all."""
    exclude: list[str] = []
    timeout_s: StrictFloat = Field(10.0, gt=0, le=300)
    """The longest one call to it, or connecting to it, may take."""

    @field_validator("command")
    @classmethod
    def _command(cls, command: list[str]) -> list[str]:
        if command and not command[0].strip():
            raise ValueError("must start with the program to run, e.g. ['uvx', 'mcp-server-time']")
        return command

    @model_validator(mode="after")
    def _one_transport(self) -> MCPServerConfig:
        if (self.url is None) == (not self.command):
            raise ValueError(
                "needs exactly one of url (streamable HTTP) or command (stdio), e.g. "
                'url = "http://127.0.0.1:8766/mcp" or '
                'command = ["edgeagent", "mcp", "serve"]'
            )
        return self


class MCPConfig(Section):
    """edgeagent as an MCP server (``edgeagent mcp serve``, or ``enabled`` in the daemon)
    and as a client of the servers in ``[mcp.servers.<name>]``."""

    enabled: StrictBool = False
    """``edgeagent run`` serves MCP over streamable HTTP on ``host``/``port`` too."""
    host: str = "127.0.0.1"
    port: StrictInt = Field(8766, ge=1, le=65535)
    token_file: Path | None = None
    """Clients must send ``Authorization: Bearer <the file's text>``. Required for a
    ``host`` that is not loopback."""
    queue_wait_s: StrictFloat = Field(5.0, gt=0, le=300)
    """How long an MCP client's tool call may wait behind a turn of the on-device agent
    before it is answered with an error (Home Assistant gives a call 10 s in all)."""
    servers: dict[str, MCPServerConfig] = {}

    @field_validator("servers")
    @classmethod
    def _server_names(cls, servers: dict[str, MCPServerConfig]) -> dict[str, MCPServerConfig]:
        for name in servers:
            if not name.isidentifier():
                raise ValueError(
                    f"server name {name!r} must be letters, digits and '_' (it prefixes "
                    f"its tools' names), e.g. [mcp.servers.homeassistant]"
                )
        return servers

    @model_validator(mode="after")
    def _token_off_loopback(self) -> MCPConfig:
        if self.token_file is None and not is_loopback(self.host):
            raise ValueError(
                f"host {self.host!r} is not a loopback address, and no token_file is set: "
                f"anyone on the network could move the hardware. Set token_file, or bind "
                f'host = "127.0.0.1"'
            )
        return self


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address to bind or to answer) is this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class DaemonConfig(Section):
    queue_size: StrictInt = Field(16, ge=1)
    request_timeout_s: StrictFloat = Field(120.0, gt=0)
    shutdown_grace_s: StrictFloat = Field(10.0, ge=0)
    session_idle_s: StrictFloat = Field(900.0, gt=0)
    safe_state_on_exit: StrictBool = True
    safe_state_timeout_s: StrictFloat = Field(5.0, gt=0)
    """The longest the safe-state step (LED dark, servo centred) may take at exit."""
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    trace_turns: StrictInt = Field(50, ge=0, le=1000)
    """Turns the trace keeps for a watcher that joins later (the dashboard's console,
    ``{"op": "trace"}`` on the socket); 0: live lines only."""


class Config(Section):
    llm: LLMConfig = LLMConfig()
    agent: AgentConfig = AgentConfig()
    tools: ToolsConfig = ToolsConfig()
    plugins: dict[str, dict[str, Any]] = {}
    """Per-plugin options, ``[plugins.<name>]``; each plugin validates its own table."""
    simulator: SimulatorConfig = SimulatorConfig()
    mqtt: MQTTConfig = MQTTConfig()
    homeassistant: HomeAssistantConfig = HomeAssistantConfig()
    socket: SocketConfig = SocketConfig()
    mcp: MCPConfig = MCPConfig()
    daemon: DaemonConfig = DaemonConfig()
    source: Path | None = Field(None, exclude=True)
    """The file this config was read from (``None`` for defaults only)."""

    def resolve(self, path: Path) -> Path:
        """A path from the config, relative to the config file's directory."""
        path = path.expanduser()
        if path.is_absolute() or self.source is None:
            return path
        return self.source.parent / path
