"""LLM backends: the engine protocol and its implementations.

Engines are synchronous and run inside the model worker process
(:mod:`edgeagent.llm.worker`); the agent loop talks to them through the asynchronous
:class:`~edgeagent.llm.base.LLM` protocol. Engine modules import their native libraries
lazily, so importing this package needs none of them.
"""

from edgeagent.llm.base import LLM, Engine, GenerateRequest, Message

__all__ = ["LLM", "Engine", "GenerateRequest", "Message"]
