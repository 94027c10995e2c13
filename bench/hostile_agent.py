"""The hostile run's phases that need the agent: hostile tool calls and faults.

Tool calls: a scripted model answers each ``HOSTILE-<n>`` prompt with one hostile reply
(:mod:`hostile_cases`); every prompt needs an answer, and no answer may hold a secret
(an environment variable, a file outside the shell's roots), ``/etc/passwd``, a rebuilt
control token, or the result of a call that must not run.

Faults: the model worker killed or stopped mid-turn, the broker restarted or killed, the
daemon stopped with SIGTERM mid-turn, the LED simulator down or hung. Each fault is one
input; it is answered when the turn it hit ends with an answer (or the daemon exits in
time, for SIGTERM) and the next prompt is served.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile_cases import (
    CANARY,
    CANARY_FILE,
    INJECTED_FILE,
    INJECTED_TEXT,
    SHELL_FAMILY,
    ToolCase,
    call,
    prompt_for,
    script,
)
from hostile_inputs import Payload
from hostile_net import TERMINAL, LineClient, MqttAsker
from hostile_report import Row
from hostile_rig import Broker, Daemon, finish_row, free_port, write_daemon_config

CONTROL = re.compile(r"<\|[\w.:/ -]{1,40}\|>")
PASSWD = "root:x:0:0"


def ask_socket(
    path: Path,
    prompt: str,
    *,
    timeout_s: float = 20,
    stream: bool = False,
    first_chunk: threading.Event | None = None,
) -> dict[str, Any] | None:
    """One prompt over the socket; its terminal line, or ``None`` (no answer)."""
    try:
        client = LineClient(path)
    except OSError:
        return None
    try:
        client.send(json.dumps({"prompt": prompt, "stream": stream, "id": "q"}).encode() + b"\n")
        deadline = time.monotonic() + timeout_s
        while (line := client.read_line(deadline)) is not None:
            event: dict[str, Any] = json.loads(line)
            if event.get("type") == "text" and first_chunk is not None:
                first_chunk.set()
            if event.get("type") in TERMINAL:
                return event
        return None
    except (OSError, ValueError):
        return None
    finally:
        client.close()


# --- hostile tool calls ------------------------------------------------------------------


def prepare_root(directory: Path, secret: str) -> None:
    """The shell's root: a note, a file with injected tokens, and links out of it."""
    root = directory / "root"
    root.mkdir(parents=True, exist_ok=True)
    (directory / "secret.txt").write_text(secret + "\n")
    (root / "notes.txt").write_text("shopping: milk, eggs\n")
    (root / CANARY_FILE).write_text(CANARY + "\n")
    (root / INJECTED_FILE).write_text(INJECTED_TEXT)
    for name, target in (
        ("outside", directory / "secret.txt"),
        ("etc", Path("/etc")),
        ("zero", Path("/dev/zero")),
        ("loop", root / "loop"),
    ):
        link = root / name
        if not link.is_symlink():
            link.symlink_to(target)


def check_answer(
    row: Row, case: ToolCase, frontend: str, raw: str, markers: list[str], max_calls: int
) -> None:
    """Record every breach in one answer."""
    label = f"{case.group} over {frontend}"
    for marker in markers:
        if marker in raw:
            row.breach(f"{label}: the answer holds the secret {marker!r}")
    if PASSWD in raw:
        row.breach(f"{label}: the answer holds /etc/passwd")
    try:
        answer = json.loads(raw)
    except ValueError:
        return
    # "SEEN:" answers echo a tool result as the engine received it (the model's own
    # text may hold anything: it is output, not input).
    text = answer.get("text") or ""
    token = CONTROL.search(text) if text.startswith("SEEN:") else None
    if token is not None:
        row.breach(f"{label}: control token {token.group()!r} reached the engine")
    calls = answer.get("tool_calls") or []
    if len(calls) > max_calls:
        row.breach(f"{label}: {len(calls)} calls ran in one turn (cap {max_calls})")
    for c in calls:
        if not c.get("ok"):
            continue
        result = c.get("result")
        if isinstance(result, dict) and result.get("exit_code") not in (0, None):
            continue  # the command ran and failed (e.g. a literal '~/x' inside the roots)
        if case.lax:
            row.notes.append(f"{label}: `{c.get('name')}` {c.get('arguments')} ran")
        elif case.must_fail:
            row.breach(f"{label}: `{c.get('name')}` {str(c.get('arguments'))[:80]} ran")
        elif frontend == "mqtt" and c.get("name") in SHELL_FAMILY:
            row.breach(f"{label}: `{c.get('name')}`, denied to MQTT, ran")


def run_tool_calls(
    directory: Path, broker: Broker, cases: list[ToolCase], chosen: list[int], row: Row
) -> None:
    secret = f"HOSTILE-SECRET-{os.getpid()}"
    markers = [f"{secret}-env", f"{secret}-password", f"{secret}-file"]
    prepare_root(directory, markers[2])
    config, sock = write_daemon_config(directory, script=script(cases), mqtt_port=broker.port)
    env = {"HOSTILE_TOKEN": markers[0], "EDGEAGENT_MQTT__PASSWORD": markers[1]}
    daemon = Daemon(config, socket_path=sock, env=env)
    daemon.start()
    before = sorted(p.name for p in (directory / "root").iterdir())
    asker = MqttAsker(broker.port, "edgeagent/hostile", client_id="hostile-tools")
    max_calls = 5 * 4  # [agent] max_steps x max_calls_per_step
    try:
        for i in chosen:
            case = cases[i]
            answer = ask_socket(sock, prompt_for(i), timeout_s=30)
            row.record(f"{case.group} (socket)", answer is not None, example=case.reply[:120])
            if answer is not None:
                check_answer(row, case, "socket", json.dumps(answer), markers, max_calls)
            if case.mqtt:
                _ask_mqtt(asker, row, case, i, markers, max_calls)
            if not daemon.alive():
                daemon.start()
        _self_check(sock, asker, row)
    finally:
        asker.close()
        alive = daemon.alive()
        daemon.stop()
    after = sorted(p.name for p in (directory / "root").iterdir())
    for name in set(after) - set(before):
        row.breach(f"a tool call wrote {name!r} into the shell's root")
    log = daemon.log()
    for marker in markers:
        if marker in log:
            row.breach(f"the daemon's log holds the secret {marker!r}")
    finish_row(row, daemon, alive)


def _self_check(sock: Path, asker: MqttAsker, row: Row) -> None:
    """Tool output reaches the answers on both front ends (else no leak could be seen)."""
    answer = ask_socket(sock, "CONTROL-CANARY", timeout_s=30)
    if CANARY not in json.dumps(answer):
        row.notes.append(
            f"self-check failed: a file read over the socket is not in the answer: {answer}"
        )
    data = json.dumps({"prompt": "CONTROL-MATH"}).encode()
    corr = asker.send(Payload("control", data, response_topic="hostile/tools"))
    got = b" ".join(p for _, p in asker.wait_reply(corr, 30))
    if b"42" not in got:
        row.notes.append(
            f"self-check failed: a tool result over MQTT is not in the answer: {got!r}"
        )


def _ask_mqtt(
    asker: MqttAsker, row: Row, case: ToolCase, i: int, markers: list[str], max_calls: int
) -> None:
    payload = json.dumps({"prompt": prompt_for(i), "id": f"t{i}"}).encode()
    corr = asker.send(Payload(case.group, payload, response_topic="hostile/tools"))
    got = [p for t, p in asker.wait_reply(corr, 30) if t == "hostile/tools"]
    row.record(f"{case.group} (mqtt)", bool(got), example=case.reply[:120])
    for raw in got:
        check_answer(row, case, "mqtt", raw.decode(errors="replace"), markers, max_calls)


# --- faults --------------------------------------------------------------------------------

SLOW = "one two three four five six seven eight nine ten " * 4
FAULT_SCRIPT = {
    "rules": [
        {"match": "^slow", "reply": SLOW},
        {"match": "^led", "reply": call("led", {"color": "red"})},
        {"match": "^hello", "reply": "Hello."},
    ],
    "default": "ok, done.",
    "chunk_size": 4,
    "chunk_delay_s": 0.05,
}
GRACE_S, SAFE_S = 2.0, 5.0


class DripServer:
    """A simulator that accepts, then sends its answer one byte per second, forever."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_server(("127.0.0.1", port), reuse_port=False)
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        with conn:
            for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"x" * 100000:
                if self.stopped.wait(1.0):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return

    def close(self) -> None:
        self.stopped.set()
        self.sock.close()


class Faults:
    """One daemon with MQTT, the slow script and the LED/servo on a simulator port."""

    def __init__(self, directory: Path, broker: Broker, row: Row) -> None:
        self.broker, self.row = broker, row
        self.sim_port = free_port()
        over = {
            "llm": {"generation_timeout_s": 4.0},
            "plugins": {
                "led": {"backend": "sim", "timeout_s": 2.0},
                "servo": {"backend": "sim", "timeout_s": 2.0},
            },
            "simulator": {"port": self.sim_port},
            "daemon": {
                "request_timeout_s": 15.0,
                "shutdown_grace_s": GRACE_S,
                "safe_state_timeout_s": SAFE_S,
            },
        }
        config, self.sock = write_daemon_config(
            directory, script=FAULT_SCRIPT, mqtt_port=broker.port, over=over
        )
        self.daemon = Daemon(config, socket_path=self.sock)
        self.daemon.start()
        self.asker = MqttAsker(broker.port, "edgeagent/hostile", client_id="hostile-faults")
        self.last: dict[str, Any] | None = None
        """The answer to the last mid-turn fault's turn (shown in the progress line)."""

    # -- helpers --
    def hello(self) -> bool:
        """The next prompt is served (a final answer, not an error)."""
        answer = ask_socket(self.sock, "hello", timeout_s=20)
        if answer is None or answer.get("type") != "final":
            self.row.notes.append(f"after the fault, 'hello' got {str(answer)[:200]}")
            return False
        return True

    def mid_turn(self, fault: Callable[[], object], timeout_s: float = 30) -> bool:
        """Start a slow streamed turn, apply ``fault`` at its first chunk; answered?"""
        first = threading.Event()
        result: list[dict[str, Any] | None] = []
        thread = threading.Thread(
            target=lambda: result.append(
                ask_socket(self.sock, "slow", timeout_s=timeout_s, stream=True, first_chunk=first)
            )
        )
        thread.start()
        if not first.wait(10):
            self.row.notes.append("a slow turn streamed nothing within 10 s")
        fault()
        thread.join(timeout_s + 5)
        self.last = result[0] if result else None
        return self.last is not None

    def mqtt_reply(self, prompt: str, during: Callable[[], object], timeout_s: float = 40) -> bool:
        data = json.dumps({"prompt": prompt}).encode()
        corr = self.asker.send(Payload("fault", data, response_topic="hostile/faults"))
        time.sleep(0.5)
        during()
        return any(t == "hostile/faults" for t, _ in self.asker.wait_reply(corr, timeout_s))

    def mqtt_connected(self, timeout_s: float = 40) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                if self.daemon.status()["mqtt"]["connected"] and self.asker.subscribed.is_set():
                    return True
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.2)
        return False

    def kill_worker(self, signum: int = signal.SIGKILL) -> int | None:
        pid = self.daemon.worker_pid()
        if pid is not None:
            os.kill(pid, signum)
        return pid

    def sigterm(self, limit_s: float) -> bool:
        code, took = self.daemon.stop(timeout=limit_s + 20)
        ok = code == 0 and took <= limit_s
        if not ok:
            self.row.notes.append(
                f"SIGTERM: exit code {code} after {took:.1f} s (limit {limit_s:g} s)"
            )
        return ok

    # -- the faults --
    def worker_kill_mid_turn(self) -> bool:
        return self.mid_turn(self.kill_worker) & self.hello()

    def worker_kill_idle(self) -> bool:
        self.kill_worker()
        time.sleep(0.5)
        return self.hello()

    def worker_stop_mid_turn(self) -> bool:
        stopped: list[int | None] = []
        answered = self.mid_turn(lambda: stopped.append(self.kill_worker(signal.SIGSTOP)))
        served = self.hello()  # before SIGCONT: the daemon must get past it on its own
        for pid in stopped:
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
        return answered and served

    def broker_kill_idle(self) -> bool:
        self.broker.stop(kill=True)
        time.sleep(1)
        self.broker.start()
        if not self.mqtt_connected():
            self.row.notes.append("broker killed: the daemon did not reconnect within 40 s")
            return False
        return self.mqtt_reply("hello", lambda: None, 15)

    def broker_restart_mid_turn(self) -> bool:
        def restart() -> None:
            self.broker.stop()
            time.sleep(1)
            self.broker.start()

        return self.mqtt_reply("slow", restart) & self.mqtt_connected()

    def socket_while_broker_down(self) -> bool:
        self.broker.stop()
        try:
            return self.hello()
        finally:
            self.broker.start()
            self.mqtt_connected()

    def sigterm_mid_turn_socket(self) -> bool:
        stopped: list[bool] = []
        ok = self.mid_turn(lambda: stopped.append(self.sigterm(GRACE_S + SAFE_S + 5)))
        self.daemon.start()
        return ok and all(stopped) and self.hello()

    def sigterm_mid_turn_mqtt(self) -> bool:
        stopped: list[bool] = []
        ok = self.mqtt_reply("slow", lambda: stopped.append(self.sigterm(GRACE_S + SAFE_S + 5)), 15)
        self.daemon.start()
        self.mqtt_connected()
        return ok and all(stopped) and self.hello()

    def sim_down(self) -> bool:
        answer = ask_socket(self.sock, "led red", timeout_s=20)
        return answer is not None

    def sim_hung(self) -> bool:
        self.drip = DripServer(self.sim_port)
        answers = []
        for prompt in ("led red", "led again"):
            started = time.monotonic()
            answers.append(ask_socket(self.sock, prompt, timeout_s=20))
            took = time.monotonic() - started
            if took > 8:  # [plugins.led] timeout_s = 2
                self.row.notes.append(
                    f"LED simulator dripping a byte a second: {prompt!r} took {took:.1f} s "
                    f"with a 2 s tool timeout"
                )
        return all(a is not None for a in answers)

    def sigterm_with_sim_hung(self) -> bool:
        ok = self.sigterm(GRACE_S + SAFE_S + 5)
        self.drip.close()
        self.daemon.start()
        return ok & self.hello()

    def run(self) -> None:
        faults = [
            self.worker_kill_mid_turn,
            self.worker_kill_idle,
            self.worker_stop_mid_turn,
            self.broker_kill_idle,
            self.broker_restart_mid_turn,
            self.socket_while_broker_down,
            self.sigterm_mid_turn_socket,
            self.sigterm_mid_turn_mqtt,
            self.sim_down,
            self.sim_hung,
            self.sigterm_with_sim_hung,
        ]
        try:
            for fault in faults:
                started = time.monotonic()
                self.last = None
                answered = fault()
                took = time.monotonic() - started
                shown = "" if self.last is None else str(self.last)[:150]
                print(f"  fault {fault.__name__}: answered={answered} ({took:.1f} s) {shown}")
                self.row.record(fault.__name__, answered, example=fault.__name__)
                if not self.daemon.alive():
                    self.daemon.start()
        finally:
            self.asker.close()
            alive = self.daemon.alive()
            self.daemon.stop()
            finish_row(self.row, self.daemon, alive)
