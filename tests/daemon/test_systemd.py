"""The daemon under a real NOTIFY_SOCKET: READY, STATUS, WATCHDOG and STOPPING."""

from __future__ import annotations

import os
import signal
import socket
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from edgeagent.systemd import Notifier
from tests.daemon_process import DaemonProcess, status_over_socket, write_daemon_config

WATCHDOG_USEC = 400_000  # pings every 0.2 s


class NotifyListener:
    """A test-made NOTIFY_SOCKET: a datagram socket that records what the daemon sends."""

    def __init__(self, path: Path | None = None, *, abstract: str | None = None) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract is not None:
            self.sock.bind(b"\0" + abstract.encode())
            self.address = "@" + abstract
        else:
            assert path is not None
            self.sock.bind(str(path))
            self.address = str(path)
        self.messages: list[tuple[float, dict[str, str]]] = []

    def receive(self, timeout: float) -> dict[str, str] | None:
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(4096)
        except TimeoutError:
            return None
        fields = dict(line.split("=", 1) for line in data.decode().splitlines() if "=" in line)
        self.messages.append((time.monotonic(), fields))
        return fields

    def wait_for(self, key: str, timeout: float) -> dict[str, str]:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            fields = self.receive(left)
            if fields is not None and key in fields:
                return fields
        raise AssertionError(f"no {key} within {timeout} s; got {self.messages}")

    def close(self) -> None:
        self.sock.close()


@pytest.mark.parametrize("kind", ["path", "abstract"])
def test_ready_status_watchdog_then_stopping_on_sigterm(
    short_dir: Path, daemon_factory: Callable[..., DaemonProcess], kind: str
) -> None:
    if kind == "path":
        listener = NotifyListener(short_dir / "notify.sock")
    else:
        listener = NotifyListener(abstract=f"edgeagent-test-{uuid.uuid4().hex}")
    sock_path = short_dir / "ea.sock"
    config = write_daemon_config(short_dir, socket_path=sock_path)
    daemon = daemon_factory(
        config, env={"NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": str(WATCHDOG_USEC)}
    )
    try:
        ready = listener.wait_for("READY", timeout=30)
        assert ready["READY"] == "1"
        assert ready["MAINPID"] == str(daemon.proc.pid)
        assert "ready" in ready["STATUS"] and "tools" in ready["STATUS"]
        # The socket answers by the time READY arrives: front ends are up first.
        assert status_over_socket(sock_path)["state"] == "ready"
        before_ready = [fields for _, fields in listener.messages[:-1]]
        assert before_ready and all("STATUS" in f for f in before_ready)
        assert not any("WATCHDOG" in f for f in before_ready)

        t0 = time.monotonic()
        pings = 0
        while time.monotonic() - t0 < 1.2:
            fields = listener.receive(0.5)
            pings += bool(fields and fields.get("WATCHDOG") == "1")
        assert pings >= 4  # every WATCHDOG_USEC / 2

        daemon.proc.send_signal(signal.SIGTERM)
        stopping = listener.wait_for("STOPPING", timeout=10)
        assert stopping["STOPPING"] == "1"
        assert daemon.proc.wait(15) == 0, daemon.output()
        assert not sock_path.exists()
    finally:
        listener.close()


def _kill_worker_under_watchdog(
    short_dir: Path, daemon_factory: Callable[..., DaemonProcess]
) -> tuple[DaemonProcess, NotifyListener, Path]:
    listener = NotifyListener(short_dir / "notify.sock")
    sock_path = short_dir / "ea.sock"
    config = write_daemon_config(short_dir, socket_path=sock_path)
    daemon = daemon_factory(
        config, env={"NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": str(WATCHDOG_USEC)}
    )
    listener.wait_for("READY", timeout=30)
    listener.wait_for("WATCHDOG", timeout=2)
    worker_pid = status_over_socket(sock_path)["worker_pid"]
    if worker_pid is None:
        listener.close()
        pytest.skip("this backend runs in process; there is no worker to kill")
    os.kill(int(str(worker_pid)), signal.SIGKILL)
    time.sleep(0.3)  # one ping may already be on its way
    while listener.receive(0.05) is not None:
        pass
    return daemon, listener, sock_path


def test_watchdog_is_withheld_until_the_dead_worker_is_restarted(
    short_dir: Path, daemon_factory: Callable[..., DaemonProcess]
) -> None:
    daemon, listener, sock_path = _kill_worker_under_watchdog(short_dir, daemon_factory)
    try:
        listener.wait_for("WATCHDOG", timeout=6)
        deadline = time.monotonic() + 5  # the log line travels through a pipe
        while "healthy again" not in daemon.output() and time.monotonic() < deadline:
            time.sleep(0.05)
        output = daemon.output()
        # The ping stopped while the worker was dead, and resumed only after a restart.
        withheld = output.index("not pinging the systemd watchdog: the model worker is not running")
        assert output.index("healthy again; pinging the systemd watchdog") > withheld
        assert status_over_socket(sock_path)["worker_restarts"] == 1
    finally:
        listener.close()


def test_notifier_without_notify_socket_is_a_quiet_no_op() -> None:
    notifier = Notifier.from_env({})
    assert not notifier.enabled
    assert notifier.watchdog_interval_s is None
    assert notifier.ready("x") is False


def test_notifier_reads_and_unsets_the_environment(short_dir: Path) -> None:
    listener = NotifyListener(short_dir / "n.sock")
    env = {"NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "1"}
    notifier = Notifier.from_env(env, unset=True)
    assert env == {}
    assert notifier.watchdog_interval_s is None  # WATCHDOG_PID names another process
    env = {"NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "3000000"}
    notifier = Notifier.from_env(env)
    assert notifier.watchdog_interval_s == 1.5
    notifier.status("line one\nline two")
    assert listener.receive(1) == {"STATUS": "line one line two"}
    notifier.close()
    listener.close()
