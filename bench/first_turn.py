"""First turn after a restart: the primed start restored from its state file (issue 13).

    .venv/bin/python bench/first_turn.py                  # both modes; writes the report
    .venv/bin/python bench/first_turn.py --restarts 2 --warm 2 --no-write
    .venv/bin/python bench/first_turn.py --before /tmp/before   # also the code before

It starts the real daemon (``edgeagent --config X run``, a socket-only config with the
first-party plugins on mock hardware and the real model on llama.cpp) under a
bench-made NOTIFY_SOCKET, and for each mode:

* one cold start (an empty state directory), then ``--restarts`` restarts;
* per start: the time from spawning the daemon to READY=1; the first turn, sent at
  once after READY (a new session); then ``--warm`` warm turns, each in a new session
  (so each evaluates its prompt after the shared start, as a first turn does);
* the model's own figures after the first turn: how the start got into the KV cache
  (``restored``, ``evaluated``), how many tokens it holds, and how many the first
  turn evaluated.

Modes: ``cache`` (the shipped default), ``nocache`` (``state_cache_max_mb = 0``: the
start is primed in the background at each start, with nothing saved), and with
``--before DIR`` the code of a checkout at DIR (no priming at all). Every prompt needs
no tool, so the timings are about the model. The host's two cores are shared with
other work: every figure is a median over the starts, and the report says so.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "benchmarks_first_turn.md"
TARGET_RATIO = 1.5
"""The first turn after a restart, over a warm turn (issue 13)."""
TARGET_READY_DELAY_S = 1.0
PROMPTS = [
    "Hello! Who are you?",
    "Hi there, what can you do?",
    "Good morning! What are you?",
    "Hey, who am I talking to?",
    "Hello, what is your job here?",
    "Hi! Tell me what you are.",
]


SUMMARY_HEAD = (
    "| mode | READY | cold first turn | first turn after restart | warm turn | first / warm "
    "| first turn evaluated (tokens) |\n|---|---|---|---|---|---|---|"
)
RUNS_HEAD = (
    "| mode | start | READY (s) | first turn (s) | first text (s) | warm turns (s) "
    "| first / warm | the model's figures |\n|---|---|---|---|---|---|---|---|"
)


def write_config(
    directory: Path, *, model: str, state_dir: Path | None, max_mb: int, threads: int | None
) -> Path:
    cache = (
        f'state_cache_dir = "{state_dir}"\nstate_cache_max_mb = {max_mb}\n'
        if state_dir is not None
        else ""
    )
    if threads is not None:
        cache += f"n_threads = {threads}\n"
    config = directory / "edgeagent.toml"
    config.write_text(
        f"""
[llm]
backend = "llamacpp"
model = "{model}"

[llm.llamacpp]
{cache}
[plugins.led]
backend = "mock"

[plugins.servo]
backend = "mock"

[mqtt]
enabled = false

[socket]
path = "{directory / "ea.sock"}"

[daemon]
request_timeout_s = 300
shutdown_grace_s = 5
log_level = "INFO"
"""
    )
    return config


@dataclass
class Start:
    """One daemon start: READY, the first turn, warm turns, the model's figures."""

    ready_s: float
    first_s: float
    first_text_s: float
    warm_s: list[float] = field(default_factory=list)
    engine: dict[str, Any] = field(default_factory=dict)


class Daemon:
    def __init__(self, config: Path, *, source: Path | None) -> None:
        self.dir = config.parent
        self.sock = self.dir / "ea.sock"
        notify_path = self.dir / "notify.sock"
        notify_path.unlink(missing_ok=True)
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(str(notify_path))
        env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEAGENT_")}
        env["NOTIFY_SOCKET"] = str(notify_path)
        if source is not None:  # another checkout's code, on this virtualenv
            env["PYTHONPATH"] = f"{source}{os.pathsep}{source / 'plugins'}"
        self.log = (self.dir / "daemon.log").open("ab")
        started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "edgeagent", "--config", str(config), "run"],
            env=env,
            cwd=source or ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.ready_s = self._wait_ready(started, timeout=180)

    def _wait_ready(self, started: float, timeout: float) -> float:
        self.notify.settimeout(0.5)
        while time.monotonic() - started < timeout:
            try:
                data = self.notify.recv(4096).decode()
            except TimeoutError:
                if self.proc.poll() is not None:
                    raise SystemExit(f"the daemon exited:\n{self.output()}") from None
                continue
            if "READY=1" in data.splitlines():
                return time.monotonic() - started
        raise SystemExit(f"no READY=1 within {timeout} s:\n{self.output()}")

    def output(self) -> str:
        self.log.flush()
        return (self.dir / "daemon.log").read_text(errors="replace")[-4000:]

    def request(self, payload: dict[str, Any]) -> tuple[list[dict[str, Any]], float, float]:
        """Every line of one request's answer; seconds to the first text and to the end."""
        lines: list[dict[str, Any]] = []
        first = 0.0
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(300)
            began = time.monotonic()
            sock.connect(str(self.sock))
            sock.sendall(json.dumps(payload).encode() + b"\n")
            for raw in sock.makefile("rb"):
                line = json.loads(raw)
                lines.append(line)
                if line.get("type") == "text" and not first:
                    first = time.monotonic() - began
                if line.get("type") in ("final", "error", "status"):
                    return lines, first, time.monotonic() - began
        raise SystemExit(f"the daemon closed the connection: {lines}\n{self.output()}")

    def turn(self, prompt: str, session: str) -> tuple[float, float]:
        lines, first, total = self.request({"prompt": prompt, "session": session})
        if lines[-1]["type"] != "final":
            raise SystemExit(f"the turn failed: {lines[-1]}\n{self.output()}")
        return total, first or total

    def engine_after_turn(self, timeout: float = 8.0) -> dict[str, Any]:
        """The model's figures once the daemon's cached status describes a turn."""
        deadline = time.monotonic() + timeout
        engine: dict[str, Any] = {}
        while time.monotonic() < deadline:
            status = self.request({"op": "status"})[0][-1]["status"]
            engine = status.get("engine") or {}
            if engine.get("last_prompt_tokens"):
                break
            time.sleep(0.5)
        return engine

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.notify.close()
        self.log.close()


def one_start(config: Path, source: Path | None, warm: int, offset: int) -> Start:
    daemon = Daemon(config, source=source)
    try:
        prompts = PROMPTS[offset % len(PROMPTS) :] + PROMPTS[: offset % len(PROMPTS)]
        first_s, first_text_s = daemon.turn(prompts[0], f"first-{offset}")
        start = Start(daemon.ready_s, first_s, first_text_s)
        start.engine = daemon.engine_after_turn()
        for index in range(warm):
            total, _ = daemon.turn(prompts[1 + index % (len(prompts) - 1)], f"warm-{index}")
            start.warm_s.append(total)
        return start
    finally:
        daemon.stop()


def run_mode(mode: str, args: argparse.Namespace, work: Path) -> list[Start]:
    directory = work / mode
    directory.mkdir()
    state_dir = directory / "states" if mode != "before" else None
    config = write_config(
        directory,
        model=args.model,
        state_dir=state_dir,
        max_mb=0 if mode == "nocache" else 256,
        threads=args.threads,
    )
    source = args.before if mode == "before" else None
    starts = []
    for index in range(1 + args.restarts):
        start = one_start(config, source, args.warm, index)
        starts.append(start)
        kind = "cold start" if index == 0 else f"restart {index}"
        warm = ", ".join(f"{w:.2f}" for w in start.warm_s)
        print(
            f"{mode:8} {kind:10} READY {start.ready_s:5.2f} s  first {start.first_s:6.2f} s  "
            f"warm {warm} s  {summary(start.engine)}",
            flush=True,
        )
    return starts


def ready_only(args: argparse.Namespace, modes: list[str], work: Path) -> dict[str, list[float]]:
    """READY alone, the modes alternating start by start (the same neighbours for each)."""
    configs = {}
    for mode in modes:
        directory = work / f"ready-{mode}"
        directory.mkdir()
        state_dir = directory / "states" if mode != "before" else None
        max_mb = 0 if mode == "nocache" else 256
        configs[mode] = write_config(
            directory, model=args.model, state_dir=state_dir, max_mb=max_mb, threads=args.threads
        )
    times: dict[str, list[float]] = {mode: [] for mode in modes}
    for _ in range(args.ready):
        for mode in modes:
            daemon = Daemon(configs[mode], source=args.before if mode == "before" else None)
            times[mode].append(daemon.ready_s)
            if mode == "cache" and not times[mode][:-1]:
                daemon.request({"prompt": PROMPTS[0], "session": "s"})  # the state is saved
            daemon.stop()
    for mode, values in times.items():
        shown = ", ".join(f"{v:.2f}" for v in values)
        print(f"{mode:8} READY median {median(values):.2f} s ({shown})", flush=True)
    return times


def summary(engine: dict[str, Any]) -> str:
    if not engine:
        return ""
    return (
        f"(prime {engine.get('prime', '-')} {engine.get('primed_tokens', '-')} tok in "
        f"{engine.get('prime_s', '-')} s; first turn evaluated "
        f"{engine.get('last_evaluated_tokens')} of {engine.get('last_prompt_tokens')})"
    )


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def figures(starts: list[Start]) -> dict[str, float]:
    restarts = starts[1:] or starts
    warm = [w for s in restarts for w in s.warm_s]
    first = median([s.first_s for s in restarts])
    return {
        "cold_first_s": starts[0].first_s,
        "ready_s": median([s.ready_s for s in restarts]),
        "first_s": first,
        "first_text_s": median([s.first_text_s for s in restarts]),
        "warm_s": median(warm),
        "ratio": first / median(warm),
        "evaluated": median([float(s.engine.get("last_evaluated_tokens") or 0) for s in restarts]),
        "prompt": median([float(s.engine.get("last_prompt_tokens") or 0) for s in restarts]),
    }


def machine() -> str:
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        lscpu = ""
    model = next(
        (line.split(":", 1)[1].strip() for line in lscpu.splitlines() if "Model name" in line),
        platform.processor(),
    )
    load = os.getloadavg()
    return (
        f"{model}, {os.cpu_count()} CPUs, Python {platform.python_version()}; load average "
        f"at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min)"
    )


def report(results: dict[str, list[Start]], args: argparse.Namespace) -> str:
    rows = []
    names = {
        "cache": "state cache (default)",
        "nocache": "no state cache",
        "before": "before (no priming)",
    }
    for mode, starts in results.items():
        f = figures(starts)
        rows.append(
            f"| {names[mode]} | {f['ready_s']:.2f} s | {f['cold_first_s']:.2f} s | "
            f"{f['first_s']:.2f} s | {f['warm_s']:.2f} s | **{f['ratio']:.2f}×** | "
            f"{f['evaluated']:.0f} of {f['prompt']:.0f} |"
        )
    runs = []
    for mode, starts in results.items():
        for index, s in enumerate(starts):
            kind = "cold" if index == 0 else f"restart {index}"
            warm = ", ".join(f"{w:.2f}" for w in s.warm_s)
            ratio = s.first_s / median(s.warm_s)
            runs.append(
                f"| {mode} | {kind} | {s.ready_s:.2f} | {s.first_s:.2f} | "
                f"{s.first_text_s:.2f} | {warm} | {ratio:.2f}× | {summary(s.engine)} |"
            )
    threads = (
        f"n_threads = {args.threads}"
        if args.threads
        else "n_threads unset: 1 thread generates, 2 evaluate prompts"
    )
    verdict = ""
    if "cache" in results:
        cache = figures(results["cache"])
        ratio_ok = cache["ratio"] <= TARGET_RATIO
        base = results.get("before") or results.get("nocache") or []
        delay = cache["ready_s"] - figures(base)["ready_s"] if base else float("nan")
        delay_ok = delay <= TARGET_READY_DELAY_S
        verdict = (
            f"- First turn after a restart within {TARGET_RATIO:g}× of a warm turn: "
            f"{cache['ratio']:.2f}× ({'met' if ratio_ok else 'NOT met'}).\n"
            f"- READY delayed by at most {TARGET_READY_DELAY_S:g} s: {delay:+.2f} s against "
            f"{'the code before' if 'before' in results else 'no cache'} "
            f"({'met' if delay_ok else 'NOT met'}).\n"
        )
    return f"""# Benchmark: the first turn after a restart (issue 13)

Generated by `bench/first_turn.py` on {dt.date.today().isoformat()}: model
`{args.model}` on llama.cpp ({threads}), the shipped plugins (LED and servo on mock hardware) in
the prompt, socket only; {1 + args.restarts} starts per mode (one cold, then restarts),
{args.warm} warm turns per start, each turn in a new session with a greeting that
needs no tool. Machine: {machine()}. The two cores were shared with other engineers'
test runs, so figures are medians over the restarts and single runs vary widely.

{verdict}
{SUMMARY_HEAD}
{chr(10).join(rows)}

READY is the time from spawning `edgeagent run` to READY=1 (model loaded, front ends
up); the first turn is sent at once after READY and timed to its final line; a warm
turn is a later turn in a new session. Medians over the restarts (the cold start is
its own column).

## Every start

{RUNS_HEAD}
{chr(10).join(runs)}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen-coder-1.5b")
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument(
        "--threads", type=int, help="[llm.llamacpp] n_threads (default: llama.cpp's choice)"
    )
    parser.add_argument("--modes", default="cache,nocache")
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument(
        "--ready", type=int, default=0, help="only time READY, over this many rounds"
    )
    args = parser.parse_args()
    modes = args.modes.split(",") + (["before"] if args.before else [])
    work = Path(tempfile.mkdtemp(prefix="ea-ft-", dir="/tmp"))
    if args.ready:
        try:
            ready_only(args, modes, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    try:
        results = {mode: run_mode(mode, args, work) for mode in modes}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = report(results, args)
    print(text)
    if not args.no_write:
        REPORT.write_text(text)
        print(f"wrote {REPORT}")


if __name__ == "__main__":
    main()
