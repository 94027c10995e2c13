"""Load benchmark: N concurrent MQTT clients against a daemon on the scripted backend.

What it measures is edgeagent's own overhead (broker -> MQTT front end -> scheduler ->
agent loop -> model worker -> reply), not a model: the scripted engine answers at once.

    .venv/bin/python bench/load.py                  # N = 1, 10, 50; writes the report
    .venv/bin/python bench/load.py --clients 10 --duration 3 --no-write

It starts a real mosquitto on a free port (anonymous, 127.0.0.1 only) and the daemon
(`edgeagent --config X run`) under a test-made NOTIFY_SOCKET, then for each N:

* paced: the N clients together publish ``--rate`` prompts/s for ``--duration`` s
  (open loop), which gives latency at a steady load (p50, p99) and lost messages;
* saturated: each client sends its next prompt as soon as its reply arrives (closed
  loop), which gives the throughput ceiling.

Prompts are MQTT v5 with a per-client Response Topic and Correlation Data; a reply is
matched by the ``id`` echoed in its payload. Peak RSS is the daemon's VmHWM (and the
model worker's, separately); READY is the time from spawning the daemon to READY=1.
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
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from edgeagent.frontends.client import DaemonClient

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "benchmarks_load.md"
TARGETS = {"p50_ms": 5.0, "p99_ms": 25.0, "throughput": 300.0, "rss_mb": 80.0, "ready_s": 1.5}
SCRIPT = {"rules": [], "default": "ok, done.", "chunk_size": 64}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"mosquitto did not listen on port {port} within {timeout} s")


def vm_hwm_mb(pid: int | None) -> float | None:
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def daemon_status(sock_path: Path) -> dict[str, Any]:
    with DaemonClient(sock_path, timeout_s=5) as client:
        reply = next(client.request({"op": "status"}))
    status: dict[str, Any] = reply["status"]
    return status


# --- the system under test -----------------------------------------------------------


class Rig:
    """mosquitto + the daemon, in a temporary directory; ``close()`` stops both."""

    def __init__(self, *, queue_size: int) -> None:
        if shutil.which("mosquitto") is None:
            raise SystemExit("mosquitto is not installed (apt-get install mosquitto)")
        self.dir = Path(tempfile.mkdtemp(prefix="ea-bench-", dir="/tmp"))
        self.port = free_port()
        conf = self.dir / "mosquitto.conf"
        conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
            "max_queued_messages 100000\nmax_inflight_messages 0\nset_tcp_nodelay true\n"
        )
        self.broker = subprocess.Popen(
            ["mosquitto", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_port(self.port, 10)
        self.sock_path = self.dir / "ea.sock"
        (self.dir / "script.json").write_text(json.dumps(SCRIPT))
        (self.dir / "tools.d").mkdir()
        self.config = self.dir / "edgeagent.toml"
        self.config.write_text(
            f"""
[llm]
backend = "scripted"
script = "script.json"

[tools]
wrapped_dir = "tools.d"

[plugins.led]
backend = "mock"

[plugins.servo]
backend = "mock"

[mqtt]
enabled = true
host = "127.0.0.1"
port = {self.port}
device_id = "bench"
protocol = "5"

[socket]
path = "{self.sock_path}"

[daemon]
queue_size = {queue_size}
request_timeout_s = 30
shutdown_grace_s = 2
log_level = "WARNING"
"""
        )
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(str(self.dir / "notify.sock"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEAGENT_")}
        env["NOTIFY_SOCKET"] = str(self.dir / "notify.sock")
        self.log = (self.dir / "daemon.log").open("wb")
        started = time.monotonic()
        self.daemon = subprocess.Popen(
            [sys.executable, "-m", "edgeagent", "--config", str(self.config), "run"],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.ready_s = self._wait_ready(started, timeout=60)
        status = daemon_status(self.sock_path)
        if not status["mqtt"]["connected"]:
            self.close()
            raise SystemExit(f"the daemon is not connected to the broker: {status}")
        self.worker_pid: int | None = status.get("worker_pid")

    def _wait_ready(self, started: float, timeout: float) -> float:
        self.notify.settimeout(0.5)
        while time.monotonic() - started < timeout:
            try:
                data = self.notify.recv(4096).decode()
            except TimeoutError:
                if self.daemon.poll() is not None:
                    raise SystemExit(
                        f"the daemon exited: {(self.dir / 'daemon.log').read_text()}"
                    ) from None
                continue
            if "READY=1" in data.splitlines():
                return time.monotonic() - started
        raise SystemExit(f"no READY=1 within {timeout} s")

    def rss(self) -> tuple[float | None, float | None]:
        return vm_hwm_mb(self.daemon.pid), vm_hwm_mb(self.worker_pid)

    def close(self) -> int | None:
        code = None
        if self.daemon.poll() is None:
            self.daemon.send_signal(signal.SIGTERM)
            try:
                code = self.daemon.wait(20)
            except subprocess.TimeoutExpired:
                self.daemon.kill()
                self.daemon.wait()
        self.broker.terminate()
        self.broker.wait(10)
        self.notify.close()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        return code


# --- the clients ---------------------------------------------------------------------


@dataclass
class Tally:
    sent: dict[str, float] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class BenchClient:
    """One MQTT v5 client with its own response topic."""

    def __init__(self, name: str, port: int, tally: Tally, ask_topic: str) -> None:
        self.name, self.tally, self.ask_topic = name, tally, ask_topic
        self.response_topic = f"bench/{name}/reply"
        self.closed_loop = False
        self.stop_at = 0.0
        self.seq = 0
        self.subscribed = threading.Event()
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-{name}", protocol=mqtt.MQTTv5
        )
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda *_a: self.subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, *_args: Any) -> None:
        # paho leaves Nagle on: a prompt sent right after a PUBACK would wait for the
        # broker's delayed ACK (~40 ms on Linux), which is the client's latency, not ours.
        sock = client.socket()
        if isinstance(sock, socket.socket):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client.subscribe(self.response_topic, qos=1)

    def send(self) -> None:
        self.seq += 1
        rid = f"{self.name}-{self.seq}"
        props = Properties(PacketTypes.PUBLISH)
        props.ResponseTopic = self.response_topic
        props.CorrelationData = rid.encode()
        payload = json.dumps({"id": rid, "prompt": "hello"})
        with self.tally.lock:
            self.tally.sent[rid] = time.perf_counter()
        self.client.publish(self.ask_topic, payload, qos=1, properties=props)

    def _on_message(self, _client: mqtt.Client, _userdata: Any, msg: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        reply = json.loads(msg.payload)
        rid = reply.get("id")
        with self.tally.lock:
            sent = self.tally.sent.pop(rid, None)
            if sent is None:
                return
            self.tally.latencies.append(now - sent)
            if reply.get("error"):
                self.tally.errors += 1
        if self.closed_loop and now < self.stop_at:
            self.send()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def drain(tally: Tally, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with tally.lock:
            if not tally.sent:
                return
        time.sleep(0.02)


def run_level(rig: Rig, n: int, *, rate: float, duration: float) -> dict[str, Any]:
    ask_topic = "edgeagent/bench/ask"
    paced, saturated = Tally(), Tally()
    clients = [BenchClient(f"n{n}c{i}", rig.port, paced, ask_topic) for i in range(n)]
    for c in clients:
        if not c.subscribed.wait(10):
            raise SystemExit(f"client {c.name} could not subscribe")
    # Paced, open loop: client i fires at offsets i/rate, every n/rate seconds.
    interval = n / rate
    start = time.perf_counter() + 0.05
    total = int(rate * duration)
    for k in range(total):
        target = start + k / rate
        delay = target - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        clients[k % n].send()
    drain(paced, 10)
    paced_lost = len(paced.sent)
    # Saturated, closed loop.
    for c in clients:
        c.tally, c.closed_loop = saturated, True
    t0 = time.perf_counter()
    for c in clients:
        c.stop_at = t0 + duration
        c.send()
    time.sleep(duration)
    drain(saturated, 10)
    elapsed = time.perf_counter() - t0
    for c in clients:
        c.close()
    return {
        "clients": n,
        "interval_ms": interval * 1000,
        "paced_sent": total,
        "paced_lost": paced_lost,
        "paced_errors": paced.errors,
        "p50_ms": percentile(paced.latencies, 0.50) * 1000,
        "p99_ms": percentile(paced.latencies, 0.99) * 1000,
        "sat_done": len(saturated.latencies),
        "sat_lost": len(saturated.sent),
        "sat_errors": saturated.errors,
        "throughput": len(saturated.latencies) / elapsed,
        "sat_p50_ms": percentile(saturated.latencies, 0.50) * 1000,
        "sat_p99_ms": percentile(saturated.latencies, 0.99) * 1000,
    }


# --- report --------------------------------------------------------------------------


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    return (
        f"{cpu}, {os.cpu_count()} CPUs (load average {load} at the end), "
        f"Linux {platform.release()}, Python {platform.python_version()}"
    )


def verdict(ok: bool) -> str:
    return "yes" if ok else "**no**"


def report(
    rows: list[dict[str, Any]],
    ready_s: float,
    rss: tuple[float | None, float | None],
    args: argparse.Namespace,
    exit_code: int | None,
) -> str:
    daemon_rss, worker_rss = rss
    lines = [
        "# Load benchmark (bench/load.py)",
        "",
        f"- Date: {dt.datetime.now().isoformat(timespec='seconds')}",
        f"- Machine: {machine()}",
        f"- Setup: mosquitto on 127.0.0.1, daemon on the scripted backend (MQTT v5 prompts "
        f"with a response topic), {args.duration:g} s per phase, paced load "
        f"{args.rate:g} prompts/s in total.",
        "",
        "| N | paced p50 ms | paced p99 ms | lost | errors | saturated prompts/s | "
        "saturated p50 ms | saturated p99 ms | saturated lost |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['clients']} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['paced_lost']} | "
            f"{r['paced_errors'] + r['sat_errors']} | {r['throughput']:.0f} | "
            f"{r['sat_p50_ms']:.2f} | {r['sat_p99_ms']:.2f} | {r['sat_lost']} |"
        )
    at10 = next((r for r in rows if r["clients"] == 10), rows[0])
    best = max(r["throughput"] for r in rows)
    lost = sum(r["paced_lost"] + r["sat_lost"] for r in rows)
    lines += [
        "",
        f"- Time from spawn to READY=1: {ready_s:.2f} s",
        f"- Peak RSS (VmHWM): daemon {daemon_rss or float('nan'):.1f} MB; model worker "
        f"(scripted) {worker_rss or float('nan'):.1f} MB",
        f"- Daemon exit status after SIGTERM: {exit_code}",
        "",
        "| target | measured | met |",
        "|---|---|---|",
        f"| zero lost | {lost} | {verdict(lost == 0)} |",
        f"| p50 < {TARGETS['p50_ms']:g} ms at N={at10['clients']} | {at10['p50_ms']:.2f} ms | "
        f"{verdict(at10['p50_ms'] < TARGETS['p50_ms'])} |",
        f"| p99 < {TARGETS['p99_ms']:g} ms at N={at10['clients']} | {at10['p99_ms']:.2f} ms | "
        f"{verdict(at10['p99_ms'] < TARGETS['p99_ms'])} |",
        f"| >= {TARGETS['throughput']:g} prompts/s | {best:.0f} | "
        f"{verdict(best >= TARGETS['throughput'])} |",
        f"| daemon RSS < {TARGETS['rss_mb']:g} MB | {daemon_rss or float('nan'):.1f} MB | "
        f"{verdict(daemon_rss is not None and daemon_rss < TARGETS['rss_mb'])} |",
        f"| READY < {TARGETS['ready_s']:g} s | {ready_s:.2f} s | "
        f"{verdict(ready_s < TARGETS['ready_s'])} |",
        "",
        "Paced latency is measured at a steady open-loop load; saturated throughput with "
        "every client sending its next prompt when its reply arrives (so saturated latency "
        "includes queueing behind the other N-1 clients: the model serves one at a time).",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="1,10,50", help="comma-separated N values")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per phase")
    parser.add_argument("--rate", type=float, default=300.0, help="paced prompts/s in total")
    parser.add_argument("--out", type=Path, default=REPORT)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    levels = [int(n) for n in args.clients.split(",")]
    rig = Rig(queue_size=max(64, 2 * max(levels)))
    rows: list[dict[str, Any]] = []
    try:
        for n in levels:
            row = run_level(rig, n, rate=args.rate, duration=args.duration)
            rows.append(row)
            print(
                json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})
            )
        rss = rig.rss()
    finally:
        exit_code = rig.close()
    text = report(rows, rig.ready_s, rss, args, exit_code)
    print(text)
    if not args.no_write:
        args.out.write_text(text)
        print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
