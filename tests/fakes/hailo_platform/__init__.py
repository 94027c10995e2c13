"""A behavioural fake of HailoRT's ``hailo_platform`` (5.1.1/5.2.0) for edgeagent's tests.

Same names and signatures as the real package, and the same rules: one LLM holds the
device's KV cache at a time, one completion at a time, system messages and tools only
on a fresh context, a fixed context capacity, and ``load_context`` that keeps the
first-prompt state. A real llama.cpp model runs underneath (see :mod:`._llm`), so
templating, streaming, context accounting and save/load are real.

The "HEF" a test passes is a small JSON file: ``{"gguf": "/path/model.gguf"}``.
:data:`DEVICE` is the one physical device; tests read its ``log`` and set its knobs.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class HailoRTException(Exception):
    """Base of every HailoRT error (as in ``hailo_platform.pyhailort.pyhailort``)."""


class HailoRTTimeout(HailoRTException):
    """HAILO_TIMEOUT."""


class HailoRTInvalidOperationException(HailoRTException):
    """HAILO_INVALID_OPERATION."""


class HailoRTInvalidArgumentException(HailoRTException):
    """HAILO_INVALID_ARGUMENT."""


class HailoSchedulingAlgorithm(enum.IntEnum):
    NONE = 0
    ROUND_ROBIN = 1


@dataclass
class FakeDevice:
    """The state of the one physical Hailo-10H, shared by every VDevice in the process.

    ``log`` records what a user of the real device could observe (loads, prompts,
    releases) so tests assert on behaviour. ``read_delay_ms`` makes every token read
    take that long (a stalled device) to exercise read timeouts.
    """

    kv_cache_owner: Any = None
    vdevices: int = 0
    log: list[tuple[str, Any]] = field(default_factory=list)
    read_delay_ms: int = 0

    def reset(self) -> None:
        self.kv_cache_owner = None
        self.vdevices = 0
        self.log.clear()
        self.read_delay_ms = 0

    def events(self, kind: str) -> list[Any]:
        return [value for name, value in self.log if name == kind]


DEVICE = FakeDevice()


class _VDeviceParams:
    """What ``VDevice.create_params()`` returns: plain settable fields."""

    def __init__(self) -> None:
        self.device_count = 1
        self.device_ids: list[str] | None = None
        self.scheduling_algorithm = HailoSchedulingAlgorithm.ROUND_ROBIN
        self.group_id = "UNIQUE"
        self.multi_process_service = False


class VDevice:
    """``VDevice(params=None)``; ``release()`` or use it as a context manager."""

    def __init__(self, params: _VDeviceParams | None = None, *, device_ids: Any = None) -> None:
        self._params = params if params is not None else VDevice.create_params()
        self._released = False
        self._llms: list[Any] = []
        DEVICE.vdevices += 1
        DEVICE.log.append(("vdevice", self._params.group_id))

    @staticmethod
    def create_params() -> _VDeviceParams:
        return _VDeviceParams()

    @property
    def group_id(self) -> str:
        return str(self._params.group_id)

    def release(self) -> None:
        if self._released:
            return
        if any(not llm._released for llm in self._llms):
            # The real library tears the model down under the LLM's feet; make it loud.
            raise HailoRTException("VDevice released while an LLM created on it is alive")
        self._released = True
        DEVICE.vdevices -= 1
        DEVICE.log.append(("vdevice_release", self._params.group_id))

    def __enter__(self) -> VDevice:
        return self

    def __exit__(self, *args: object) -> bool:
        self.release()
        return False


__all__ = [
    "DEVICE",
    "HailoRTException",
    "HailoRTInvalidArgumentException",
    "HailoRTInvalidOperationException",
    "HailoRTTimeout",
    "HailoSchedulingAlgorithm",
    "VDevice",
]
