"""``hailo_platform.genai``: the GenAI classes (fake; see the package docstring)."""

from hailo_platform import VDevice
from hailo_platform._llm import LLM, LLMGeneratorCompletion, LLMGeneratorCompletionStatus

__all__ = ["LLM", "LLMGeneratorCompletion", "LLMGeneratorCompletionStatus", "VDevice"]
