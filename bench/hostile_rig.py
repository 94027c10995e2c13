"""The hostile run's system under test: mosquitto, the daemon, and their memory.

:class:`Broker` is a real mosquitto on a free port (persistent, so a restart keeps the
daemon's session); :class:`Daemon` is ``python -m edgeagent --config X run`` with its
log in a file, an RSS sampler for it and its Python children (the model worker), and
``deaths``: every time it was found gone without being asked to stop.
"""

from __future__ import annotations

import getpass
import json
import math
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hostile_report import Row

MOSQUITTO = shutil.which("mosquitto") or (
    "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- TOML out ----------------------------------------------------------------------------


def merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str | Path):
        return json.dumps(str(value), ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {value!r} as TOML")


def to_toml(tables: Mapping[str, Any], prefix: str = "") -> str:
    """Nested dicts as TOML: plain keys first, then one ``[table]`` per dict."""
    lines = [f"{k} = {toml_value(v)}" for k, v in tables.items() if not isinstance(v, Mapping)]
    text = "\n".join(lines) + ("\n" if lines else "")
    for key, value in tables.items():
        if isinstance(value, Mapping):
            name = f"{prefix}.{key}" if prefix else key
            text += f"\n[{name}]\n" + to_toml(value, name)
    return text


# --- mosquitto ---------------------------------------------------------------------------


class Broker:
    """mosquitto on 127.0.0.1; ``restart()`` comes back on the same port and data."""

    def __init__(self, workdir: Path) -> None:
        if MOSQUITTO is None:
            raise SystemExit("mosquitto is not installed (apt-get install mosquitto)")
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.conf = workdir / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\nuser {getpass.getuser()}\n"
            f"persistence true\npersistence_location {workdir}/\nset_tcp_nodelay true\n"
            "max_queued_messages 100000\nmax_inflight_messages 0\n"
            f"log_dest file {workdir}/mosquitto.log\n"
            "log_type error\nlog_type warning\nlog_type notice\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10) -> None:
        assert MOSQUITTO is not None
        self.process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit(f"mosquitto did not listen on port {self.port} within {timeout} s")

    def stop(self, *, kill: bool = False) -> None:
        if self.process is None:
            return
        if kill:
            self.process.kill()
        else:
            self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None


# --- memory ------------------------------------------------------------------------------


def _status_kb(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def python_children(pid: int) -> list[int]:
    """Descendants of ``pid`` that run Python (the model worker; not shell commands)."""
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            children = [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
        for child in children:
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if b"python" in cmdline:
                found.append(child)
            found += python_children(child)
    return found


def _is_tracker(pid: int) -> bool:
    try:
        return b"resource_tracker" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


class RssSampler:
    """Samples the summed VmRSS of a process and its Python children every ``every_s``."""

    def __init__(self, pid: int, every_s: float = 0.2) -> None:
        self.pid = pid
        self.every_s = every_s
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def rss_mb(self) -> float:
        return sum(_status_kb(p, "VmRSS") for p in self.pids()) / 1024

    def hwm_mb(self) -> float:
        """VmHWM (the kernel's own peak) of the daemon plus its current worker."""
        return sum(_status_kb(p, "VmHWM") for p in self.pids()) / 1024

    def pids(self) -> list[int]:
        """The daemon and its model worker; not multiprocessing's resource tracker
        (~12 MB, the same in every run), not shell commands."""
        return [self.pid, *(p for p in python_children(self.pid) if not _is_tracker(p))]

    def _run(self) -> None:
        while not self._stop.is_set():
            value = self.rss_mb()
            if value > 0:
                self.samples.append(value)
            self._stop.wait(self.every_s)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


# --- the daemon --------------------------------------------------------------------------


def socket_request(path: Path, message: dict[str, Any], timeout: float = 10) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        sock.sendall(json.dumps(message).encode() + b"\n")
        reply: dict[str, Any] = json.loads(sock.makefile("rb").readline())
        return reply


class Daemon:
    """One daemon process at a time; ``restart()`` after a stop it was asked for."""

    def __init__(
        self,
        config: Path,
        *,
        socket_path: Path,
        env: Mapping[str, str] | None = None,
        nofile: int | None = None,
    ) -> None:
        self.config = config
        self.socket_path = socket_path
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEAGENT_")}
        self.env.update(env or {})
        self.nofile = nofile
        self.log_path = config.parent / "daemon.log"
        self.deaths: list[str] = []
        self.degraded: list[str] = []
        self.history: list[float] = []
        """Every RSS sample of every run of this daemon, in order."""
        self.peak_mb = 0.0
        self.first_mb: float | None = None
        self.last_mb = 0.0
        self.hwm_mb = 0.0
        self.proc: subprocess.Popen[bytes] | None = None
        self._sampler: RssSampler | None = None

    def _limit(self) -> None:
        if self.nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (self.nofile, self.nofile))

    def start(self, timeout: float = 60) -> None:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "edgeagent", "--config", str(self.config), "run"],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=self._limit if self.nofile else None,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"the daemon exited at start:\n{self.log()[-3000:]}")
            try:
                if (
                    socket_request(self.socket_path, {"op": "status"}, 2)["status"]["state"]
                    == "ready"
                ):
                    break
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.1)
        else:
            raise SystemExit(f"the daemon was not ready within {timeout} s:\n{self.log()[-3000:]}")
        self._sampler = RssSampler(self.proc.pid)
        degraded = self.status().get("degraded")
        if degraded:
            self.degraded.append(f"the daemon started degraded: {degraded}")

    def status(self) -> dict[str, Any]:
        status: dict[str, Any] = socket_request(self.socket_path, {"op": "status"})["status"]
        return status

    def alive(self) -> bool:
        """Whether it runs; a death (an exit nobody asked for) is recorded once."""
        if self.proc is None:
            return False
        code = self.proc.poll()
        if code is None:
            return True
        self.deaths.append(f"exit code {code}")
        self._harvest()
        self.proc = None
        return False

    def worker_pid(self) -> int | None:
        pid = self.status().get("worker_pid")
        return int(pid) if pid else None

    def _harvest(self, *, last: bool = True) -> None:
        sampler, self._sampler = self._sampler, None
        if sampler is None:
            return
        sampler.stop()
        self.history += sampler.samples
        if sampler.samples:
            self.peak_mb = max(self.peak_mb, max(sampler.samples))
            if self.first_mb is None:
                self.first_mb = sampler.samples[0]
            if last:
                self.last_mb = sampler.samples[-1]

    def signal(self, signum: int) -> None:
        if self.proc is not None:
            self.proc.send_signal(signum)

    def stop(self, timeout: float = 30) -> tuple[int | None, float]:
        """SIGTERM; (exit code, seconds to exit). ``None``: it hung and was killed."""
        if self.proc is None:
            return None, 0.0
        if self._sampler is not None:
            # Before SIGTERM: shutdown itself (the worker gone) is not the steady state.
            self.hwm_mb = max(self.hwm_mb, self._sampler.hwm_mb())
            self.last_mb = self._sampler.rss_mb()
        started = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        code: int | None
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = None
        took = time.monotonic() - started
        self._harvest(last=False)
        self.proc = None
        return code, took

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def tracebacks(self) -> int:
        return self.log().count("Traceback (most recent call last)")

    def traceback_summaries(self) -> list[str]:
        """For each traceback: the log line before it and the exception it ended in."""
        out: list[str] = []
        lines = self.log().splitlines()
        for i, line in enumerate(lines):
            if not line.startswith("Traceback (most recent call last)"):
                continue
            said = lines[i - 1] if i > 0 else ""
            end = next((x for x in lines[i + 1 :] if x and not x.startswith(" ")), "?")
            out.append(f"{said.split(' ', 2)[-1][:160]} → {end[:200]}")
        return out


def write_daemon_config(
    directory: Path,
    *,
    script: Mapping[str, Any],
    mqtt_port: int | None = None,
    device_id: str = "hostile",
    over: Mapping[str, Any] | None = None,
) -> tuple[Path, Path]:
    """A config for the daemon on the scripted backend: LED and servo on ``mock``, the
    shell confined to ``<directory>/root``, weather off (it would need the network).
    Returns (config path, socket path)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "root").mkdir(exist_ok=True)
    (directory / "script.json").write_text(json.dumps(script))
    tools_d = directory / "tools.d"
    if not tools_d.exists():
        shutil.copytree(Path(__file__).resolve().parents[1] / "config" / "tools.d", tools_d)
    socket_path = directory / "ea.sock"
    tables: dict[str, Any] = {
        "llm": {"backend": "scripted", "script": "script.json"},
        "agent": {
            "call_format": "json",
            "primer": False,
            "check_target": False,
            "max_steps": 5,
            "max_calls_per_step": 4,
        },
        "tools": {"wrapped_dir": "tools.d", "disabled": ["weather"]},
        "plugins": {
            "led": {"backend": "mock"},
            "servo": {"backend": "mock"},
            "shell": {"roots": ["root"]},
        },
        "socket": {"path": str(socket_path)},
        "daemon": {"request_timeout_s": 10.0, "shutdown_grace_s": 2.0, "log_level": "INFO"},
        "mqtt": {"enabled": False},
    }
    if mqtt_port is not None:
        tables["mqtt"] = {
            "enabled": True,
            "host": "127.0.0.1",
            "port": mqtt_port,
            "device_id": device_id,
            "protocol": "5",
        }
    config = directory / "edgeagent.toml"
    config.write_text(to_toml(merge(tables, over or {})))
    return config, socket_path


def finish_row(row: Row, daemon: Daemon, alive_at_end: bool) -> None:
    """Deaths, tracebacks and memory of ``daemon`` (all its runs) into ``row``."""
    row.deaths = len(daemon.deaths)
    row.tracebacks = daemon.tracebacks()
    row.peak_mb, row.rss_start_mb, row.rss_end_mb = daemon.peak_mb, daemon.first_mb, daemon.last_mb
    if len(daemon.history) >= 8:
        quarters = [daemon.history[len(daemon.history) * q // 4 :][: len(daemon.history) // 4]
                    for q in range(4)]  # fmt: skip
        shown = ", ".join(f"{max(q):.0f}" for q in quarters if q)
        row.notes.append(f"RSS peak per quarter of the phase (MB): {shown}")
    row.notes += list(dict.fromkeys(daemon.degraded))
    row.notes += [f"traceback: {t}" for t in dict.fromkeys(daemon.traceback_summaries())]
    if not alive_at_end:
        row.notes.append("the daemon was not running at the end of the phase")
