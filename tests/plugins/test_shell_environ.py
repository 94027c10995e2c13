"""Issue 9, item 6: the read-only shell never shows the daemon's environment.

A stand-in daemon (a Python process started with ``EDGEAGENT_MQTT__PASSWORD`` in its
environment, as systemd would start the real one) runs beside the tests; every command
below, through the real ``shell`` tool and the executor, is either refused with an error
naming the option or path, or answers without the password.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from edgeagent_shell import ShellOptions, build_shell_tool, register_tools
from edgeagent_shell.policy import DEFAULT_ALLOW

from edgeagent.errors import ConfigError, ToolDeniedError
from edgeagent.tools import PluginContext, Tool
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry

SECRET = "hunter2-mqtt-secret"


@pytest.fixture
def daemon_pid(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """A process whose environment holds the secret, like the daemon under systemd."""
    monkeypatch.setenv("EDGEAGENT_MQTT__PASSWORD", SECRET)
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env={**os.environ, "EDGEAGENT_MQTT__PASSWORD": SECRET},
    )
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def shell_tool(root: Path, *extra_allow: str) -> Tool:
    # A large output cap: the secret must not hide behind a cut.
    options = ShellOptions(
        roots=[root], allow=[*DEFAULT_ALLOW, *extra_allow], max_output_bytes=4_000_000
    )
    return build_shell_tool(options, base=root)


def execute(tool: Tool, call: ToolCall) -> Any:
    """As the agent loop runs a call: resolved (``ps`` named as a tool), then executed."""
    executor = ToolExecutor(ToolRegistry([tool]))
    return asyncio.run(executor.execute(executor.resolve(call)))


# (command, what the refusal names; None: it may run, but must not show the secret)
ATTEMPTS: list[tuple[str, str | None]] = [
    ("ps e -p {pid}", "'e'"),
    ("ps eww -o args -p {pid}", "'eww'"),
    ("ps e -ww -C python -o args", "'e'"),
    ("ps axe", "'axe'"),
    ("ps aux e", "'e'"),
    ("ps -ww -o args e p {pid}", "'e'"),
    ("ps --format args e -p {pid}", "'e'"),
    ("ps -u e -ww", "'e'"),  # ps reads the arguments again as BSD ones when -u e fails
    ("ps -o args,environ -ww -p {pid}", None),  # no such column in procps: no secret
    # ps reads these again as BSD when -x fails (it needs a personality), where -e is e;
    # they run as -A, which that second reading refuses.
    ("ps -axe -ww -o args -p {pid}", None),
    ("ps -e -x -ww -o args -p {pid}", None),
    ("ps -ef -ww", None),
    ("cat /proc/self/environ", "/proc/self/environ"),
    ("cat /proc/{pid}/environ", "/proc/{pid}/environ"),
    ("grep -a PASSWORD /proc/{pid}/environ", "/proc/{pid}/environ"),
    ("cat /dev/fd/../environ", "/dev/fd/../environ"),
    ("printenv", None),
    ("printenv EDGEAGENT_MQTT__PASSWORD", None),
    ("env", "'env' is not allowed"),
]


@pytest.mark.parametrize(("command", "refusal"), ATTEMPTS, ids=[a[0] for a in ATTEMPTS])
@pytest.mark.parametrize("root", ["project", "/"])
def test_no_command_shows_the_daemons_environment(
    tmp_path: Path, daemon_pid: int, root: str, command: str, refusal: str | None
) -> None:
    """Whether the roots are a project folder or the whole file system ("/", where
    /proc lies inside them), the secret never comes back."""
    (tmp_path / "project").mkdir()
    tool = shell_tool(tmp_path / root, "printenv")
    command = command.replace("{pid}", str(daemon_pid))
    result = execute(tool, ToolCall("shell", {"command": command}))
    assert SECRET not in str(result.result) and SECRET not in str(result.error)
    if refusal is not None:
        assert not result.ok, result.result
        assert refusal.replace("{pid}", str(daemon_pid)) in (result.error or "")
    elif result.ok:
        assert "hunter2" not in result.result["output"]


def test_ps_called_as_a_tool_of_its_own_is_checked_too(daemon_pid: int, tmp_path: Path) -> None:
    """The model often calls ``ps`` as if it were a tool; that runs the same checks."""
    result = execute(shell_tool(tmp_path), ToolCall("ps", {"arguments": ["eww", "-o", "args"]}))
    assert not result.ok
    assert "ps option 'e'" in (result.error or "")
    assert "environment" in (result.error or "")


def test_ps_ef_still_lists_every_process(daemon_pid: int, tmp_path: Path) -> None:
    output = shell_tool(tmp_path).func(command="ps -ef")["output"]
    assert "PID" in output.splitlines()[0]
    assert any(line.split()[1] == str(daemon_pid) for line in output.splitlines()[1:])
    assert SECRET not in output


TOKENS = [
    "e", "-e", "eww", "-ww", "aux", "axe", "-o", "args", "o", "O", "--format", "-C", "python",
    "-p", "{pid}", "p", "-u", "U", "-ef", "ww", "-ocmd", "f", "-H", "-N", "k", "pid", "-x", "x",
    "-A", "t", "nosuch", "--user", "-", "1", "-eo", "-Ce", "cmd",
]  # fmt: skip


def test_generated_ps_commands_never_show_the_secret(daemon_pid: int, tmp_path: Path) -> None:
    """300 argument lists from ps's option letters, values and separators, run for real."""
    tool = shell_tool(tmp_path)
    combos = list(itertools.product(TOKENS, repeat=3))
    random.Random(9).shuffle(combos)
    refused = 0
    for combo in combos[:300]:
        command = "ps -ww " + " ".join(combo).replace("{pid}", str(daemon_pid))
        try:
            output = tool.func(command=command)["output"]
        except ToolDeniedError as exc:
            assert "ps option 'e'" in str(exc)
            refused += 1
            continue
        assert SECRET not in output, command
    assert 0 < refused < 300  # both kinds were tried


def test_output_holding_a_secret_is_redacted(daemon_pid: int, tmp_path: Path) -> None:
    """The last line of defence: whatever prints a secret of the daemon's environment,
    here a file inside the roots, shows it blanked."""
    (tmp_path / "notes.txt").write_text(f"mqtt password: {SECRET}\n")
    output = shell_tool(tmp_path).func(command="cat notes.txt")["output"]
    assert output == "mqtt password: [redacted]\n"


def test_a_recursive_search_over_proc_is_refused_even_when_roots_hold_it(
    daemon_pid: int,
) -> None:
    tool = shell_tool(Path("/"))
    for command, named in [
        ("grep -r hunter2 /proc", "'/proc'"),
        ("grep -rl hunter2 /", "'/'"),
        ("grep --recursive hunter2 .", "'.'"),
        ("grep -r hunter2", "'.'"),  # no directory: grep searches the first root, /
    ]:
        with pytest.raises(ToolDeniedError, match="holds /proc") as caught:
            tool.func(command=command)
        assert named in str(caught.value)
    # Reading the machine's own files under /proc stays possible.
    assert tool.func(command="cat /proc/loadavg")["exit_code"] == 0
    assert tool.func(command="ls /proc")["exit_code"] == 0


@pytest.mark.parametrize("runner", ["env", "xargs", "sh", "python3", "sed", "awk", "nice"])
def test_allowing_a_program_that_runs_programs_is_a_config_error(
    runner: str, tmp_path: Path
) -> None:
    """``env ps e`` would bypass every check above; the config says so at load time."""
    context = PluginContext(
        name="shell", options={"allow": ["ls", runner]}, config_path=tmp_path / "e.toml"
    )
    with pytest.raises(ConfigError, match=r"plugins\.shell\.allow") as caught:
        register_tools(register=lambda tool: None, context=context)
    assert f"{runner!r} runs other programs" in str(caught.value)
