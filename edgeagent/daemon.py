"""``edgeagent run``: the long-running service, composed from the config.

Everything runs under one asyncio loop, except the model, which lives in its worker
process. Start-up order: :func:`edgeagent.compose.build_runtime` (the model loads in its
worker while the tools load here, then the executor and the agent) -> sessions and
scheduler -> front ends -> ``READY=1``. A plugin or front end that fails is logged and
listed under ``degraded`` in ``edgeagent status``; the daemon keeps serving with what
works.

The daemon is the :class:`~edgeagent.frontends.base.Dispatcher` of its front ends:
prompts go on to the scheduler, and :meth:`Daemon.status` is the one place that
composes what ``edgeagent status`` shows (the daemon's state, the model, the queue, the
front ends, the tools).

Signals:

* SIGTERM, SIGINT: graceful stop. Stop accepting, let the request in flight finish within
  ``[daemon] shutdown_grace_s`` and cancel it after, publish ``offline`` (MQTT), put the
  hardware into its safe state (within ``[daemon] safe_state_timeout_s``), release the
  model, remove the socket.
* SIGHUP: ignored (logged). Reloading tools under a live model is not supported; use
  ``systemctl restart edgeagent``, which loses nothing that MQTT's persistent session
  holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import AsyncGenerator, Iterator

from edgeagent.agent.context import SessionStore
from edgeagent.agent.events import ErrorEvent, Event
from edgeagent.compose import Runtime, ToolSet, build_runtime
from edgeagent.config import Config, MQTTConfig
from edgeagent.errors import ConfigError
from edgeagent.frontends.base import Frontend, Request, ToolRequest
from edgeagent.jsontypes import JSONValue
from edgeagent.llm.base import EngineStatus, Message
from edgeagent.scheduler import Scheduler
from edgeagent.systemd import Notifier
from edgeagent.tools.tool import ToolResult
from edgeagent.trace import TraceHub

log = logging.getLogger(__name__)

STATUS_REFRESH_S = 5.0
"""How often the cached model status and systemd's STATUS= line are refreshed."""
FRONTEND_FLUSH_S = 2.0
"""After the queue is drained, how long a front end may take to deliver the last replies."""


class Daemon:
    """The composed service. ``await Daemon(config).run()`` until a stop signal."""

    def __init__(self, config: Config, *, notifier: Notifier | None = None) -> None:
        self.config = config
        self.notifier = notifier or Notifier(None)
        self.state = "starting"
        self.degraded: dict[str, str] = {}
        self.runtime: Runtime | None = None
        self.scheduler: Scheduler | None = None
        self.trace = TraceHub(turns=config.daemon.trace_turns)
        """Every turn, for the socket's ``{"op": "trace"}`` (the dashboard's console)."""
        self.frontends: list[Frontend] = []
        self._engine: EngineStatus | None = None
        """The model's last status, refreshed while no request runs (asking a busy
        worker would wait for the turn)."""
        self._parts = contextlib.AsyncExitStack()
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
        config = self.config
        self.notifier.status("loading the model and tools")
        self.runtime = runtime = await self._parts.enter_async_context(
            build_runtime(
                config,
                on_tools=self._tools_loaded,
                safe_state=config.daemon.safe_state_on_exit,
            )
        )
        await self._refresh_engine_status()
        agent = runtime.agent
        # The start every conversation shares is primed (restored from the model's state
        # cache, or evaluated) in the background once READY is sent. The model is held
        # for it from here on, before any front end listens, so a first turn (an MQTT
        # prompt queued while we were down) waits for it rather than evaluating it all.
        ready = asyncio.Event()
        # Under tool selection that start is the always-shown tools' prompt and the
        # primer: with [agent] selected_tools = "after_primer" every turn starts so.
        await agent.prepare()
        prefix = agent.new_conversation().messages
        priming = self._prime(prefix, after=ready)
        self._tasks.append(asyncio.create_task(priming, name="edgeagent-prime"))
        self.scheduler = Scheduler(
            agent=agent,
            tools=runtime.executor,
            sessions=SessionStore(system_prompt=agent.system_prompt, primer=agent.primer),
            queue_size=config.daemon.queue_size,
            request_timeout_s=config.daemon.request_timeout_s,
            session_idle_s=config.daemon.session_idle_s,
            trace=self.trace,
        )
        self.scheduler.start()
        await self._start_frontends()
        if not self.frontends:
            raise ConfigError(
                "no front end is running ([socket], [mqtt] and [mcp] disabled or failed: "
                + "; ".join(f"{k}: {v}" for k, v in self.degraded.items())
                + "); enable one in the config"
            )
        self.state = "ready"
        self.notifier.ready(self._status_line())
        ready.set()
        self._tasks.append(asyncio.create_task(self._housekeeping(), name="edgeagent-status"))
        interval = self.notifier.watchdog_interval_s
        if interval is not None:
            self._tasks.append(
                asyncio.create_task(self._watchdog(interval), name="edgeagent-watchdog")
            )
        log.info("ready: %s", self._status_line())

    async def _prime(self, prefix: list[Message], *, after: asyncio.Event) -> None:
        assert self.runtime is not None
        try:
            await self.runtime.llm.prime(prefix, after=after)
        except Exception as exc:
            log.warning("could not prime the model (the first turn evaluates it all): %s", exc)

    def _tools_loaded(self, tools: ToolSet) -> None:
        for name, reason in tools.report.failed.items():
            self._degrade(f"plugin {name}", reason)
        for duplicate in tools.report.duplicates:
            self._degrade("tools", duplicate)
        for problem in tools.wrapped_errors:
            self._degrade("tools.d", problem)
        self.notifier.status("loading the model")

    def _make_frontends(self, *, dashboard_url: str | None = None) -> list[Frontend]:
        frontends: list[Frontend] = []
        if self.config.socket.enabled:
            from edgeagent.frontends.socket import SocketFrontend

            frontends.append(SocketFrontend(self.config.socket, dispatcher=self, trace=self.trace))
        if self.config.mqtt.enabled:
            try:
                from edgeagent.frontends.mqtt import MQTTFrontend
            except Exception as exc:
                self._degrade("mqtt", f"cannot load the MQTT front end: {exc}")
            else:
                mqtt = MQTTFrontend(
                    mqtt_files(self.config),
                    dispatcher=self,
                    homeassistant=self.config.homeassistant,
                    dashboard_url=dashboard_url,
                )
                frontends.append(mqtt)
        if self.config.mcp.enabled and self.runtime is not None:
            from edgeagent.frontends.mcp import MCPFrontend

            mcp = MCPFrontend.from_config(self.config, runtime=self.runtime, dispatcher=self)
            frontends.append(mcp)
        return frontends

    async def _dashboard_url(self) -> str | None:
        """The simulators' dashboard, when one answers at ``[simulator]`` host and port:
        Home Assistant links the device to it."""
        sim = self.config.simulator
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(sim.host, sim.port), 0.5)
        except (OSError, TimeoutError):
            return None
        writer.close()
        return sim.url

    async def _start_frontends(self) -> None:
        announce = self.config.mqtt.enabled and self.config.mqtt.homeassistant_discovery
        dashboard_url = await self._dashboard_url() if announce else None
        for frontend in self._make_frontends(dashboard_url=dashboard_url):
            try:
                await frontend.start()
            except Exception as exc:
                self._degrade(frontend.name, f"failed to start: {exc}")
                continue
            self.frontends.append(frontend)
            if frontend.degraded:
                self._degrade(frontend.name, frontend.degraded)

    async def shutdown(self) -> None:
        """Graceful stop; each part in its own try, so one failure cannot skip the rest."""
        self._notify_stopping()
        for frontend in self.frontends:
            with _logged(f"stop accepting on {frontend.name}"):
                frontend.stop_accepting()
        if self.scheduler is not None:
            with _logged("drain the request queue"):
                await self.scheduler.close(grace_s=self.config.daemon.shutdown_grace_s)
        for frontend in reversed(self.frontends):
            with _logged(f"stop front end {frontend.name}"):
                # The queue is drained by now: a front end only needs the grace period
                # to deliver the last replies (MQTT: then publish ``offline``).
                await frontend.stop(grace_s=FRONTEND_FLUSH_S)
        self.frontends = []
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        # build_runtime's exit: the hardware into its safe state, then the model released.
        with _logged("close the tools and the model"):
            await self._parts.aclose()
        self.runtime = None
        self.notifier.close()
        log.info("stopped")

    # --- the Dispatcher its front ends submit to --------------------------------------

    def submit(self, request: Request | ToolRequest) -> AsyncGenerator[Event, None]:
        if self.scheduler is None:
            return _refused("edgeagent is still starting; try again shortly")
        return self.scheduler.submit(request)

    async def call_tool(self, request: ToolRequest) -> ToolResult:
        if self.scheduler is None:
            return ToolResult.failure("edgeagent is still starting; try again shortly")
        return await self.scheduler.call_tool(request)

    def reset_session(self, session: str, *, frontend: str) -> bool:
        return self.scheduler is not None and self.scheduler.reset_session(
            session, frontend=frontend
        )

    def tools(self) -> list[dict[str, JSONValue]]:
        if self.runtime is None:
            return []
        return [
            {
                "name": t.name,
                "description": t.description,
                "kind": str(t.kind),
                "plugin": t.plugin,
                "parameters": t.parameters,
            }
            for t in self.runtime.tools.registry
        ]

    def status(self) -> dict[str, JSONValue]:
        """What ``edgeagent status`` shows; composed here and nowhere else."""
        engine, llm = self._engine, self.runtime.llm if self.runtime else None
        mqtt: dict[str, JSONValue] = {"enabled": self.config.mqtt.enabled, "connected": False}
        mcp: dict[str, JSONValue] = {"enabled": self.config.mcp.enabled, "url": None}
        for frontend in self.frontends:
            if frontend.name == "mqtt":
                mqtt.update(frontend.status())
            elif frontend.name == "mcp":
                mcp.update(frontend.status())
        return {
            **(self.scheduler.status() if self.scheduler is not None else {}),
            "state": self.state,
            "pid": os.getpid(),
            "uptime_s": round(time.monotonic() - self._started, 3),
            "backend": engine.backend if engine else self.config.llm.backend,
            "model": engine.model if engine else self.config.llm.model,
            "context": (
                {"window": engine.context_window, "used": engine.context_used} if engine else {}
            ),
            "worker_restarts": llm.restarts if llm else 0,
            "worker_pid": llm.pid if llm else None,
            "engine": engine.extra if engine else {},
            "mqtt": mqtt,
            "socket": str(self.config.socket.path) if self.config.socket.enabled else None,
            "mcp": mcp,
            "tools": list(self.runtime.tools.registry.names()) if self.runtime else [],
            "degraded": dict(self.degraded),
            "mcp_servers": self._mcp_servers(),
        }

    def _mcp_servers(self) -> dict[str, JSONValue]:
        """Each ``[mcp.servers.<name>]``: up or down (and why), its tools, retries."""
        mcp = self.runtime.tools.mcp if self.runtime is not None else None
        return mcp.status() if mcp is not None else {}

    # --- health ----------------------------------------------------------------------

    def healthy(self) -> tuple[bool, str]:
        """Whether to pet the watchdog: the loop runs (we are in it) and the worker lives."""
        if self.runtime is not None and not self.runtime.llm.alive:
            return False, "the model worker is not running"
        if self.scheduler is not None and self.scheduler.crashed:
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
        if self.runtime is None:
            return
        try:
            self._engine = await asyncio.wait_for(self.runtime.llm.status(), 2.0)
        except Exception as exc:
            log.debug("model status unavailable: %s", exc)

    def _status_line(self) -> str:
        tools = len(self.runtime.tools.registry) if self.runtime else 0
        parts = [self.state, f"{tools} tools"]
        if self._engine is not None:
            parts.append(f"{self._engine.backend}:{self._engine.model}")
        if self.scheduler is not None:
            c = self.scheduler.counters
            parts.append(
                f"served {c.served}, failed {c.failed}, queued {self.scheduler.queue_depth}"
            )
        if self.degraded:
            parts.append("degraded: " + ", ".join(sorted(self.degraded)))
        return "; ".join(parts)

    def _degrade(self, component: str, reason: str) -> None:
        log.error("degraded: %s: %s", component, reason)
        self.degraded[component] = reason


async def _refused(message: str) -> AsyncGenerator[Event, None]:
    yield ErrorEvent(message)


@contextlib.contextmanager
def _logged(what: str) -> Iterator[None]:
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


def mqtt_files(config: Config) -> MQTTConfig:
    """``[mqtt]`` with its files (password, TLS) relative to the config file's directory,
    like every other path in the config."""
    mqtt, tls = config.mqtt, config.mqtt.tls
    files = (("ca_certs", tls.ca_certs), ("certfile", tls.certfile), ("keyfile", tls.keyfile))
    tls_files = {key: config.resolve(path) for key, path in files if path is not None}
    update: dict[str, object] = {"tls": tls.model_copy(update=tls_files)}
    if mqtt.password_file is not None:
        update["password_file"] = config.resolve(mqtt.password_file)
    return mqtt.model_copy(update=update)
