"""Issue 9, item 14: the simulator answers loopback host names only (DNS rebinding).

A page on ``attacker.example`` that rebinds its name to 127.0.0.1 makes the browser
send ``Host: attacker.example``; that request must be refused before it moves anything.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from edgeagent_sim import create_app
from edgeagent_sim.server import SimulatorServer
from flask.testing import FlaskClient

from tests.loopback import free_port

FORGED = "attacker.example"


def test_a_forged_host_is_refused_and_the_servo_stays(client: FlaskClient) -> None:
    reply = client.post("/api/servo", json={"angle": 60}, headers={"Host": FORGED})
    assert reply.status_code == 403
    error = reply.get_json()["error"]
    assert f"host {FORGED!r} is not allowed" in error
    assert "[simulator] allowed_hosts" in error
    assert client.get("/api/servo").get_json() == {"angle": 0.0}
    for path in ("/", "/api/led", "/api/events"):  # the page and its feed too
        assert client.get(path, headers={"Host": f"{FORGED}:8765"}).status_code == 403


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:8765", "LOCALHOST.", "127.0.0.1:1", "127.0.0.2", "[::1]:8765"]
)
def test_loopback_names_with_any_port_are_answered(client: FlaskClient, host: str) -> None:
    reply = client.post("/api/servo", json={"angle": 15}, headers={"Host": host})
    assert reply.status_code == 200, reply.get_json()
    assert client.get("/api/servo").get_json() == {"angle": 15.0}


@pytest.mark.parametrize(
    "host", ["localhost.attacker.example", "127.0.0.1.attacker.example", "0.0.0.0:8765", "pi"]
)
def test_names_that_only_look_local_are_refused(client: FlaskClient, host: str) -> None:
    assert client.get("/api/led", headers={"Host": host}).status_code == 403


def test_allowed_hosts_adds_names_and_star_allows_any() -> None:
    listed = create_app({"TESTING": True, "ALLOWED_HOSTS": ["Pi.local"]}).test_client()
    assert listed.get("/api/led", headers={"Host": "pi.local:8765"}).status_code == 200
    refused = listed.get("/api/led", headers={"Host": FORGED})
    assert refused.status_code == 403
    assert "(now: pi.local)" in refused.get_json()["error"]
    anyone = create_app({"TESTING": True, "ALLOWED_HOSTS": ["*"]}).test_client()
    assert anyone.get("/api/led", headers={"Host": FORGED}).status_code == 200


def test_a_forged_host_over_real_http_moves_nothing(
    live: SimulatorServer, http: httpx.Client
) -> None:
    forged = http.post(f"{live.url}/api/servo", json={"angle": 45}, headers={"Host": FORGED})
    assert forged.status_code == 403
    assert FORGED in forged.json()["error"]
    assert http.get(f"{live.url}/api/servo").json() == {"angle": 0.0}
    assert http.post(f"{live.url}/api/servo", json={"angle": 45}).status_code == 200


@pytest.fixture
def sim_process(tmp_path: Path) -> Iterator[str]:
    """``edgeagent sim`` as a user runs it, with ``allowed_hosts`` in its config file."""
    port = free_port()
    config = tmp_path / "edgeagent.toml"
    state = tmp_path / "sim.json"
    config.write_text(
        f'[simulator]\nport = {port}\nstate_file = "{state}"\nallowed_hosts = ["pi.local"]\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEAGENT_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "edgeagent", "--config", str(config), "sim"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{url}/api/led", timeout=1, trust_env=False)
                break
            except httpx.HTTPError:
                assert proc.poll() is None, "edgeagent sim exited"
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def test_edgeagent_sim_reads_allowed_hosts_from_the_config(sim_process: str) -> None:
    with httpx.Client(timeout=5, trust_env=False) as http:
        listed = http.get(f"{sim_process}/api/servo", headers={"Host": "pi.local:8765"})
        assert listed.status_code == 200
        forged = http.post(f"{sim_process}/api/servo", json={"angle": 9}, headers={"Host": FORGED})
        assert forged.status_code == 403
        assert http.get(f"{sim_process}/api/servo").json() == {"angle": 0.0}
