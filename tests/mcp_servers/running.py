"""The thermostat MCP server (``tests.mcp_servers.thermostat``) as the client tests run
it: over streamable HTTP as a subprocess on a free port, or as the ``command`` of a
stdio server in a config; and what it recorded."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.loopback import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
"""The checkout: on ``PYTHONPATH``, ``tests.mcp_servers.thermostat`` imports."""


def thermostat_command(record: Path, *options: str) -> list[str]:
    """What starts it on stdio (``[mcp.servers.<name>] command``); it needs
    ``env = {PYTHONPATH = ROOT}``."""
    return [sys.executable, "-m", "tests.mcp_servers.thermostat", "--record", str(record), *options]


def recorded(record: Path) -> list[dict[str, Any]]:
    """The calls the server really received, in order."""
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines()]


@dataclass
class HTTPThermostat:
    """The thermostat serving streamable HTTP at ``url``."""

    url: str
    proc: subprocess.Popen[bytes]
    record: Path

    def calls(self) -> list[dict[str, Any]]:
        return recorded(self.record)


@contextlib.contextmanager
def thermostat_over_http(
    directory: Path, *, token_file: Path | None = None
) -> Iterator[HTTPThermostat]:
    """The thermostat on a free port of 127.0.0.1 until the block ends."""
    port = free_port()
    record = directory / f"calls-{port}.jsonl"
    options = ["--port", str(port)] + (["--token-file", str(token_file)] if token_file else [])
    log = (directory / f"thermostat-{port}.log").open("wb")
    proc = subprocess.Popen(
        thermostat_command(record, *options), cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        wait_for_port(port, timeout=30, process=proc)
        yield HTTPThermostat(f"http://127.0.0.1:{port}/mcp", proc, record)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
