"""``edgeagent run`` with Home Assistant discovery, on the scripted model, against a real
mosquitto: the flow a home-automation user has, end to end, and what survives a restart.

Home Assistant's side is played by MQTT clients doing what HA does with the discovery
config: publish to the text entity's command topic (with its message expiry), press a
button, read the event entity and render the answer sensor's templates.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.daemon_process import DaemonProcess, write_daemon_config
from tests.home_assistant import render
from tests.mqtt_broker import Broker, Received, TestClient, retained_messages

LED_CALL = '<tool_call>{"name": "led", "arguments": {"color": "%s"}}</tool_call>'
SCRIPT = {
    "rules": [
        {"match": "(?i)^turn the led red", "reply": LED_CALL % "red"},
        {"match": "(?i)^turn the led off", "reply": LED_CALL % "black"},
        {"match": "(?i)^hello", "reply": "Hello from the scripted model."},
    ],
    "default": "Done.",  # after a tool's result (the agent words the answer from it)
}
BASE = "edgeagent/bench"
DEVICE_TOPIC = "homeassistant/device/bench/config"


@pytest.fixture
def dashboard() -> Iterator[int]:
    """Something listening where ``[simulator]`` says the dashboard is."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield int(listener.getsockname()[1])


def start(
    directory: Path,
    broker: Broker,
    daemon_factory: Callable[..., DaemonProcess],
    *,
    dashboard_port: int = 9,
) -> DaemonProcess:
    sock = directory / "ea.sock"
    extra = f"""homeassistant_discovery = true

[homeassistant]
buttons = {{"Lights off" = "turn the led off"}}
prompt_expiry_s = 30

[agent]
check_target = false

[simulator]
port = {dashboard_port}
"""
    config = write_daemon_config(
        directory, socket_path=sock, mqtt_port=broker.port, extra=extra, script=SCRIPT
    )
    daemon = daemon_factory(config)
    daemon.wait_ready(sock)
    return daemon


def publish_as_home_assistant(client: TestClient, topic: str, text: str, expiry_s: int) -> None:
    """What HA sends when a text entity is set or a button pressed: the bare payload,
    QoS 1, with the entity's message expiry (MQTT v5)."""
    properties = Properties(PacketTypes.PUBLISH)
    properties.MessageExpiryInterval = expiry_s
    client.client.publish(topic, text, qos=1, properties=properties).wait_for_publish(5)


def events_of(client: TestClient, prompt: str, count: int) -> list[dict[str, Any]]:
    found = client.wait_for(
        f"{BASE}/event/turn", lambda m: m.json()["prompt"] == prompt, count=count
    )
    return [m.json() for m in found]


def test_home_automation_flow_end_to_end_on_the_scripted_backend(
    short_dir: Path,
    broker: Broker,
    clients: Callable[..., TestClient],
    daemon_factory: Callable[..., DaemonProcess],
    dashboard: int,
) -> None:
    start(short_dir, broker, daemon_factory, dashboard_port=dashboard)
    ha = clients()
    ha.subscribe(DEVICE_TOPIC)
    (discovery,) = ha.wait_for(DEVICE_TOPIC)
    device = discovery.json()
    assert device["dev"]["cu"] == f"http://127.0.0.1:{dashboard}"  # the dashboard answers
    cmps = device["cmps"]
    prompt, answer, event = cmps["prompt"], cmps["answer"], cmps["event"]
    for topic in (event["state_topic"], answer["state_topic"], f"{BASE}/reply", "ha/answers"):
        ha.subscribe(topic)

    # Typed into the text entity.
    publish_as_home_assistant(
        ha, prompt["command_topic"], "turn the led red", prompt["message_expiry_interval"]
    )
    tool_call, answered = events_of(ha, "turn the led red", count=2)
    assert tool_call == {
        "event_type": "tool_call",
        "id": None,
        "session": None,
        "prompt": "turn the led red",
        "tool": "led",
        "arguments": {"color": "red"},
    }
    assert answered["event_type"] == "answer" and answered["tools"] == ["led"]
    text = answered["text"]
    assert "red" in text  # the agent's answer from the tool's result
    (state,) = ha.wait_for(answer["state_topic"])
    assert render(answer["value_template"], state.json()) == text
    attributes = json.loads(render(answer["json_attributes_template"], state.json()))
    assert attributes["prompt"] == "turn the led red"
    assert [(c["name"], c["ok"]) for c in attributes["tool_calls"]] == [("led", True)]
    (reply,) = ha.wait_for(f"{BASE}/reply")
    assert reply.json()["status"] == "ok" and reply.json()["data"]["text"] == text

    # A v5 request with its own response topic: answered there and on reply.
    ha.publish(
        f"{BASE}/ask",
        {"prompt": "hello", "id": "v5"},
        response_topic="ha/answers",
        correlation=b"c-1",
    )
    (direct,) = ha.wait_for("ha/answers")
    (shared,) = ha.wait_for(f"{BASE}/reply", lambda m: m.json()["id"] == "v5")
    assert direct.correlation == shared.correlation == b"c-1"
    assert direct.json() == shared.json()
    hello_text = "Hello from the scripted model."
    assert direct.json()["text"] == direct.json()["data"]["text"] == hello_text
    (hello,) = events_of(ha, "hello", count=1)
    assert (hello["event_type"], hello["id"], hello["tools"]) == ("answer", "v5", [])

    # A button press sends its prompt.
    button = cmps["button_lights_off"]
    assert button["p"] == "button" and button["default_entity_id"] == (
        "button.edgeagent_bench_lights_off"
    )
    publish_as_home_assistant(
        ha, button["command_topic"], button["payload_press"], button["message_expiry_interval"]
    )
    off_call, _ = events_of(ha, "turn the led off", count=2)
    assert off_call["arguments"] == {"color": "black"}

    # The diagnostic sensors: the scripted model, idle again, the last turn's time.
    def settled(m: Received) -> bool:
        return m.json()["activity"] == "idle" and m.json()["last_turn_s"] is not None

    ha.subscribe(f"{BASE}/diagnostics")
    diagnostics = ha.wait_for(f"{BASE}/diagnostics", settled)[-1].json()
    assert diagnostics["backend"] == "scripted" and diagnostics["llm"].startswith("scripted: ")
    # The scripted engine tells its window but not its use (llama.cpp and Hailo do):
    # the sensor shows "unknown" rather than a made-up figure.
    assert diagnostics["context_window"] == 2048 and diagnostics["context_pct"] is None


def test_the_answer_diagnostics_and_info_are_retained_across_a_daemon_restart(
    short_dir: Path,
    broker: Broker,
    clients: Callable[..., TestClient],
    daemon_factory: Callable[..., DaemonProcess],
) -> None:
    first = start(short_dir, broker, daemon_factory)
    asker = clients()
    asker.subscribe(f"{BASE}/answer")
    asker.publish(f"{BASE}/ask", {"prompt": "hello", "id": "before"})
    asker.wait_for(f"{BASE}/answer")
    assert first.stop() == 0, first.output()

    start(short_dir, broker, daemon_factory)
    # Home Assistant restarting now reads every state back instead of "unknown".
    states = retained_messages(broker, f"{BASE}/#", "homeassistant/#")
    assert states[f"{BASE}/status"].payload == b"online"
    answer = states[f"{BASE}/answer"].json()
    assert answer["state"] == "Hello from the scripted model."
    assert answer["attributes"]["id"] == "before"
    assert states[f"{BASE}/diagnostics"].json()["backend"] == "scripted"
    info = states[f"{BASE}/info"].json()
    assert info["backend"] == "scripted" and info["device_id"] == "bench"
    assert "led" in info["tools"] and isinstance(info["context_window"], int)
    assert set(states[DEVICE_TOPIC].json()["cmps"]) >= {"prompt", "answer", "event"}
    # No event is retained: an automation must not fire again on HA's restart.
    assert f"{BASE}/event/turn" not in states
