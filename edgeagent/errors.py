"""The one exception tree of edgeagent.

Every error edgeagent raises derives from :class:`EdgeAgentError`. Each leaf also
inherits the matching builtin, so callers can catch ``ValueError`` or
``TimeoutError`` without knowing this module. Messages name the bad value, what was
expected, and what to do next.
"""

from __future__ import annotations


class EdgeAgentError(Exception):
    """Base class for all edgeagent errors."""


class ConfigError(EdgeAgentError, ValueError):
    """The configuration file or an environment override is invalid."""


class PluginError(EdgeAgentError, RuntimeError):
    """A plugin failed to import or register its tools."""


class ToolDefinitionError(EdgeAgentError, TypeError):
    """A function cannot become a tool (bad signature, missing hints, bad .tool file)."""


class DuplicateToolError(EdgeAgentError, ValueError):
    """Two tools were registered under the same name."""


class ToolError(EdgeAgentError, RuntimeError):
    """A tool call failed; the message is shown to the model."""


class UnknownToolError(ToolError, LookupError):
    """The model asked for a tool that is not loaded."""


class ToolArgumentError(ToolError, ValueError):
    """The arguments of a tool call do not match the tool's schema."""


class ToolDeniedError(ToolError, PermissionError):
    """The call policy refused a tool call."""


class NothingEarlierError(ToolError, LookupError):
    """A call names an earlier result (math's ``ans``) in a conversation that holds
    none: raised by a tool's ``recall``, it is never run as written."""


class HardwareError(EdgeAgentError, RuntimeError):
    """A hardware backend (GPIO, SPI, simulator) cannot be reached or refused a command."""


class SimulatorUnreachableError(HardwareError, ConnectionError):
    """The Flask simulator is not reachable at its configured URL."""


class LLMError(EdgeAgentError, RuntimeError):
    """The language model backend failed."""


class BackendUnavailableError(LLMError):
    """No usable LLM backend is installed or configured."""


class ModelNotFoundError(LLMError, FileNotFoundError):
    """A model file (GGUF or HEF) is missing."""


class WorkerCrashedError(LLMError):
    """The model worker process died while serving a request."""


class GenerationTimeoutError(LLMError, TimeoutError):
    """The model did not produce output within the allowed time."""


class ContextOverflowError(LLMError):
    """The conversation cannot fit into the model's context window."""


class ProtocolError(EdgeAgentError, ValueError):
    """A front-end client sent a malformed request (bad JSON, bad UTF-8, too large)."""


class DaemonError(EdgeAgentError, ConnectionError):
    """A client cannot talk to the running daemon over its socket."""


class DaemonNotRunningError(DaemonError):
    """No daemon is listening on the socket."""


class DaemonPermissionError(DaemonError, PermissionError):
    """This user may not connect to the daemon's socket."""


class DaemonTimeoutError(DaemonError, TimeoutError):
    """The daemon did not answer within the client's timeout."""
