"""``edgeagent run | status | ask``: the daemon, and asking the running one.

``status`` and ``ask`` talk to it with :class:`~edgeagent.frontends.client.DaemonClient`;
without ``--socket`` they use the config's ``[socket] path``, or, with no config file
at all, each of :data:`~edgeagent.frontends.client.WELL_KNOWN_SOCKETS` in turn.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from edgeagent.cli import load
from edgeagent.cli.render import TurnRenderer
from edgeagent.errors import DaemonError, DaemonNotRunningError
from edgeagent.frontends.client import (
    SYSTEM_SOCKET,
    WELL_KNOWN_SOCKETS,
    DaemonClient,
    connect,
    event_from_line,
)

EXIT_NOT_RUNNING = 3
"""Like ``systemctl is-active``: 3 means the service is not running."""


class NotRunning(click.ClickException):
    exit_code = EXIT_NOT_RUNNING


def socket_paths(ctx: click.Context, explicit: Path | None) -> list[Path]:
    """Where to look for the daemon: ``--socket``; else the config's ``[socket] path``;
    with no config file and the default path, every well-known socket in turn (so
    ``ask`` finds a laptop daemon from any working directory)."""
    if explicit is not None:
        return [explicit]
    config = load(ctx)
    if config.source is None and config.socket.path == SYSTEM_SOCKET:
        return list(WELL_KNOWN_SOCKETS)
    return [config.socket.path]


@contextlib.contextmanager
def daemon_errors() -> Iterator[None]:
    """A client's failure as a one-line message (exit 3 when the daemon is not running)."""
    try:
        yield
    except DaemonNotRunningError as exc:
        raise NotRunning(str(exc)) from None
    except DaemonError as exc:
        raise click.ClickException(str(exc)) from None


def _connect(ctx: click.Context, explicit: Path | None, timeout_s: float | None) -> DaemonClient:
    with daemon_errors():
        return connect(socket_paths(ctx, explicit), timeout_s=timeout_s)


# --- run -------------------------------------------------------------------------------


@click.command()
@click.pass_context
def run(ctx: click.Context) -> None:
    """Run the daemon in the foreground (what the systemd unit starts)."""
    config = load(ctx)
    root = logging.getLogger()
    if root.level != logging.DEBUG:  # -v wins over [daemon] log_level
        root.setLevel(config.daemon.log_level)
    from edgeagent.daemon import run_daemon
    from edgeagent.errors import EdgeAgentError
    from edgeagent.logs import limit_repeats

    # A flood (a hostile client, accept() out of files) must not fill the journal.
    limiters = limit_repeats(root)
    try:
        code = run_daemon(config)
    except EdgeAgentError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    finally:
        for limiter in limiters:
            limiter.flush()
    sys.exit(code)


# --- status ----------------------------------------------------------------------------


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the raw status object.")
@click.option("--socket", "socket_path", type=click.Path(path_type=Path), help="Daemon socket.")
@click.pass_context
def status(ctx: click.Context, as_json: bool, socket_path: Path | None) -> None:
    """Show what the running daemon is doing."""
    with _connect(ctx, socket_path, 10) as client, daemon_errors():
        reply = next(client.request({"op": "status"}))
    if reply.get("type") != "status":
        raise click.ClickException(f"unexpected answer from edgeagent: {reply}")
    info = reply["status"]
    if as_json:
        click.echo(json.dumps(info, indent=2, sort_keys=True))
        return
    for label, value in _status_lines(info):
        click.echo(f"{label + ':':<10} {value}")


def _duration(seconds: float) -> str:
    s = int(seconds)
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    parts = (
        [f"{days}d"] * bool(days) + [f"{hours}h"] * bool(hours) + [f"{minutes}m"] * bool(minutes)
    )
    return " ".join([*parts, f"{s}s"])


def _status_lines(info: dict[str, Any]) -> list[tuple[str, str]]:
    req = info.get("requests", {})
    ctx = info.get("context") or {}
    context = ""
    if ctx.get("window"):
        used = ctx.get("used")
        context = f", context {used if used is not None else '?'}/{ctx['window']} tokens"
    mqtt = info.get("mqtt", {})
    mqtt_state = "disabled"
    if mqtt.get("enabled"):
        mqtt_state = "connected" if mqtt.get("connected") else "not connected"
    lines = [
        (
            "edgeagent",
            f"{info.get('state', '?')} (pid {info.get('pid', '?')}), "
            f"up {_duration(info.get('uptime_s', 0))}",
        ),
        ("model", f"{info.get('backend', '?')} {info.get('model', '?')}{context}"),
        (
            "requests",
            f"served {req.get('served', 0)}, failed {req.get('failed', 0)} (busy "
            f"{req.get('busy', 0)}, timed out {req.get('timed_out', 0)}, cancelled "
            f"{req.get('cancelled', 0)}); queue {info.get('queue_depth', 0)}/"
            f"{info.get('queue_size', '?')}, in flight {info.get('in_flight', 0)}",
        ),
        ("worker", f"{info.get('worker_restarts', 0)} restarts"),
        ("mqtt", mqtt_state),
        ("socket", str(info.get("socket"))),
        ("mcp", _mcp_line(info.get("mcp") or {})),
        ("sessions", str(info.get("sessions", 0))),
        ("tools", ", ".join(info.get("tools", [])) or "none"),
    ]
    for component, reason in sorted((info.get("degraded") or {}).items()):
        lines.append(("degraded", f"{component}: {reason}"))
    for name, server in sorted((info.get("mcp_servers") or {}).items()):
        lines.append((f"mcp:{name}", _mcp_server_line(server)))
    return lines


def _mcp_line(mcp: dict[str, Any]) -> str:
    """The daemon's MCP server: ``http://0.0.0.0:8766/mcp (token), 3 calls``."""
    if not mcp.get("enabled"):
        return "disabled"
    if not mcp.get("url"):
        return "not serving (see degraded)"
    token = " (token)" if mcp.get("token") else ""
    return f"{mcp['url']}{token}, {mcp.get('calls', 0)} calls"


def _mcp_server_line(server: dict[str, Any]) -> str:
    """``up, 6 tools (http://ha:8123/api/mcp)`` or ``down for 2m 3s: <why>; ...``."""
    state, tools = server.get("state", "?"), server.get("tools", 0)
    since = _duration(server.get("since_s", 0))
    head = f"{state}, {tools} tools" if state == "up" else f"{state} for {since}, {tools} tools"
    parts = [f"{head} ({server.get('target', '?')})"]
    if server.get("error"):
        parts.append(str(server["error"]))
    if "retry_in_s" in server:
        parts.append(f"next try in {_duration(server['retry_in_s'])}")
    if server.get("note"):
        parts.append(str(server["note"]))
    parts += [str(p) for p in server.get("problems", [])]
    return "; ".join(parts)


# --- ask -------------------------------------------------------------------------------


@click.command()
@click.argument("prompt", nargs=-1, required=True)
@click.option("--session", help="Continue this conversation (default: a one-shot turn).")
@click.option("--json", "as_json", is_flag=True, help="Print the raw event lines.")
@click.option("--socket", "socket_path", type=click.Path(path_type=Path), help="Daemon socket.")
@click.option("--timeout", "timeout_s", type=float, default=None, help="Give up after SECONDS.")
@click.pass_context
def ask(
    ctx: click.Context,
    prompt: tuple[str, ...],
    session: str | None,
    as_json: bool,
    socket_path: Path | None,
    timeout_s: float | None,
) -> None:
    """Ask the running daemon, e.g. edgeagent ask "turn the LED red"."""
    message = {
        "id": f"cli-{os.getpid()}",
        "prompt": " ".join(prompt),
        "session": session,
        "stream": True,
    }
    failed = False
    with _connect(ctx, socket_path, timeout_s) as client, daemon_errors():
        renderer = TurnRenderer()
        for line in client.request(message):
            if as_json:
                click.echo(json.dumps(line, ensure_ascii=False))
            else:
                event = event_from_line(line)
                if event is not None:
                    renderer.show(event)
            if line.get("type") in ("final", "error"):
                failed = line["type"] == "error"
                break
    if failed:
        sys.exit(1)
