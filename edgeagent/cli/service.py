"""``edgeagent install-service``: the systemd unit, the service user and /etc/edgeagent.

The unit files and the example config come with the package (:mod:`edgeagent.deploy`),
so this works from an installed wheel as well as from a source checkout.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

import click

from edgeagent import deploy


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


def _executable() -> str:
    """The ``edgeagent`` entry point this command runs from, for the unit's ExecStart."""
    beside = Path(sys.executable).parent / "edgeagent"
    return str(beside) if beside.exists() else (shutil.which("edgeagent") or str(beside))


def unit_text(source: Traversable, executable: str) -> str:
    """The unit file's text with ``ExecStart`` pointing at ``executable``."""
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
        source = deploy.unit_file(unit)
        if not source.is_file():
            raise click.ClickException(
                f"unit file {source} is missing from this installation; reinstall edgeagent"
            )
        steps.append(
            Step(
                f"install {unit_dir / unit} (ExecStart={executable} ...)",
                _write(unit_dir / unit, unit_text(source, executable), 0o644),
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
    example = deploy.example_config("edgeagent.pi.toml")
    if target.exists():
        steps.append(Step(f"keep the existing {target}", lambda: None))
    elif example.is_file():

        def install_config() -> None:
            config_dir.mkdir(parents=True, exist_ok=True)
            target.write_bytes(example.read_bytes())
            # 0640 root:<user>: the file may hold the MQTT password.
            os.chown(target, 0, grp.getgrnam(user).gr_gid)
            target.chmod(0o640)

        steps.append(Step(f"copy {example} to {target} (mode 0640, group {user})", install_config))
    else:
        click.echo(f"note: no example config at {example}; write {target} yourself", err=True)
    tools_dst = config_dir / "tools.d"
    if not tools_dst.exists():

        def install_tools() -> None:
            tools_dst.mkdir(parents=True, exist_ok=True)
            for item in deploy.example_tools():
                (tools_dst / item.name).write_bytes(item.read_bytes())

        steps.append(Step(f"create {tools_dst} (with the example .tool files)", install_tools))
    return steps
