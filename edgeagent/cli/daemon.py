"""``edgeagent run | status | ask | install-service``: the daemon and its local clients.

``status`` and ``ask`` talk to a running daemon over its Unix socket (newline-delimited
JSON, see :mod:`edgeagent.frontends.socket`) with a plain blocking socket, so they start
in a fraction of a second and import nothing of the daemon.
"""

from __future__ import annotations

import grp
import json
import logging
import os
import pwd
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from edgeagent.cli import load

EXIT_NOT_RUNNING = 3
"""Like ``systemctl is-active``: 3 means the service is not running."""


class NotRunning(click.ClickException):
    exit_code = EXIT_NOT_RUNNING


def _socket_path(ctx: click.Context, explicit: Path | None) -> Path:
    return explicit if explicit is not None else Path(load(ctx).socket.path)


class DaemonClient:
    """One connection to the daemon's socket; ``request()`` yields its reply lines."""

    def __init__(self, path: Path, *, timeout_s: float | None = None) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout_s)
        try:
            self.sock.connect(str(path))
        except FileNotFoundError:
            self.sock.close()
            raise NotRunning(
                f"edgeagent is not running (no socket at {path}); start it with "
                f"`edgeagent run` or `systemctl start edgeagent`"
            ) from None
        except ConnectionRefusedError:
            self.sock.close()
            raise NotRunning(
                f"edgeagent is not running (the socket {path} refuses connections; a "
                f"daemon died without removing it); start it with `edgeagent run` or "
                f"`systemctl start edgeagent`"
            ) from None
        except PermissionError:
            self.sock.close()
            raise click.ClickException(
                f"permission denied on {path}: add your user to the socket's group "
                f"([socket] group) and log in again, or use sudo"
            ) from None
        self.file = self.sock.makefile("rb")

    def request(self, message: dict[str, Any]) -> Iterator[dict[str, Any]]:
        self.sock.sendall(json.dumps(message).encode() + b"\n")
        while True:
            try:
                line = self.file.readline()
            except TimeoutError:
                raise click.ClickException(
                    f"no answer from edgeagent within {self.sock.gettimeout():g} s"
                ) from None
            if not line:
                raise click.ClickException("edgeagent closed the connection before answering")
            yield json.loads(line)

    def close(self) -> None:
        self.file.close()
        self.sock.close()

    def __enter__(self) -> DaemonClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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

    try:
        code = run_daemon(config)
    except EdgeAgentError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except RuntimeError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    sys.exit(code)


# --- status ----------------------------------------------------------------------------


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the raw status object.")
@click.option("--socket", "socket_path", type=click.Path(path_type=Path), help="Daemon socket.")
@click.pass_context
def status(ctx: click.Context, as_json: bool, socket_path: Path | None) -> None:
    """Show what the running daemon is doing."""
    with DaemonClient(_socket_path(ctx, socket_path), timeout_s=10) as client:
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
        ("sessions", str(info.get("sessions", 0))),
        ("tools", ", ".join(info.get("tools", [])) or "none"),
    ]
    for component, reason in sorted((info.get("degraded") or {}).items()):
        lines.append(("degraded", f"{component}: {reason}"))
    return lines


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
    with DaemonClient(_socket_path(ctx, socket_path), timeout_s=timeout_s) as client:
        printer = _AnswerPrinter()
        for event in client.request(message):
            if as_json:
                click.echo(json.dumps(event, ensure_ascii=False))
            else:
                printer.show(event)
            if event.get("type") in ("final", "error"):
                break
    if event.get("type") == "error":
        if as_json:
            sys.exit(1)
        raise click.ClickException(str(event.get("message")))


class _AnswerPrinter:
    """Streams the answer text; tool calls and results as dimmed lines of their own."""

    def __init__(self) -> None:
        self.printed_text = False
        self.mid_line = False

    def _line(self, text: str) -> None:
        if self.mid_line:
            click.echo()
            self.mid_line = False
        click.echo(click.style(text, dim=True))

    def show(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "text":
            text = str(event.get("text", ""))
            click.echo(text, nl=False)
            self.printed_text = self.printed_text or bool(text.strip())
            self.mid_line = not text.endswith("\n")
        elif kind == "tool_call":
            args = json.dumps(event.get("arguments", {}), ensure_ascii=False)
            self._line(f"→ {event.get('name')}({args})")
        elif kind == "tool_result":
            if event.get("ok"):
                self._line(f"← {json.dumps(event.get('result'), ensure_ascii=False, default=str)}")
            else:
                self._line(f"← error: {event.get('error')}")
        elif kind == "final":
            if not self.printed_text:
                click.echo(str(event.get("text", "")), nl=False)
                self.mid_line = True
            if self.mid_line:
                click.echo()


# --- install-service -------------------------------------------------------------------


@click.command("install-service")
@click.option("--dry-run", is_flag=True, help="Print what would be done; change nothing.")
@click.option("--sim", is_flag=True, help="Also install edgeagent-sim.service.")
@click.option("--enable", is_flag=True, help="Enable and start the service afterwards.")
@click.option("--user", "user", default="edgeagent", show_default=True)
@click.option(
    "--unit-dir",
    type=click.Path(path_type=Path),
    default=Path("/etc/systemd/system"),
    show_default=True,
)
@click.option(
    "--config-dir",
    type=click.Path(path_type=Path),
    default=Path("/etc/edgeagent"),
    show_default=True,
)
def install_service(
    dry_run: bool, sim: bool, enable: bool, user: str, unit_dir: Path, config_dir: Path
) -> None:
    """Install the systemd unit, create the service user, set up /etc/edgeagent."""
    steps = plan_install(
        user=user, unit_dir=unit_dir, config_dir=config_dir, sim=sim, enable=enable
    )
    if not dry_run and os.geteuid() != 0:
        raise click.ClickException(
            "install-service changes /etc and creates a system user: rerun it with sudo, "
            "or add --dry-run to see the steps"
        )
    for step in steps:
        click.echo(("would " if dry_run else "") + step.description)
        if not dry_run:
            step.apply()
    if dry_run:
        click.echo("dry run: nothing was changed")


@dataclass
class Step:
    description: str
    apply: Callable[[], None]


def _repo_file(*parts: str) -> Path:
    """A deployable file shipped next to the package (systemd/, config/ in the source tree)."""
    return Path(__file__).resolve().parents[2].joinpath(*parts)


def _executable() -> str:
    """The ``edgeagent`` entry point this command runs from, for the unit's ExecStart."""
    beside = Path(sys.executable).parent / "edgeagent"
    return str(beside) if beside.exists() else (shutil.which("edgeagent") or str(beside))


def _unit_text(source: Path, executable: str) -> str:
    lines = []
    for line in source.read_text().splitlines():
        if line.startswith("ExecStart="):
            _, _, rest = line.partition("=")
            args = rest.split(maxsplit=1)
            line = "ExecStart=" + " ".join([executable, *args[1:]])
        lines.append(line)
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str, mode: int) -> Callable[[], None]:
    def apply() -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(mode)

    return apply


def _run(*argv: str) -> Callable[[], None]:
    def apply() -> None:
        subprocess.run(argv, check=True)

    return apply


def plan_install(
    *, user: str, unit_dir: Path, config_dir: Path, sim: bool, enable: bool
) -> list[Step]:
    """What install-service does, as steps that ``--dry-run`` prints and a real run applies."""
    executable = _executable()
    if executable.startswith(("/home/", "/root/", "/run/user/")):
        click.echo(
            f"note: {executable} is under a home directory, which the unit's "
            f"ProtectHome=yes hides from the service; install edgeagent into /opt or "
            f"/usr/local (e.g. a venv in /opt/edgeagent) before enabling it",
            err=True,
        )
    steps: list[Step] = []
    units = ["edgeagent.service"] + (["edgeagent-sim.service"] if sim else [])
    for unit in units:
        source = _repo_file("systemd", unit)
        if not source.is_file():
            raise click.ClickException(
                f"unit file {source} is missing; reinstall edgeagent from source"
            )
        steps.append(
            Step(
                f"install {unit_dir / unit} (ExecStart={executable} ...)",
                _write(unit_dir / unit, _unit_text(source, executable), 0o644),
            )
        )
    try:
        pwd.getpwnam(user)
    except KeyError:
        steps.insert(
            0,
            Step(
                f"create system user {user!r} (home /var/lib/edgeagent, no login shell)",
                _run(
                    "useradd",
                    "--system",
                    "--user-group",
                    "--home-dir",
                    "/var/lib/edgeagent",
                    "--no-create-home",
                    "--shell",
                    "/usr/sbin/nologin",
                    user,
                ),
            ),
        )
    present = [g for g in HARDWARE_GROUPS if _group_exists(g)]
    missing = sorted(set(HARDWARE_GROUPS) - set(present))
    if present:
        steps.insert(
            1 if steps[0].description.startswith("create") else 0,
            Step(
                f"add {user!r} to groups {', '.join(present)}",
                _run("usermod", "-a", "-G", ",".join(present), user),
            ),
        )
    if missing:
        click.echo(f"note: groups {', '.join(missing)} do not exist here; skipped", err=True)
    steps.extend(_config_steps(config_dir, user))
    if shutil.which("systemctl"):
        steps.append(Step("run systemctl daemon-reload", _run("systemctl", "daemon-reload")))
        if enable:
            steps.append(
                Step(
                    "enable and start edgeagent.service",
                    _run("systemctl", "enable", "--now", "edgeagent.service"),
                )
            )
    return steps


HARDWARE_GROUPS = ("gpio", "spi", "video")


def _group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def _config_steps(config_dir: Path, user: str) -> list[Step]:
    steps: list[Step] = []
    target = config_dir / "edgeagent.toml"
    example = _repo_file("config", "edgeagent.pi.toml")
    if target.exists():
        steps.append(Step(f"keep the existing {target}", lambda: None))
    elif example.is_file():

        def install_config() -> None:
            config_dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(example, target)
            # 0640 root:<user>: the file may hold the MQTT password.
            os.chown(target, 0, grp.getgrnam(user).gr_gid)
            target.chmod(0o640)

        steps.append(Step(f"copy {example} to {target} (mode 0640, group {user})", install_config))
    else:
        click.echo(f"note: no example config at {example}; write {target} yourself", err=True)
    tools_src = _repo_file("config", "tools.d")
    tools_dst = config_dir / "tools.d"
    if not tools_dst.exists():

        def install_tools() -> None:
            tools_dst.mkdir(parents=True, exist_ok=True)
            if tools_src.is_dir():
                for item in tools_src.glob("*.tool"):
                    shutil.copyfile(item, tools_dst / item.name)

        steps.append(Step(f"create {tools_dst} (with the example .tool files)", install_tools))
    return steps
