"""``edgeagent mcp serve`` as the tests start it: its config, the command a stdio client
launches, and the server over streamable HTTP as a subprocess on a free port.

The model is the scripted one (no GGUF needed); the LED and the servo use the
simulator when a URL is given, else their mock backends.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from tests.loopback import free_port, wait_for_port

EDGEAGENT = (sys.executable, "-m", "edgeagent")

MATH_CALL = '<tool_call>{"name": "math", "arguments": {"expression": "\\1"}}</tool_call>'
"""The scripted model's call of ``math`` on the rule's first group, as Qwen writes it."""
SCRIPT: dict[str, object] = {
    "rules": [
        {"match": "(?i)^hello", "reply": "Hello from the scripted model."},
        {"match": "(?i)^what is (.+)\\?$", "reply": MATH_CALL},
    ],
    "default": "I only know scripted answers.",
    "chunk_size": 64,
}
"""``hello`` answers in words; ``what is 6*7?`` calls ``math`` with ``6*7``."""


def write_mcp_config(
    directory: Path,
    *,
    simulator_url: str | None = None,
    port: int | None = None,
    token_file: Path | None = None,
    script: dict[str, object] | None = None,
    extra: str = "",
) -> Path:
    """A config for ``edgeagent mcp serve`` (and ``run``) on the scripted backend.

    ``port``: ``[mcp] port`` (a free one when left out). ``extra`` is appended as is
    (e.g. ``[socket]`` and ``[mcp] enabled = true`` for a daemon). The agent's
    target check is off: the scripted model does not answer its side questions.
    """
    (directory / "script.json").write_text(json.dumps(script or SCRIPT))
    if simulator_url is not None:
        parts = urlsplit(simulator_url)
        devices = (
            f'[plugins.led]\nbackend = "sim"\n\n[plugins.servo]\nbackend = "sim"\n\n'
            f'[simulator]\nhost = "{parts.hostname}"\nport = {parts.port}\n'
        )
    else:
        devices = '[plugins.led]\nbackend = "mock"\n\n[plugins.servo]\nbackend = "mock"\n'
    token = f'token_file = "{token_file}"\n' if token_file is not None else ""
    text = f"""
[llm]
backend = "scripted"
script = "script.json"

[agent]
call_format = "json"
primer = false
check_target = false

{devices}
[mcp]
host = "127.0.0.1"
port = {port or free_port()}
{token}
[daemon]
request_timeout_s = 10
shutdown_grace_s = 2
log_level = "INFO"

{extra}
"""
    config = directory / "edgeagent.toml"
    config.write_text(text)
    return config


def write_token(path: Path, token: str = "s3cret-token") -> Path:
    """A token file the server accepts: the owner's alone (mode 0600)."""
    path.write_text(token + "\n")
    path.chmod(0o600)
    return path


def serve_command(config: Path, *options: str) -> list[str]:
    """``edgeagent --config X mcp serve [options]``: what a stdio client launches."""
    return [*EDGEAGENT, "--config", str(config), "mcp", "serve", *options]


def clean_env() -> dict[str, str]:
    """This environment without ``EDGEAGENT_*`` overrides that would change the config."""
    return {k: v for k, v in os.environ.items() if not k.startswith("EDGEAGENT_")}


@dataclass
class MCPServerProcess:
    """``edgeagent mcp serve --http`` running; ``url`` is its streamable HTTP endpoint."""

    proc: subprocess.Popen[bytes]
    url: str
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def _port_of(config: Path) -> int:
    port = tomllib.loads(config.read_text())["mcp"]["port"]
    assert isinstance(port, int), f"[mcp] port in {config} is {port!r}"
    return port


@contextlib.contextmanager
def start_mcp_server(
    config: Path, *options: str, timeout: float = 30.0
) -> Iterator[MCPServerProcess]:
    """``edgeagent --config X mcp serve --http`` until the block ends (then SIGTERM).

    Its stdout and stderr go to ``mcp-serve.log`` beside the config
    (``.output()``); waits until ``[mcp] port`` accepts connections.
    """
    port = _port_of(config)
    log = config.parent / "mcp-serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            serve_command(config, "--http", *options),
            env=clean_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = MCPServerProcess(proc, f"http://127.0.0.1:{port}/mcp", log)
    try:
        try:
            wait_for_port(port, timeout=timeout, process=proc)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{server.output()}") from None
        yield server
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
