"""Model profiles: what one model family needs to call tools well, in one table entry.

A small model follows what it was trained on and what the conversation shows it, not
what the documentation of its family says. Each profile records, as measured:

* the call format it writes reliably (Qwen2.5-Coder-1.5B writes a ```` ```json ````
  fence; its ``<tool_call>`` token is untrained and never emitted, see
  docs/architecture.md),
* the stop words that end a generation before the model writes a tool's answer itself
  (``<tool_response>``) or a new turn,
* whether llama.cpp's grammar helps it (measured in docs/benchmarks_accuracy.md).

Adding a model is a new :class:`ModelProfile` in :data:`PROFILES`. ``[agent] profile``
names one; ``auto`` picks the first whose ``match`` appears in the model's name (the
GGUF file, the HEF file or the HTTP model name), else :data:`GENERIC`.
"""

from __future__ import annotations

from dataclasses import dataclass

from edgeagent.errors import ConfigError


@dataclass(frozen=True)
class ModelProfile:
    name: str
    match: tuple[str, ...]
    """Lower-case substrings of a model name that select this profile under ``auto``."""
    call_format: str = "fence"
    """``fence``, ``json`` (``<tool_call>`` tags) or ``xml``; see edgeagent.tools.calls."""
    stop: tuple[str, ...] = ("<tool_response>", "</tool_response>")
    """Generation ends at these: the model must never write a tool's result itself."""
    grammar: bool = False
    """Constrain calls with a grammar by default on llama.cpp (``[llm.llamacpp] grammar``
    overrides)."""
    note: str = ""


GENERIC = ModelProfile(
    name="generic",
    match=(),
    note="Any instruct model: the Markdown fence is what small models write unprompted.",
)

PROFILES: tuple[ModelProfile, ...] = (
    ModelProfile(
        name="qwen2.5-coder",
        match=("qwen2.5-coder", "qwen-coder", "qwen2_5_coder"),
        note="Writes ```json fences; <tool_call> is an untrained special token.",
    ),
    ModelProfile(
        name="qwen2-function-calling",
        match=("function-calling", "function_calling"),
        note="Hailo zoo Qwen2-1.5B-Instruct-Function-Calling-v1; not yet measured here.",
    ),
    ModelProfile(
        name="qwen3",
        match=("qwen3",),
        call_format="json",
        stop=("<tool_response>", "</tool_response>", "<think>"),
        note="Trained on <tool_call> tags; thinking is cut off by the <think> stop word.",
    ),
    ModelProfile(
        name="qwen2.5",
        match=("qwen2.5", "qwen2_5", "qwen-1.5b", "qwen"),
        note="Qwen2.5-1.5B-Instruct on the Hailo-10H: fence, as for the Coder sibling.",
    ),
    ModelProfile(
        name="llama3.2",
        match=("llama-3.2", "llama3.2", "llama_3.2", "llama-3_2"),
        stop=("<tool_response>", "</tool_response>", "<|eom_id|>"),
        note="Llama-3.2-1B writes bare or fenced JSON calls; not yet measured here.",
    ),
    ModelProfile(
        name="smollm2",
        match=("smollm",),
        note="Test model only: too small to choose tools.",
    ),
)


def profile_names() -> list[str]:
    return [GENERIC.name, *(p.name for p in PROFILES)]


def select_profile(name: str, *, model: str) -> ModelProfile:
    """The profile ``[agent] profile`` names, or (``auto``) the one ``model`` matches."""
    if name == "auto":
        lowered = model.lower()
        return next((p for p in PROFILES if any(m in lowered for m in p.match)), GENERIC)
    for profile in (GENERIC, *PROFILES):
        if profile.name == name:
            return profile
    raise ConfigError(
        f"Unknown model profile {name!r}; expected auto or one of {', '.join(profile_names())} "
        f"(set [agent] profile)"
    )
