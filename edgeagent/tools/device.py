"""Hardware behind a seam: backends chosen by name, opened on first use, one command at a time.

A plugin names the ways its device can be reached in one :class:`Backends` table
(``"real"``, ``"sim"``, ``"mock"``, ...), and ``context.device(...)`` turns the choice in
its options into a :class:`LazyDevice`. Nothing is opened while plugins load: ``config
check`` and ``tools list`` never claim a GPIO pin or an SPI bus that a running daemon
holds, and a device whose tools are disabled is never touched. The first tool call
opens it; ``close()`` releases it, and only if it was opened.

:class:`DeviceLock` lets one command at a time reach a device (a blink must not
interleave with a colour change). A command stuck in its backend (a simulator that
drips a byte a second, a wedged bus) must not turn every later command into a hang:
they wait a bounded time, then fail with a "busy" error the model and the user can read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from pydantic import BaseModel

from edgeagent.errors import ConfigError, HardwareError, ToolError

if TYPE_CHECKING:
    from edgeagent.tools.plugins import PluginContext

BUSY_WAIT_S = 5.0
"""Below the tools' own 10 s timeout, so a waiting call gives up (and never runs late)
before the executor stops waiting for it."""
DEVICE_MODEL = Path("/proc/device-tree/model")
"""Where a Raspberry Pi names its model (``Raspberry Pi 5 Model B Rev 1.0``)."""


class Closeable(Protocol):
    def close(self) -> None: ...


B = TypeVar("B", bound=Closeable)
O = TypeVar("O", bound=BaseModel)  # noqa: E741 -- the options model, as in Backends[O, B]


def board_model(model_file: Path = DEVICE_MODEL) -> str:
    """The board's model string, ``""`` where there is none (not a single-board computer)."""
    try:
        text = model_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text.rstrip("\x00").strip()


def is_raspberry_pi(model_file: Path = DEVICE_MODEL) -> bool:
    return board_model(model_file).startswith("Raspberry Pi")


def _nothing_to_check(options: BaseModel) -> None:
    return None


@dataclass(frozen=True)
class Backend(Generic[O, B]):
    """One way to reach a device."""

    open: Callable[[O, PluginContext], B]
    """Open the device (claim the pin, open the bus). Runs on the first tool call."""
    about: Callable[[O, PluginContext], str]
    """What this backend drives, in a few words, for the start-up log and ``config check``:
    ``"the simulator at http://127.0.0.1:8765"``."""
    hardware: bool = False
    """It drives real hardware. When a device falls back on a default backend that does
    not, start-up says how to choose one that does (a Pi that quietly drives nothing)."""
    check: Callable[[O], None] = _nothing_to_check
    """Runs while the plugin loads and must open nothing: is the library installed, does
    the device node exist? Raise :class:`HardwareError` naming the fix; the plugin is
    then skipped, as if it had failed to load."""


class Backends(Generic[O, B]):
    """A device's backends by the name its options choose, e.g. ``[plugins.led] backend``.

    ``key`` is the options field that holds the choice; type it as a ``Literal`` of the
    names here, so pydantic refuses anything else before this table is consulted.
    """

    def __init__(
        self, device: str, backends: Mapping[str, Backend[O, B]], *, key: str = "backend"
    ) -> None:
        self.device = device
        self.key = key
        self._backends = dict(backends)

    def names(self) -> list[str]:
        return list(self._backends)

    def choice(self, options: O) -> str:
        value = getattr(options, self.key)
        if not isinstance(value, str):
            raise TypeError(f"{type(options).__name__}.{self.key} must be a str, got {value!r}")
        return value

    def __getitem__(self, name: str) -> Backend[O, B]:
        try:
            return self._backends[name]
        except KeyError:
            raise ConfigError(
                f"{self.device}: no backend {name!r}; choose one of "
                f"{', '.join(map(repr, self._backends))}"
            ) from None

    def open(self, options: O, context: PluginContext) -> B:
        """Open the chosen backend now (tests, and :class:`LazyDevice` on first use)."""
        backend = self[self.choice(options)]
        backend.check(options)
        return backend.open(options, context)


class LazyDevice(Generic[B]):
    """A backend that is opened on first :meth:`get` and closed by :meth:`close`, if it
    was ever opened. Thread-safe: tools run in worker threads."""

    def __init__(self, opener: Callable[[], B], *, device: str, about: str = "") -> None:
        self.device = device
        self.about = about
        self._opener = opener
        self._backend: B | None = None
        self._closed = False
        self._lock = threading.Lock()

    @classmethod
    def of(cls, backend: B, *, device: str = "device") -> LazyDevice[B]:
        """An already open backend (tests, or a plugin embedded in another program)."""
        lazy = cls(lambda: backend, device=device)
        lazy._backend = backend
        return lazy

    @property
    def opened(self) -> bool:
        return self._backend is not None

    @property
    def backend(self) -> B | None:
        """The open backend, or ``None``; never opens (for tests and the safe state)."""
        return self._backend

    def get(self) -> B:
        """The backend, opened now if this is the first use."""
        with self._lock:
            if self._closed:
                raise HardwareError(f"the {self.device} is closed (edgeagent is shutting down)")
            if self._backend is None:
                self._backend = self._opener()
            return self._backend

    def close(self, safe_state: Callable[[B], None] | None = None) -> None:
        """If the device was ever opened: ``safe_state(backend)``, then ``backend.close()``.
        A device never opened is left as it is. Later uses fail. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            backend = self._backend
        if backend is None:
            return
        try:
            if safe_state is not None:
                safe_state(backend)
        finally:
            backend.close()


class DeviceLock:
    def __init__(self, device: str, *, wait_s: float = BUSY_WAIT_S) -> None:
        self.device = device
        self.wait_s = wait_s
        self._lock = threading.Lock()

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock for one command; :class:`ToolError` after ``wait_s``."""
        if not self._lock.acquire(timeout=self.wait_s):
            raise ToolError(
                f"{self.device} busy: a previous command is still running (waited "
                f"{self.wait_s:g} s); try again in a few seconds"
            )
        try:
            yield
        finally:
            self._lock.release()

    @contextmanager
    def held_if_free_within(self, wait_s: float) -> Iterator[bool]:
        """For the safe state at shutdown: wait up to ``wait_s`` for a running command,
        then go ahead either way (yields whether the lock is held)."""
        acquired = self._lock.acquire(timeout=wait_s)
        try:
            yield acquired
        finally:
            if acquired:
                self._lock.release()
