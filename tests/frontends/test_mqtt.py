"""The MQTT front end against a real mosquitto, observed by a real paho client."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

import edgeagent
from edgeagent.config import MQTTConfig, TLSConfig
from edgeagent.errors import ConfigError, ProtocolError
from edgeagent.frontends.base import Request
from edgeagent.frontends.mqtt import MQTTFrontend
from edgeagent.frontends.mqtt_payload import (
    Prompt,
    Rejected,
    check_response_topic,
    parse_prompt,
)
from tests.daemon_process import write_daemon_config
from tests.frontends.mqtt_frontend import (
    LED_CALL,
    EchoDispatcher,
    make_config,
    run_with_frontend,
    wait_for,
    with_id,
)
from tests.mqtt_broker import (
    Broker,
    Received,
    TestClient,
    make_tls_material,
    needs_mosquitto_passwd,
)

# --- Parsing, the pure part ---------------------------------------------------------------


def test_parse_prompt_accepts_text_and_json_and_names_what_is_wrong() -> None:
    plain = parse_prompt(b"  turn the LED red \n", max_bytes=100)
    assert plain == Prompt(Request("turn the LED red", frontend="mqtt"))
    parsed = parse_prompt(
        b'{"prompt": "hi", "id": 7, "session": "s", "stream": true}', max_bytes=100
    )
    request = Request("hi", frontend="mqtt", id="7", session="s", stream=True)
    assert parsed == Prompt(request, echo={"id": 7})
    by_transaction = parse_prompt(b'{"prompt": "hi", "transaction": "t1"}', max_bytes=100)
    assert isinstance(by_transaction, Prompt) and by_transaction.echo == {"transaction": "t1"}
    assert by_transaction.request.id == "t1" and by_transaction.request.stream is False

    bad = parse_prompt(b'{"prompt": "hi", "id": "x", "colour": 1}', max_bytes=100)
    assert isinstance(bad, Rejected) and '"colour"' in bad.error and bad.echo == {"id": "x"}
    bad = parse_prompt(b'{"prompt": ["hi"], "transaction": "t"}', max_bytes=100)
    assert (
        isinstance(bad, Rejected) and '"prompt"' in bad.error and bad.echo == {"transaction": "t"}
    )
    bad = parse_prompt(b'{"prompt": "hi", "stream": "yes"}', max_bytes=100)
    assert isinstance(bad, Rejected) and '"stream"' in bad.error
    bad = parse_prompt(b'{"prompt": "hi", "session": "s", "stream": 1}', max_bytes=100)
    assert isinstance(bad, Rejected) and bad.session == "s"  # a sound name is echoed
    bad = parse_prompt(b"x" * 101, max_bytes=100)
    assert isinstance(bad, Rejected) and "101 bytes" in bad.error and "100-byte" in bad.error


def test_parse_prompt_answers_hostile_json_with_the_problem_and_keeps_a_sound_id() -> None:
    deep = b'{"prompt": ' + b"[" * 1000 + b"]" * 1000 + b', "id": "d"}'
    cases: list[tuple[bytes, str, dict[str, Any]]] = [
        (deep, "nested deeper than 32", {}),
        (b'{"prompt": "hi \\ud800", "id": "p"}', "lone surrogate", {"id": "p"}),
        (b'{"prompt": "hi", "id": "\\ud800"}', "lone surrogate", {}),
        (b'{"prompt": "hi", "id": 3, "session": "\\udfff"}', "lone surrogate", {"id": 3}),
        (b'{"prompt": "hi", "id": 4, "session": ""}', "session '' is empty", {"id": 4}),
        (b'{"prompt": "hi", "id": 5, "session": "' + b"k" * 65 + b'"}', "65 characters", {"id": 5}),
        (b'{"prompt": "hi", "id": 6, "session": "a\\nb"}', "control characters", {"id": 6}),
        (b'{"prompt": "hi", "id": 7, "session": 12}', "must be a string", {"id": 7}),
    ]
    for payload, expected, echo in cases:
        parsed = parse_prompt(payload, max_bytes=16384)
        assert isinstance(parsed, Rejected), payload
        assert expected in parsed.error and parsed.echo == echo, (payload, parsed)
        assert parsed.session is None  # an unusable name is not sent back
        json.dumps(parsed.error, ensure_ascii=False).encode("utf-8")  # a reply can carry it


def test_check_response_topic_refuses_what_a_reply_must_not_reach() -> None:
    reserved = ("edgeagent/dev1", "homeassistant", "edgeagent/fleet/ask")
    refused = {
        "homeassistant/switch/evil/config": "under 'homeassistant'",
        "homeassistant": "under 'homeassistant'",
        "edgeagent/dev1/ask": "under 'edgeagent/dev1'",
        "edgeagent/dev1/reply": "under 'edgeagent/dev1'",
        "edgeagent/fleet/ask": "under 'edgeagent/fleet/ask'",
        "clients/+/reply": "wildcard '+'",
        "clients/#": "wildcard '#'",
        "$SYS/broker/x": "starts with '$'",
        "clients/a\x00b": "control characters",
    }
    for topic, expected in refused.items():
        with pytest.raises(ProtocolError, match=expected.replace("$", r"\$").replace("+", r"\+")):
            check_response_topic(topic, reserved=reserved, allowed_prefixes=())
    for topic in ("zigbee2mqtt/lamp/set", "edgeagent/dev10/reply", "homeassistantx/a"):
        check_response_topic(topic, reserved=reserved, allowed_prefixes=())  # not reserved
    allowed = ("clients/", "ha/answers")
    check_response_topic("clients/me/reply", reserved=reserved, allowed_prefixes=allowed)
    check_response_topic("ha/answers", reserved=reserved, allowed_prefixes=allowed)
    for topic in ("zigbee2mqtt/lamp/set", "ha/answers-evil", "clientsx/me"):
        with pytest.raises(ProtocolError, match="not under an allowed prefix"):
            check_response_topic(topic, reserved=reserved, allowed_prefixes=allowed)


# --- Round trips --------------------------------------------------------------------------


def test_round_trip_v311_with_id_field(broker: Broker, clients: Callable[..., TestClient]) -> None:
    config = make_config(broker, protocol="3.1.1")
    dispatcher = EchoDispatcher()
    client = clients(protocol="3.1.1")

    async def body(fe: MQTTFrontend) -> None:
        client.subscribe(fe.topic_reply)
        client.publish(fe.topic_ask, {"prompt": "hello there", "id": "42", "session": "kitchen"})
        client.publish(fe.topic_ask, "plain text prompt")
        (reply,) = await wait_for(client, fe.topic_reply, with_id("42"))
        assert reply.json() == {
            "id": "42",
            "session": "kitchen",
            "text": "echo: hello there",
            "tool_calls": [],
            "error": None,
            "status": "ok",
            "data": {"text": "echo: hello there", "tool_calls": []},
        }
        (plain,) = await wait_for(client, fe.topic_reply, with_id(None))
        assert plain.json()["text"] == "echo: plain text prompt"

    run_with_frontend(config, body, dispatcher=dispatcher)
    first = next(r for r in dispatcher.requests if r.id == "42")
    assert (first.frontend, first.session, first.prompt) == ("mqtt", "kitchen", "hello there")


def test_round_trip_v5_replies_on_response_topic_and_on_reply_with_correlation_data(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker)
    client = clients()
    corr = b"\x00\x01req-9\xff"

    async def body(fe: MQTTFrontend) -> None:
        client.subscribe("ha/answers/me")
        client.subscribe(fe.topic_reply)
        client.subscribe(fe.topic_tool)
        client.publish(
            fe.topic_ask, "turn the led red", response_topic="ha/answers/me", correlation=corr
        )
        (reply,) = await wait_for(client, "ha/answers/me")
        assert reply.correlation == corr
        assert reply.json()["text"] == "echo: turn the led red"
        assert reply.json()["tool_calls"] == [LED_CALL]
        events = await wait_for(client, fe.topic_tool, count=2)
        assert [e.json()["type"] for e in events] == ["tool_call", "tool_result"]
        assert events[0].json()["arguments"] == {"color": "red"}
        # The same answer on the shared reply topic, which Home Assistant follows.
        (shared,) = await wait_for(client, fe.topic_reply)
        assert shared.json() == reply.json() and shared.correlation == corr
        assert reply.json()["status"] == "ok"
        assert reply.json()["data"] == {"text": "echo: turn the led red", "tool_calls": [LED_CALL]}

    run_with_frontend(config, body)


def test_id_and_transaction_come_back_unchanged(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker)
    client = clients()

    async def body(fe: MQTTFrontend) -> None:
        client.subscribe(fe.topic_reply)
        client.publish(fe.topic_ask, {"prompt": "a", "id": 7})
        client.publish(fe.topic_ask, {"prompt": "b", "transaction": "z2m-1"})
        (numeric,) = await wait_for(client, fe.topic_reply, with_id(7))
        assert numeric.json()["text"] == "echo: a" and numeric.json()["id"] == 7
        (tx,) = await wait_for(client, fe.topic_reply, lambda m: "transaction" in m.json())
        assert tx.json()["transaction"] == "z2m-1" and tx.json()["text"] == "echo: b"

    run_with_frontend(config, body)


def test_stream_topic_carries_partial_text_and_errors_reach_the_reply(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker)
    client = clients()

    async def body(fe: MQTTFrontend) -> None:
        client.subscribe(fe.topic_reply)
        client.subscribe(fe.topic_stream)
        client.publish(fe.topic_ask, {"prompt": "one two three", "id": "s", "stream": True})
        client.publish(fe.topic_ask, {"prompt": "fail", "id": "f"})
        await wait_for(client, fe.topic_reply, with_id("s"))
        chunks = await wait_for(client, fe.topic_stream, count=3)
        assert "".join(c.json()["text"] for c in chunks) == "one two three "
        (failed,) = await wait_for(client, fe.topic_reply, with_id("f"))
        assert failed.json()["error"] == "the model worker crashed"
        assert failed.json()["text"] is None
        assert (failed.json()["status"], failed.json()["data"]) == ("error", {})

    run_with_frontend(config, body)


# --- Status, tools and the last will ------------------------------------------------------


def test_retained_status_and_tools_then_offline_after_stop(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker)
    base = config.base_topic

    async def main() -> None:
        fe = MQTTFrontend(config, dispatcher=EchoDispatcher())
        await fe.start()
        watcher = clients()
        watcher.subscribe(f"{base}/#")
        (online,) = await wait_for(watcher, f"{base}/status")
        assert (online.payload, online.retain) == (b"online", True)
        (tools,) = await wait_for(watcher, f"{base}/tools")
        assert tools.retain and tools.json() == EchoDispatcher().tools()
        (info,) = await wait_for(watcher, f"{base}/info")
        assert info.retain and info.json() == {
            "device_id": config.device_id,
            "version": edgeagent.__version__,
            "backend": "echo",
            "model": "echo-1",
            "context_window": 1000,
            "tools": ["led"],
        }
        assert fe.status()["connected"] is True
        await fe.stop()
        await fe.stop()  # idempotent
        assert (fe.connected, fe.state) == (False, "stopped")

    asyncio.run(main())
    late = clients()
    late.subscribe(f"{base}/status")
    (status,) = late.wait_for(f"{base}/status")
    assert (status.payload, status.retain) == (b"offline", True)


LWT_SCRIPT = """
import asyncio, sys
from edgeagent.agent.events import FinalAnswer
from edgeagent.config import MQTTConfig, TLSConfig
from edgeagent.frontends.mqtt import MQTTFrontend

class Pong:
    async def submit(self, request):
        yield FinalAnswer("pong")
    def reset_session(self, session, *, frontend): return False
    def status(self): return {}
    def tools(self): return []

async def main():
    config = MQTTConfig(enabled=True, host="127.0.0.1", port=int(sys.argv[1]),
                        device_id=sys.argv[2], keepalive_s=5)
    frontend = MQTTFrontend(config, dispatcher=Pong())
    await frontend.start()
    print("ready" if frontend.connected else "not connected", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


def test_last_will_publishes_offline_when_the_process_is_killed(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker)
    status = f"{config.base_topic}/status"
    proc = subprocess.Popen(
        [sys.executable, "-c", LWT_SCRIPT, str(broker.port), config.device_id],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode().strip()
        assert line == "ready", proc.stderr.read().decode() if proc.stderr else line
        client = clients()
        client.subscribe(f"{config.base_topic}/reply")
        client.subscribe(status)
        client.wait_for(status, lambda m: m.payload == b"online")
        client.publish(f"{config.base_topic}/ask", {"prompt": "ping", "id": 1})
        (reply,) = client.wait_for(f"{config.base_topic}/reply")
        assert reply.json()["text"] == "pong"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        client.wait_for(status, lambda m: m.payload == b"offline", timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    late = clients()
    late.subscribe(status)
    late.wait_for(status)
    assert [(m.payload, m.retain) for m in late.on(status)] == [(b"offline", True)]


def test_killing_the_real_daemon_leaves_a_retained_offline(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    """``edgeagent run`` on the scripted model: answer one prompt, kill -9, see ``offline``."""
    workdir = Path(tempfile.mkdtemp(prefix="ea-mqtt-", dir="/tmp"))  # short socket path
    device = f"daemon{uuid.uuid4().hex[:6]}"
    base = f"edgeagent/{device}"
    script = {"rules": [{"match": "(?i)ping", "reply": "pong from the daemon"}], "default": "?"}
    config = write_daemon_config(
        workdir,
        socket_path=workdir / "ea.sock",
        mqtt_port=broker.port,
        script=script,
        device_id=device,
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEAGENT_")}
    client = clients()
    client.subscribe(f"{base}/#")
    with (workdir / "daemon.log").open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "edgeagent", "--config", str(config), "run"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        try:
            client.wait_for(f"{base}/status", lambda m: m.payload == b"online", timeout=60)
        except AssertionError:
            raise AssertionError((workdir / "daemon.log").read_text()) from None
        (tools,) = client.wait_for(f"{base}/tools")
        assert "led" in {t["name"] for t in tools.json()}
        client.publish(f"{base}/ask", {"prompt": "ping", "id": "p1"})
        (reply,) = client.wait_for(f"{base}/reply", timeout=30)
        assert reply.json()["id"] == "p1" and reply.json()["text"] == "pong from the daemon"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        client.wait_for(f"{base}/status", lambda m: m.payload == b"offline", timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        shutil.rmtree(workdir, ignore_errors=True)
    late = clients()
    late.subscribe(f"{base}/status")
    late.wait_for(f"{base}/status")
    assert [(m.payload, m.retain) for m in late.on(f"{base}/status")] == [(b"offline", True)]


# --- Nothing lost ---------------------------------------------------------------------------


def test_broker_restart_mid_run_loses_no_prompt(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker)
    client = clients(client_id=f"asker-{uuid.uuid4().hex[:6]}", persistent=True)

    async def body(fe: MQTTFrontend) -> None:
        client.subscribe(fe.topic_reply)
        for i in range(5):
            client.publish(fe.topic_ask, {"prompt": f"before {i}", "id": f"b{i}"})
        await wait_for(client, fe.topic_reply, count=5)
        # Prompts published while the broker is down wait in the asker's paho queue,
        # then in the daemon's persistent session until it has reconnected too.
        await asyncio.to_thread(
            broker.restart,
            down_s=0.5,
            during=lambda: [
                client.publish(fe.topic_ask, {"prompt": f"down {i}", "id": f"d{i}"})
                for i in range(5)
            ],
        )
        for i in range(5):
            client.publish(fe.topic_ask, {"prompt": f"after {i}", "id": f"a{i}"})
        expected = {f"{p}{i}" for p in "bda" for i in range(5)}

        def answered(messages: list[Received]) -> set[str]:
            return {m.json()["id"] for m in messages if m.topic == fe.topic_reply}

        # QoS 1 is at-least-once: a reply may arrive twice, but none may be missing.
        await asyncio.to_thread(client.wait_until, lambda ms: answered(ms) >= expected, timeout=30)
        replies = client.on(fe.topic_reply)
        assert answered(replies) == expected
        assert all(r.json()["error"] is None for r in replies)
        assert {r.json()["text"] for r in replies} == {
            f"echo: {w} {i}" for w in ("before", "down", "after") for i in range(5)
        }
        assert fe.connected and fe.state == "connected"

    run_with_frontend(config, body)


def test_prompts_sent_while_the_daemon_is_stopped_are_delivered_on_restart(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker)
    client = clients()
    client.subscribe(f"{config.base_topic}/reply")

    async def first(fe: MQTTFrontend) -> None:
        pass

    run_with_frontend(config, first)  # creates the persistent session, then stops
    for i in range(3):
        client.publish(f"{config.base_topic}/ask", {"prompt": f"queued {i}", "id": i})

    async def second(fe: MQTTFrontend) -> None:
        replies = await wait_for(client, fe.topic_reply, count=3)
        assert sorted(r.json()["text"] for r in replies) == [f"echo: queued {i}" for i in range(3)]

    run_with_frontend(config, second)


def test_stop_cancels_a_slow_request_with_an_error_reply(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker)
    client = clients()
    client.subscribe(f"{config.base_topic}/reply")
    client.subscribe(f"{config.base_topic}/status")

    async def main() -> None:
        fe = MQTTFrontend(config, dispatcher=EchoDispatcher(delay_s=30))
        await fe.start()
        client.publish(fe.topic_ask, {"prompt": "slow", "id": "slow"})
        await asyncio.sleep(0.3)
        await fe.stop(grace_s=0.2)

    asyncio.run(main())
    (reply,) = client.wait_for(f"{config.base_topic}/reply")
    assert reply.json()["id"] == "slow" and "shutting down" in reply.json()["error"]
    client.wait_for(f"{config.base_topic}/status", lambda m: m.payload == b"offline")


# --- Bad input --------------------------------------------------------------------------------


def test_malformed_and_oversized_payloads_get_errors_and_later_prompts_succeed(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker, max_payload_bytes=256)
    dispatcher = EchoDispatcher()
    client = clients()
    corr = b"bad-1"

    async def body(fe: MQTTFrontend) -> None:
        client.subscribe(fe.topic_reply)
        client.subscribe("me/answers")
        bad: list[str | bytes | dict[str, Any]] = [
            b"\xff\xfe not utf-8",
            "{not json",
            {"prompt": 5, "id": "wrong-type"},
            {"prompt": "   ", "id": "empty"},
            {"prompt": "hi", "id": "extra", "colour": "red"},
            "x" * 300,
            "",
        ]
        for payload in bad:
            client.publish(fe.topic_ask, payload)
        client.publish(fe.topic_ask, b"\xc3", response_topic="me/answers", correlation=corr)
        client.publish(fe.topic_ask, {"prompt": "still alive", "id": "ok"})

        errors = await wait_for(client, fe.topic_reply, lambda m: m.json()["error"], count=8)
        by_id = {e.json()["id"]: e.json()["error"] for e in errors}
        assert '"prompt"' in by_id["wrong-type"]
        assert "empty prompt" in by_id["empty"]
        assert '"colour"' in by_id["extra"]
        anonymous = sorted(e.json()["error"] for e in errors if e.json()["id"] is None)
        assert len(anonymous) == 5  # the v5 one is told on both topics
        assert any("UTF-8" in e for e in anonymous)
        assert any("not valid JSON" in e for e in anonymous)
        assert any("300 bytes" in e and "256-byte limit" in e for e in anonymous)
        assert any("empty prompt" in e for e in anonymous)
        (direct,) = await wait_for(client, "me/answers")
        assert direct.correlation == corr and "UTF-8" in direct.json()["error"]
        (ok,) = await wait_for(client, fe.topic_reply, with_id("ok"))
        assert ok.json() == {
            "id": "ok",
            "session": None,
            "text": "echo: still alive",
            "tool_calls": [],
            "error": None,
            "status": "ok",
            "data": {"text": "echo: still alive", "tool_calls": []},
        }
        assert (fe.rejected, fe.received) == (8, 9)

    run_with_frontend(config, body, dispatcher=dispatcher)
    assert [r.prompt for r in dispatcher.requests] == ["still alive"]


def test_retained_prompt_is_not_run(broker: Broker, clients: Callable[..., TestClient]) -> None:
    config = make_config(broker)
    client = clients()
    client.publish(f"{config.base_topic}/ask", {"prompt": "stale", "id": "r"}, retain=True)
    client.subscribe(f"{config.base_topic}/reply")
    dispatcher = EchoDispatcher()

    async def body(fe: MQTTFrontend) -> None:
        client.publish(fe.topic_ask, {"prompt": "fresh", "id": "f"})
        await wait_for(client, fe.topic_reply, with_id("f"))

    run_with_frontend(config, body, dispatcher=dispatcher)
    assert [r.prompt for r in dispatcher.requests] == ["fresh"]


def test_a_bad_response_topic_runs_nothing_and_the_error_goes_to_the_reply_topic(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker, response_topic_prefixes=["clients"])
    dispatcher = EchoDispatcher()
    client = clients()
    bad = {
        "homeassistant/switch/evil/config": "under 'homeassistant'",
        f"{config.base_topic}/ask": f"under '{config.base_topic}'",
        "zigbee2mqtt/lamp/set": "not under an allowed prefix",
        "clients/+/reply": "wildcard '+'",
        "$SYS/x": "starts with '$'",
    }

    async def body(fe: MQTTFrontend) -> None:
        client.subscribe("#")
        for i, topic in enumerate(bad):
            client.publish(
                fe.topic_ask,
                {"prompt": "turn the led red", "id": i},
                response_topic=topic,
                correlation=f"c{i}".encode(),
            )
        client.publish(
            fe.topic_ask, {"prompt": "led ok", "id": "ok"}, response_topic="clients/me/reply"
        )
        (ok,) = await wait_for(client, "clients/me/reply")
        errors = await wait_for(client, fe.topic_reply, lambda m: m.json()["error"], count=len(bad))
        for i, (topic, expected) in enumerate(bad.items()):
            (error,) = [e for e in errors if e.json()["id"] == i]
            assert expected in error.json()["error"], error.json()
            assert error.correlation == f"c{i}".encode()
            # Nothing but our own prompts on the named topic (it may be the ask topic).
            assert all("prompt" in m.json() for m in client.on(topic)), client.on(topic)
        assert ok.json()["text"] == "echo: led ok"
        # Only the good prompt ran its tool.
        calls = [m.json() for m in client.on(fe.topic_tool)]
        assert {c["id"] for c in calls} == {"ok"}

    run_with_frontend(config, body, dispatcher=dispatcher)
    assert [r.prompt for r in dispatcher.requests] == ["led ok"]


# --- Fleets ------------------------------------------------------------------------------------


def test_shared_subscription_splits_fleet_prompts_and_device_topics_stay_private(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    a_cfg = make_config(broker, device_id="fleet-a", shared_group="kitchen")
    b_cfg = make_config(broker, device_id="fleet-b", shared_group="kitchen")
    a_disp, b_disp = EchoDispatcher(), EchoDispatcher()
    client = clients()

    async def main() -> None:
        a = MQTTFrontend(a_cfg, dispatcher=a_disp)
        b = MQTTFrontend(b_cfg, dispatcher=b_disp)
        await a.start()
        await b.start()
        try:
            client.subscribe("edgeagent/+/reply")
            for i in range(10):
                client.publish("edgeagent/fleet/ask", {"prompt": f"fleet {i}", "id": i})
            client.publish(a.topic_ask, {"prompt": "just a", "id": "a-only"})
            await wait_for(client, a.topic_reply, with_id("a-only"))
            deadline = asyncio.get_running_loop().time() + 15
            while len(client.on(a.topic_reply)) + len(client.on(b.topic_reply)) < 11:
                assert asyncio.get_running_loop().time() < deadline, "fleet replies missing"
                await asyncio.sleep(0.05)
            replies = client.on(a.topic_reply) + client.on(b.topic_reply)
            fleet_ids = sorted(r.json()["id"] for r in replies if r.json()["id"] != "a-only")
            assert fleet_ids == list(range(10))  # each fleet prompt answered exactly once
        finally:
            await a.stop()
            await b.stop()

    asyncio.run(main())
    assert "just a" in [r.prompt for r in a_disp.requests]
    assert "just a" not in [r.prompt for r in b_disp.requests]
    assert len(a_disp.requests) + len(b_disp.requests) == 11


def test_the_fleet_topic_sits_beside_the_device_level_of_the_base_topic(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker, base_topic="home/edge/pi1", shared_group="kitchen")
    assert config.fleet_topic == "home/edge/fleet/ask"
    assert make_config(broker, device_id="pi2").fleet_topic == "edgeagent/fleet/ask"
    assert make_config(broker, base_topic="pi3").fleet_topic == "fleet/ask"
    dispatcher = EchoDispatcher()
    client = clients()

    async def body(fe: MQTTFrontend) -> None:
        client.subscribe(fe.topic_reply)
        client.publish("home/edge/fleet/ask", {"prompt": "to the fleet", "id": "f1"})
        client.publish("edgeagent/fleet/ask", {"prompt": "to another fleet", "id": "f2"})
        (reply,) = await wait_for(client, fe.topic_reply, with_id("f1"))
        assert reply.json()["text"] == "echo: to the fleet"
        # The fleet topic is one of the daemon's own: no reply may be steered onto it.
        fleet = "home/edge/fleet/ask"
        client.publish(fe.topic_ask, {"prompt": "x", "id": "r"}, response_topic=fleet)
        (refused,) = await wait_for(client, fe.topic_reply, with_id("r"))
        assert "under 'home/edge/fleet/ask'" in refused.json()["error"]

    run_with_frontend(config, body, dispatcher=dispatcher)
    assert [r.prompt for r in dispatcher.requests] == ["to the fleet"]


# --- Credentials and TLS ----------------------------------------------------------------------


@pytest.mark.skipif(
    not (shutil.which("openssl") and shutil.which("mosquitto_passwd")),
    reason="needs openssl and mosquitto_passwd",
)
def test_tls_with_client_certificate_and_password(tmp_path: Path) -> None:
    tls = make_tls_material(tmp_path / "tls")
    secure = Broker(
        workdir=tmp_path / "secure",
        allow_anonymous=False,
        users={"edge": "s3cret"},
        listener_options=(
            f"cafile {tls['ca_crt']}\ncertfile {tls['server_crt']}\n"
            f"keyfile {tls['server_key']}\nrequire_certificate true\n"
        ),
    )
    secure.start()
    tls_config = TLSConfig(
        enabled=True,
        ca_certs=tls["ca_crt"],
        certfile=tls["client_crt"],
        keyfile=tls["client_key"],
    )
    good = make_config(secure, username="edge", password="s3cret", tls=tls_config)
    wrong = make_config(secure, username="edge", password="nope", tls=tls_config)

    def configure(client: mqtt.Client) -> None:
        client.username_pw_set("edge", "s3cret")
        client.tls_set(str(tls["ca_crt"]), str(tls["client_crt"]), str(tls["client_key"]))

    async def refused() -> None:
        fe = MQTTFrontend(wrong, dispatcher=EchoDispatcher(), connect_wait_s=1.0)
        await fe.start()
        try:
            assert not fe.connected and fe.state.startswith("refused"), fe.state
        finally:
            await fe.stop()

    try:
        client = TestClient(secure, configure=configure)
        try:

            async def body(fe: MQTTFrontend) -> None:
                client.subscribe(fe.topic_reply)
                client.publish(fe.topic_ask, {"prompt": "over tls", "id": "t"})
                (reply,) = await wait_for(client, fe.topic_reply, with_id("t"))
                assert reply.json()["text"] == "echo: over tls"

            run_with_frontend(good, body)
            asyncio.run(refused())
        finally:
            client.close()
    finally:
        secure.stop()


@needs_mosquitto_passwd
def test_password_file_logs_in_and_its_mistakes_name_the_key(tmp_path: Path) -> None:
    secure = Broker(workdir=tmp_path / "secure", allow_anonymous=False, users={"edge": "s3cret"})
    secure.start()
    secret = tmp_path / "mqtt.secret"
    secret.write_text("  s3cret  \nthe second line is ignored\n")
    empty = tmp_path / "empty.secret"
    empty.write_text("\n")

    async def start(config: MQTTConfig) -> MQTTFrontend:
        fe = MQTTFrontend(config, dispatcher=EchoDispatcher(), connect_wait_s=2.0)
        try:
            await fe.start()
        except BaseException:
            await fe.stop()
            raise
        return fe

    async def main() -> None:
        fe = await start(make_config(secure, username="edge", password_file=secret))
        try:
            assert fe.connected, fe.state
        finally:
            await fe.stop()
        mistakes = {
            "cannot read it": make_config(
                secure, username="edge", password_file=tmp_path / "missing"
            ),
            "first line is empty": make_config(secure, username="edge", password_file=empty),
            # With password too, or without username: config errors (tests/test_config.py).
        }
        for expected, config in mistakes.items():
            with pytest.raises(ConfigError) as caught:
                await start(config)
            assert expected in str(caught.value)
            assert f"password_file = {config.password_file}" in str(caught.value)

    try:
        asyncio.run(main())
    finally:
        secure.stop()
