"""``edgeagent run``: the long-running service, composed from the config.

Everything runs under one asyncio loop, except the model, which lives in its worker
process. Start-up order: tools (plugins, ``.tool`` files) -> executor -> model -> agent
and sessions -> scheduler -> front ends -> ``READY=1``. A plugin or front end that fails
is logged and listed under ``degraded`` in ``edgeagent status``; the daemon keeps
serving with what works.

Signals:

* SIGTERM, SIGINT: graceful stop. Stop accepting, let the request in flight finish within
  ``[daemon] shutdown_grace_s`` and cancel it after, publish ``offline`` (MQTT), put the
  hardware into its safe state, release the model, remove the socket.
* SIGHUP: ignored (logged). Reloading tools under a live model is not supported; use
  ``systemctl restart edgeagent``, which loses nothing that MQTT's persistent session
  holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import signal
import time
from typing import Any, Protocol

from edgeagent.config import Config
from edgeagent.systemd import Notifier

log = logging.getLogger(__name__)

STATUS_REFRESH_S = 5.0
"""How often the cached model status and systemd's STATUS= line are refreshed."""
FRONTEND_FLUSH_S = 2.0
"""After the queue is drained, how long a front end may take to deliver the last replies."""


class Frontend(Protocol):
    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class Daemon:
    """The composed service. ``await Daemon(config).run()`` until a stop signal."""

    def __init__(self, config: Config, *, notifier: Notifier | None = None) -> None:
        self.config = config
        self.notifier = notifier or Notifier(None)
        self.state = "starting"
        self.degraded: dict[str, str] = {}
        self.frontends: list[Any] = []
        self.toolset: Any = None
        self.llm: Any = None
        self.scheduler: Any = None
        self._engine_status: dict[str, Any] = {}
        self._stop: asyncio.Event | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._started = time.monotonic()
        self._stop_reason = ""

    # --- lifecycle -------------------------------------------------------------------

    async def run(self) -> int:
        """Start, serve until SIGTERM/SIGINT, shut down. The process exit status."""
        loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.request_stop, sig.name)
        loop.add_signal_handler(signal.SIGHUP, self._on_sighup)
        try:
            await self.start()
            await self._stop.wait()
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                loop.remove_signal_handler(sig)
            await self.shutdown()
        return 0

    def request_stop(self, reason: str = "stop requested") -> None:
        if self._stop is not None and not self._stop.is_set():
            log.info("%s: shutting down", reason)
            self._stop_reason = reason
            self._notify_stopping()
            self._stop.set()

    def _notify_stopping(self) -> None:
        if self.state != "stopping":
            self.state = "stopping"
            self.notifier.stopping(f"stopping ({self._stop_reason or 'shutdown'})")

    def _on_sighup(self) -> None:
        log.warning("SIGHUP ignored: restart edgeagent to reload its config and tools")

    async def start(self) -> None:
        """Compose and start everything; READY=1 once the model and front ends are up."""
        from edgeagent import compose

        config = self.config
        # The model worker loads in its own process while this one loads the plugins.
        self.notifier.status("loading the model and tools")
        self.llm = compose.build_llm(config)
        loading = asyncio.create_task(self._start_model(), name="edgeagent-model-start")
        try:
            self.toolset = compose.build_tools(config)
            for name, reason in self.toolset.report.failed.items():
                self._degrade(f"plugin {name}", reason)
            for duplicate in self.toolset.report.duplicates:
                self._degrade("tools", duplicate)
            for problem in self.toolset.wrapped_errors:
                self._degrade("tools.d", problem)
            executor = compose.build_executor(config, self.toolset.registry)
            self.notifier.status("loading the model")
            await loading
        finally:
            if not loading.done():
                loading.cancel()
        await self._refresh_engine_status()
        agent = compose.build_agent(
            config, llm=self.llm, executor=executor, registry=self.toolset.registry
        )

        from edgeagent.agent.context import SessionStore
        from edgeagent.scheduler import Scheduler

        sessions = SessionStore(system_prompt=agent.system_prompt, primer=agent.primer)
        self.scheduler = Scheduler(
            agent=agent,
            sessions=sessions,
            queue_size=config.daemon.queue_size,
            request_timeout_s=config.daemon.request_timeout_s,
            session_idle_s=config.daemon.session_idle_s,
            status_extra=self._status_extra,
            tool_list=self._tool_list,
        )
        self.scheduler.start()
        await self._start_frontends()
        if not self.frontends:
            raise RuntimeError(
                "no front end is running ([socket] and [mqtt] both disabled or failed: "
                + "; ".join(f"{k}: {v}" for k, v in self.degraded.items())
                + "); enable one in the config"
            )
        self.state = "ready"
        self.notifier.ready(self._status_line())
        self._tasks.append(asyncio.create_task(self._housekeeping(), name="edgeagent-status"))
        interval = self.notifier.watchdog_interval_s
        if interval is not None:
            self._tasks.append(
                asyncio.create_task(self._watchdog(interval), name="edgeagent-watchdog")
            )
        log.info("ready: %s", self._status_line())

    async def _start_model(self) -> None:
        starter = getattr(self.llm, "start", None)  # InProcessLLM has none: nothing to load
        if starter is not None:
            started = starter()
            if inspect.isawaitable(started):
                await started

    async def _start_frontends(self) -> None:
        candidates: list[Any] = []
        if self.config.socket.enabled:
            from edgeagent.frontends.socket import SocketFrontend

            candidates.append(SocketFrontend(self.config.socket, dispatcher=self.scheduler))
        if self.config.mqtt.enabled:
            try:
                from edgeagent.frontends.mqtt import MQTTFrontend
            except Exception as exc:
                self._degrade("mqtt", f"cannot load the MQTT front end: {exc}")
            else:
                candidates.append(MQTTFrontend(self.config.mqtt, dispatcher=self.scheduler))
        for frontend in candidates:
            name = getattr(frontend, "name", type(frontend).__name__)
            try:
                await frontend.start()
            except Exception as exc:
                self._degrade(name, f"failed to start: {exc}")
                continue
            self.frontends.append(frontend)
            if getattr(frontend, "degraded", None):
                self._degrade(name, str(frontend.degraded))

    async def shutdown(self) -> None:
        """Graceful stop; each part in its own try, so one failure cannot skip the rest."""
        self._notify_stopping()
        for frontend in self.frontends:
            stop_accepting = getattr(frontend, "stop_accepting", None)
            if stop_accepting is not None:
                with _logged("stop accepting on " + str(getattr(frontend, "name", frontend))):
                    stop_accepting()
        if self.scheduler is not None:
            with _logged("drain the request queue"):
                await self.scheduler.close(grace_s=self.config.daemon.shutdown_grace_s)
        for frontend in reversed(self.frontends):
            with _logged("stop front end " + str(getattr(frontend, "name", frontend))):
                # The queue is drained by now; a front end that takes a grace period
                # (MQTT) only needs it to publish the last replies, then ``offline``.
                if "grace_s" in inspect.signature(frontend.stop).parameters:
                    await frontend.stop(grace_s=FRONTEND_FLUSH_S)
                else:
                    await frontend.stop()
        self.frontends = []
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        if self.toolset is not None and self.config.daemon.safe_state_on_exit:
            with _logged("put the hardware into its safe state"):
                await asyncio.to_thread(self.toolset.close)
        if self.llm is not None:
            with _logged("release the model"):
                await self.llm.aclose()
            self.llm = None
        self.notifier.close()
        log.info("stopped")

    # --- health and status -----------------------------------------------------------

    def healthy(self) -> tuple[bool, str]:
        """Whether to pet the watchdog: the loop runs (we are in it) and the worker lives."""
        alive = getattr(self.llm, "alive", True)
        if callable(alive):
            alive = alive()
        if not alive:
            return False, "the model worker is not running"
        worker = getattr(self.scheduler, "_worker", None)
        if worker is not None and worker.done():
            return False, "the request scheduler stopped"
        return True, ""

    async def _watchdog(self, interval: float) -> None:
        withheld = False
        while True:
            ok, why = self.healthy()
            if ok:
                if withheld:
                    log.info("healthy again; pinging the systemd watchdog")
                withheld = False
                self.notifier.watchdog()
            else:
                if not withheld:
                    log.error("not pinging the systemd watchdog: %s", why)
                    withheld = True
                if self.scheduler is not None and not self.scheduler.in_flight:
                    # Asking a dead idle worker for its status restarts it; if that
                    # fails too, the missing pings let systemd restart the daemon.
                    await self._refresh_engine_status()
            await asyncio.sleep(interval)

    async def _housekeeping(self) -> None:
        last = ""
        while True:
            await asyncio.sleep(STATUS_REFRESH_S)
            if self.scheduler is not None and not self.scheduler.in_flight:
                await self._refresh_engine_status()
            line = self._status_line()
            if line != last:
                self.notifier.status(line)
                last = line

    async def _refresh_engine_status(self) -> None:
        if self.llm is None:
            return
        try:
            status = await asyncio.wait_for(self.llm.status(), 2.0)
        except Exception as exc:
            log.debug("model status unavailable: %s", exc)
            return
        self._engine_status = {
            "backend": status.backend,
            "model": status.model,
            "context": {"window": status.context_window, "used": status.context_used},
            "engine": status.extra,
        }

    def _status_line(self) -> str:
        c = self.scheduler.counters if self.scheduler is not None else None
        parts = [self.state, f"{len(self.toolset.registry) if self.toolset else 0} tools"]
        if self._engine_status:
            parts.append(f"{self._engine_status['backend']}:{self._engine_status['model']}")
        if c is not None:
            parts.append(
                f"served {c.served}, failed {c.failed}, queued {self.scheduler.queue_depth}"
            )
        if self.degraded:
            parts.append("degraded: " + ", ".join(sorted(self.degraded)))
        return "; ".join(parts)

    def _status_extra(self) -> dict[str, Any]:
        mqtt: dict[str, Any] = {"enabled": self.config.mqtt.enabled, "connected": False}
        for frontend in self.frontends:
            if hasattr(frontend, "connected"):
                details = getattr(frontend, "status", None)
                if callable(details):
                    mqtt.update(details())
                mqtt["connected"] = bool(frontend.connected)
        return {
            "state": self.state,
            "pid": os.getpid(),
            "uptime_s": round(time.monotonic() - self._started, 3),
            "backend": self._engine_status.get("backend", self.config.llm.backend),
            "model": self._engine_status.get("model", self.config.llm.model),
            "context": self._engine_status.get("context", {}),
            "worker_restarts": int(getattr(self.llm, "restarts", 0) or 0),
            "worker_pid": getattr(self.llm, "pid", None),
            "engine": self._engine_status.get("engine", {}),
            "mqtt": mqtt,
            "socket": str(self.config.socket.path) if self.config.socket.enabled else None,
            "tools": self.toolset.registry.names() if self.toolset else [],
            "degraded": dict(self.degraded),
        }

    def _tool_list(self) -> list[dict[str, Any]]:
        if self.toolset is None:
            return []
        return [
            {
                "name": t.name,
                "description": t.description,
                "kind": str(t.kind),
                "plugin": t.plugin,
                "parameters": t.parameters,
            }
            for t in self.toolset.registry
        ]

    def _degrade(self, component: str, reason: str) -> None:
        log.error("degraded: %s: %s", component, reason)
        self.degraded[component] = reason


@contextlib.contextmanager
def _logged(what: str) -> Any:
    try:
        yield
    except Exception:
        log.exception("shutdown: failed to %s", what)


def run_daemon(config: Config) -> int:
    """Run the daemon in this process until a stop signal; the exit status."""
    notifier = Notifier.from_env(os.environ, unset=True)
    daemon = Daemon(config, notifier=notifier)
    try:
        return asyncio.run(daemon.run())
    except Exception as exc:
        log.error("edgeagent failed: %s", exc)
        notifier.notify(f"STATUS=failed: {exc}")
        raise
