"""Hostile run (issue 9): malformed input, hostile tool calls, faults and bad configs
thrown at the real daemon on the scripted backend; every input must get an answer.

    .venv/bin/python bench/hostile.py                         # the full run, ~10 min
    .venv/bin/python bench/hostile.py --scale 0.1             # a quick smoke
    .venv/bin/python bench/hostile.py --write docs/benchmarks.md

Five categories, each against a fresh ``edgeagent --config X run`` (a real mosquitto on
a free port, the real Unix socket, LED and servo on ``mock``, the shell confined to a
temporary directory, weather off):

1. ``mqtt``: ~3,000 malformed payloads on ``<base>/ask`` (:mod:`hostile_inputs`);
2. ``socket``: ~3,000 malformed lines, then connection abuse (idle and half-written
   connections past ``[socket] max_connections``, a connect flood at an open-file limit
   of 256, a client that never reads);
3. ``tools``: ~190 hostile replies of a scripted model (:mod:`hostile_cases`), over the
   socket and, for some, over MQTT, with secrets in the daemon's environment and outside
   the shell's roots;
4. ``faults``: the model worker killed or stopped mid-turn, the broker killed or
   restarted, SIGTERM mid-turn, the LED simulator down or dripping a byte a second;
5. ``configs``: ~90 bad configs through ``edgeagent config check`` (exit 2, an error
   line, no traceback).

For each: inputs, answered, refused before the daemon (by the broker or the kernel),
unanswered, deaths (exits nobody asked for), tracebacks in the daemon's log, breaches
(answers that should not exist) and RSS (VmRSS of the daemon and its Python children,
sampled every 0.2 s). The seed makes a run reproducible; ``--scale`` shortens it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hostile_agent import Faults, run_tool_calls
from hostile_cases import ConfigCase, config_cases, tool_cases
from hostile_inputs import mqtt_payloads, socket_lines
from hostile_net import MqttAsker, abuse_connections, run_mqtt_inputs, run_socket_lines
from hostile_report import Row, section, write_section
from hostile_rig import Broker, Daemon, finish_row, merge, to_toml, write_daemon_config

ROOT = Path(__file__).resolve().parents[1]
MAX_PAYLOAD = 16384
MAX_LINE = 65536
MAX_CONNECTIONS = 32
IDLE_S = 5.0
NOFILE = 256
CATEGORIES = ("mqtt", "socket", "tools", "faults", "configs")
TITLES = {
    "mqtt": "1. MQTT malformed payloads",
    "socket": "2. socket malformed lines + connection abuse",
    "tools": "3. hostile tool calls (scripted model)",
    "faults": "4. faults",
    "configs": "5. bad configs (`config check`)",
}


def broker_limit() -> int:
    """The largest payload the broker hands the daemon: its MQTT v5 Maximum Packet Size
    (less room for the topic and properties) when the daemon sets one, else no limit."""
    module = importlib.import_module("edgeagent.frontends.mqtt_client")
    headroom = getattr(module, "PACKET_HEADROOM_BYTES", None)
    return 1 << 40 if headroom is None else MAX_PAYLOAD + int(headroom) - 512


def mqtt_category(work: Path, broker: Broker, rng: random.Random, scale: float, row: Row) -> None:
    config, sock = write_daemon_config(work, script=SCRIPT, mqtt_port=broker.port)
    daemon = Daemon(config, socket_path=sock)
    daemon.start()
    asker = MqttAsker(broker.port, "edgeagent/hostile", client_id="hostile-mqtt")
    payloads = mqtt_payloads(rng, round(3000 * scale), max_payload_bytes=MAX_PAYLOAD)
    try:
        run_mqtt_inputs(asker, payloads, row, broker_limit=broker_limit())
    finally:
        asker.close()
        alive = daemon.alive()
        daemon.stop()
        finish_row(row, daemon, alive)


def socket_category(work: Path, rng: random.Random, scale: float, row: Row) -> None:
    over = {
        "socket": {
            "idle_timeout_s": IDLE_S,
            "max_connections": MAX_CONNECTIONS,
            "max_line_bytes": MAX_LINE,
        }
    }
    config, sock = write_daemon_config(work, script=SCRIPT, over=over)
    daemon = Daemon(config, socket_path=sock, nofile=NOFILE)
    daemon.start()
    try:
        run_socket_lines(sock, socket_lines(rng, round(3000 * scale), max_line_bytes=MAX_LINE), row)
        if daemon.alive():
            abuse_connections(sock, row, max_connections=MAX_CONNECTIONS, idle_s=IDLE_S)
    finally:
        alive = daemon.alive()
        daemon.stop()
        finish_row(row, daemon, alive)


def tools_category(work: Path, broker: Broker, scale: float, row: Row) -> None:
    cases = tool_cases()
    stride = max(1, round(1 / scale)) if scale < 1 else 1
    run_tool_calls(work, broker, cases, list(range(0, len(cases), stride)), row)


# --- bad configs ---------------------------------------------------------------------------

BASE_CONFIG = {
    "llm": {"backend": "scripted", "script": "script.json"},
    "plugins": {
        "led": {"backend": "mock"},
        "servo": {"backend": "mock"},
        "shell": {"roots": ["."]},
    },
    "tools": {"wrapped_dir": "tools.d"},
    "mqtt": {"enabled": True, "host": "127.0.0.1", "port": 1883, "device_id": "hostile"},
}
"""``config check`` connects to nothing, so MQTT is on: its keys are checked too."""


def _config_file(work: Path, index: int, case: ConfigCase) -> Path:
    path = work / f"c{index:03d}.toml"
    special = case.special
    if special == "missing":
        return work / "nope" / "edgeagent.toml"
    if special == "directory":
        path.mkdir()
    elif special == "fifo":
        os.mkfifo(path)
    elif special == "proc_mem":
        return Path("/proc/self/mem")
    elif special == "symlink_loop":
        path.symlink_to(path)
    elif special == "dangling_link":
        path.symlink_to(work / "nowhere.toml")
    elif special == "big":
        path.write_text("# padding\n" * 250_000)
    elif case.raw is not None:
        path.write_bytes(case.raw)
    else:
        tables = merge(BASE_CONFIG, {"socket": {"path": str(work / "ea.sock")}})
        path.write_text(to_toml(merge(tables, case.tables)))
    return path


def check_config(work: Path, index: int, case: ConfigCase) -> tuple[bool, str]:
    """Run ``config check``; (refused as it should be, what it printed)."""
    path = _config_file(work, index, case)
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEAGENT_")}
    env.update(case.env)
    argv = [sys.executable, "-m", "edgeagent"]
    if case.via_env:
        env["EDGEAGENT_CONFIG"] = str(path)
    else:
        argv += ["--config", str(path)]
    try:
        done = subprocess.run(
            [*argv, "config", "check"], cwd=work, env=env, capture_output=True, timeout=20
        )
    except subprocess.TimeoutExpired:
        return False, "no answer within 20 s (hung)"
    out = (done.stdout + done.stderr).decode(errors="replace")
    ok = done.returncode == 2 and bool(done.stderr.strip()) and "Traceback" not in out
    return ok, f"exit {done.returncode}: {out.strip().splitlines()[-1] if out.strip() else ''}"


def configs_category(work: Path, scale: float, row: Row) -> None:
    work.mkdir(parents=True, exist_ok=True)
    (work / "script.json").write_text('{"rules": [], "default": "ok"}')
    shutil.copytree(ROOT / "config" / "tools.d", work / "tools.d")
    control = check_config(work, 999, ConfigCase("the good base", tables={}))
    if not control[1].startswith("exit 0"):
        raise SystemExit(f"the good base config does not pass `config check`: {control[1]}")
    cases = config_cases()
    stride = max(1, round(1 / scale)) if scale < 1 else 1
    chosen = list(enumerate(cases))[::stride]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda ic: check_config(work, ic[0], ic[1]), chosen))
    for (_, case), (ok, said) in zip(chosen, results, strict=True):
        row.record(case.name, ok, example=said)
        row.tracebacks += "Traceback" in said


SCRIPT = {
    "rules": [{"match": "(?i)^hello", "reply": "Hello."}],
    "default": "ok, done.",
    "chunk_size": 64,
}


# --- the run -------------------------------------------------------------------------------


def header(args: argparse.Namespace) -> list[str]:
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "edgeagent"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    mosquitto = subprocess.run(["mosquitto", "-h"], capture_output=True, text=True).stdout
    broker = mosquitto.splitlines()[0] if mosquitto else "mosquitto"
    command = "bench/hostile.py" + (f" --scale {args.scale:g}" if args.scale != 1 else "")
    command += f" --seed {args.seed}" + (f" --only {args.only}" if args.only else "")
    state = " (with uncommitted changes in edgeagent/)" if dirty else ""
    return [
        f"`.venv/bin/python {command}`: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, "
        f"commit {commit}{state}, {os.cpu_count()} cores {platform.machine()}, "
        f"Linux {platform.release()}, Python {platform.python_version()}, {broker}.",
        "",
        f"Limits of the daemon under test: `[mqtt] max_payload_bytes = {MAX_PAYLOAD}`, "
        f"`[socket] max_line_bytes = {MAX_LINE}`, `max_connections = {MAX_CONNECTIONS}`, "
        f"`idle_timeout_s = {IDLE_S:g}` (shortened from 300 so the run ends), an open-file "
        f"limit of {NOFILE} for the socket category; `[agent] max_calls_per_step = 4`.",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--scale", type=float, default=1.0, help="0.1: a quick smoke")
    parser.add_argument("--only", default="", help=f"comma-separated: {', '.join(CATEGORIES)}")
    parser.add_argument("--write", type=Path, help="replace the section in this markdown file")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    chosen = [c for c in CATEGORIES if not args.only or c in args.only.split(",")]
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="ea-hostile-", dir="/tmp"))
    broker = Broker(work / "broker")
    broker.start()
    runs: dict[str, Callable[[Row], None]] = {
        "mqtt": lambda row: mqtt_category(work / "mqtt", broker, rng, args.scale, row),
        "socket": lambda row: socket_category(work / "socket", rng, args.scale, row),
        "tools": lambda row: tools_category(work / "tools", broker, args.scale, row),
        "faults": lambda row: Faults(work / "faults", broker, row).run(),
        "configs": lambda row: configs_category(work / "configs", args.scale, row),
    }
    rows: list[Row] = []
    try:
        for name in chosen:
            row = Row(TITLES[name])
            started = time.monotonic()
            print(f"{name}: running", flush=True)
            runs[name](row)
            row.seconds = time.monotonic() - started
            rows.append(row)
            print(
                f"{name}: {row.inputs} inputs, {row.answered} answered, {row.refused} refused, "
                f"{row.unanswered} unanswered, {row.deaths} deaths, {row.tracebacks} tracebacks, "
                f"{len(row.breaches)} breaches, peak {row.peak_mb or 0:.0f} MB "
                f"({row.seconds:.0f} s)",
                flush=True,
            )
    finally:
        broker.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}")
    text = section(header(args), rows)
    print(text)
    if args.write:
        write_section(args.write, text)
        print(f"written to {args.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
