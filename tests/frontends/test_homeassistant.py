"""Home Assistant against a real mosquitto: what the front end leaves on the broker, and
what HA would make of it.

Home Assistant itself is not run (its releases need Python 3.13.2 or later, 3.14.2 since
2026.3; Debian 12 has 3.11): the payloads are compared with the shapes HA's MQTT
documentation gives, and its templates are rendered with Jinja as HA renders them.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

import edgeagent
from edgeagent.agent.events import ErrorEvent, Event, FinalAnswer
from edgeagent.config import HomeAssistantConfig, MQTTConfig
from edgeagent.frontends import ha_entities
from edgeagent.frontends.base import Request
from edgeagent.frontends.mqtt import MQTTFrontend
from edgeagent.frontends.mqtt_payload import Outgoing
from tests.frontends.mqtt_frontend import (
    LED_CALL,
    EchoDispatcher,
    make_config,
    run_with_frontend,
    wait_for,
)
from tests.home_assistant import keys, render
from tests.mqtt_broker import Broker, TestClient, retained_messages

HA = HomeAssistantConfig(buttons={"Lights off": "turn the led off"}, prompt_expiry_s=30)


# --- Discovery -----------------------------------------------------------------------------


def test_discovery_is_one_retained_device_config_in_the_shape_ha_documents(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker, homeassistant_discovery=True, device_id="pi.kitchen")
    base = config.base_topic

    async def nothing(fe: MQTTFrontend) -> None:
        pass

    run_with_frontend(config, nothing, homeassistant=HA, dashboard_url="http://pi:8765")
    discovery = retained_messages(broker, "homeassistant/#")
    assert list(discovery) == ["homeassistant/device/pi_kitchen/config"]
    device = discovery["homeassistant/device/pi_kitchen/config"].json()

    def entity(platform: str, key: str, name: str, entity_id: str) -> dict[str, Any]:
        return {
            "p": platform,
            "name": name,
            "unique_id": f"edgeagent_pi_kitchen_{key}",
            "default_entity_id": f"{platform}.{entity_id}",
        }

    def diagnostic(key: str, name: str, field: str, **options: Any) -> dict[str, Any]:
        return {
            **entity("sensor", key, name, f"edgeagent_pi_kitchen_{key}"),
            "state_topic": f"{base}/diagnostics",
            "value_template": "{{ value_json." + field + " }}",
            "entity_category": "diagnostic",
            **options,
        }

    asking = {
        "command_topic": f"{base}/ask",
        "retain": False,
        "qos": 1,
        "message_expiry_interval": 30,
    }
    assert device == {
        "dev": {
            "ids": ["edgeagent_pi_kitchen"],
            "name": "edgeagent pi.kitchen",
            "mf": "edgeagent",
            "mdl": "edgeagent",
            "sw": edgeagent.__version__,
            "sn": "pi.kitchen",
            "cu": "http://pi:8765",
        },
        "o": {"name": "edgeagent", "sw": edgeagent.__version__},
        "avty": [
            {
                "topic": f"{base}/status",
                "payload_available": "online",
                "payload_not_available": "offline",
            }
        ],
        "qos": 1,
        "cmps": {
            "prompt": {
                **entity("text", "prompt", "Prompt", "edgeagent_pi_kitchen_prompt"),
                **asking,
                "icon": "mdi:robot",
                "mode": "text",
                "max": 255,
            },
            "answer": {
                **entity("sensor", "answer", "Answer", "edgeagent_pi_kitchen_answer"),
                "icon": "mdi:message-reply-text",
                "state_topic": f"{base}/answer",
                "value_template": "{{ value_json.state }}",
                "json_attributes_topic": f"{base}/answer",
                "json_attributes_template": "{{ value_json.attributes | tojson }}",
            },
            "event": {
                **entity("event", "event", "Event", "edgeagent_pi_kitchen_event"),
                "icon": "mdi:robot-outline",
                "state_topic": f"{base}/event/turn",
                "event_types": ["answer", "tool_call", "error"],
            },
            "model": diagnostic("model", "Model", "llm", icon="mdi:brain"),
            "activity": diagnostic(
                "activity", "Activity", "activity", device_class="enum", options=["idle", "busy"]
            ),
            "latency": diagnostic(
                "latency",
                "Last turn",
                "last_turn_s",
                device_class="duration",
                unit_of_measurement="s",
                state_class="measurement",
            ),
            "context": diagnostic(
                "context",
                "Context use",
                "context_pct",
                icon="mdi:gauge",
                unit_of_measurement="%",
                state_class="measurement",
            ),
            "button_lights_off": {
                **entity(
                    "button", "button_lights_off", "Lights off", "edgeagent_pi_kitchen_lights_off"
                ),
                **asking,
                "payload_press": "turn the led off",
            },
        },
    }
    assert "object_id" not in keys(device)  # ignored since HA 2026.4
    # Each entity is tied to the device HA keeps in its registry, and unique.
    unique_ids = [c["unique_id"] for c in device["cmps"].values()]
    assert len(set(unique_ids)) == len(unique_ids)


def test_old_per_entity_configs_move_over_with_their_unique_ids(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    """A broker that holds the retained configs of an earlier release ends with only the
    device config, after HA's documented steps: ``migrate_discovery`` on each old topic,
    the device config, then the old topic emptied."""
    config = make_config(broker, homeassistant_discovery=True, device_id="kitchen")
    base = config.base_topic
    device = {"identifiers": ["edgeagent_kitchen"], "name": "edgeagent kitchen"}
    old = {
        "homeassistant/text/kitchen/prompt/config": {
            "device": device,
            "name": "Prompt",
            "unique_id": "edgeagent_kitchen_prompt",
            "object_id": "edgeagent_kitchen_prompt",
            "command_topic": f"{base}/ask",
        },
        "homeassistant/sensor/kitchen/answer/config": {
            "device": device,
            "name": "Answer",
            "unique_id": "edgeagent_kitchen_answer",
            "object_id": "edgeagent_kitchen_answer",
            "state_topic": f"{base}/reply",
        },
    }
    seeder = clients()
    for topic, payload in old.items():
        seeder.publish(topic, payload, retain=True).wait_for_publish(5)
    ha = clients()  # stands where Home Assistant listens
    ha.subscribe("homeassistant/#")
    ha.wait_until(lambda ms: len(ms) == 2)
    ha.messages.clear()

    async def nothing(fe: MQTTFrontend) -> None:
        await wait_for(ha, "homeassistant/sensor/kitchen/answer/config", lambda m: m.payload == b"")

    run_with_frontend(config, nothing)
    seen = [(m.topic, m.payload.decode()) for m in ha.messages]
    device_topic = "homeassistant/device/kitchen/config"
    for topic in old:
        marker = seen.index((topic, json.dumps({"migrate_discovery": True})))
        emptied = seen.index((topic, ""))
        announced = [i for i, (t, _) in enumerate(seen) if t == device_topic]
        assert any(marker < i < emptied for i in announced), seen
    # HA's discovery id is "<node_id> <object_id>" for the old topics and
    # "<node_id> <component key>" for the device config: the same, as are the unique ids.
    after = retained_messages(broker, "homeassistant/#")
    assert list(after) == [device_topic]
    cmps = after[device_topic].json()["cmps"]
    assert (
        cmps["prompt"]["unique_id"] == old["homeassistant/text/kitchen/prompt/config"]["unique_id"]
    )
    assert (
        cmps["answer"]["unique_id"]
        == old["homeassistant/sensor/kitchen/answer/config"]["unique_id"]
    )
    assert after[device_topic].json()["dev"]["ids"] == device["identifiers"]

    # The next start finds nothing to migrate.
    ha.messages.clear()
    run_with_frontend(config, lambda fe: asyncio.sleep(0.5))
    assert all("migrate_discovery" not in m.payload.decode() for m in ha.messages)
    assert {m.topic for m in ha.messages} == {device_topic}


def test_home_assistant_online_re_announces_after_a_random_delay(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(
        broker, homeassistant_discovery=True, homeassistant_status_topic="hass/birth"
    )
    ha = HomeAssistantConfig(announce_delay_max_s=2.0)
    seed = 5
    delay = random.Random(seed).uniform(0, 2.0)
    assert 0.8 < delay < 1.8  # the seed makes a delay the test can see
    topic = f"homeassistant/device/{config.device_id}/config"
    watcher = clients()

    async def body(fe: MQTTFrontend) -> None:
        watcher.subscribe(topic)
        await wait_for(watcher, topic)
        watcher.messages.clear()
        # The default birth topic is not this HA's: nothing happens.
        watcher.publish("homeassistant/status", "online")
        started = time.monotonic()
        for _ in range(3):  # births close together: one announcement answers them
            watcher.publish("hass/birth", "online")
        await asyncio.sleep(delay - 0.4)
        assert watcher.on(topic) == []  # not at once: after the random delay
        (again,) = await wait_for(watcher, topic, timeout=3)
        assert delay - 0.4 <= time.monotonic() - started <= delay + 1.0
        assert again.json()["cmps"]["prompt"]["unique_id"].endswith("_prompt")
        await asyncio.sleep(1.0)
        assert len(watcher.on(topic)) == 1
        watcher.publish("hass/birth", "offline")  # HA going away asks for nothing
        await asyncio.sleep(0.5 + 2.0)
        assert len(watcher.on(topic)) == 1

    run_with_frontend(config, body, homeassistant=ha, rng=random.Random(seed))


def test_turning_discovery_off_removes_the_device_old_configs_and_retained_states(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    on = make_config(broker, homeassistant_discovery=True)
    off = on.model_copy(update={"homeassistant_discovery": False})
    base = on.base_topic
    watcher = clients()

    async def ask(fe: MQTTFrontend) -> None:
        watcher.subscribe(f"{base}/answer")
        watcher.publish(fe.topic_ask, "hello")
        await wait_for(watcher, f"{base}/answer")

    run_with_frontend(on, ask)
    before = retained_messages(broker, "homeassistant/#", f"{base}/#")
    assert {f"homeassistant/device/{on.device_id}/config", f"{base}/answer"} <= set(before)
    assert f"{base}/diagnostics" in before
    stale = f"homeassistant/sensor/{on.device_id}/answer/config"  # an earlier release's
    watcher.publish(stale, {"unique_id": "x"}, retain=True).wait_for_publish(5)

    run_with_frontend(off, lambda fe: asyncio.sleep(0))
    after = retained_messages(broker, "homeassistant/#", f"{base}/#")
    assert sorted(after) == [f"{base}/info", f"{base}/status", f"{base}/tools"]


# --- The entities' states ------------------------------------------------------------------


def test_the_event_entity_fires_on_tool_call_answer_and_error_and_the_answer_is_retained(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker, homeassistant_discovery=True)
    base = config.base_topic
    ha = clients()

    async def body(fe: MQTTFrontend) -> None:
        ha.subscribe(f"homeassistant/device/{config.device_id}/config")
        (discovery,) = await wait_for(ha, f"homeassistant/device/{config.device_id}/config")
        cmps = discovery.json()["cmps"]
        ha.subscribe(cmps["event"]["state_topic"])
        ha.subscribe(cmps["answer"]["state_topic"])
        ha.publish(cmps["prompt"]["command_topic"], "turn the led red")  # typed in HA
        events = await wait_for(ha, f"{base}/event/turn", count=2)
        assert [e.json() for e in events] == [
            {
                "event_type": "tool_call",
                "id": None,
                "session": None,
                "prompt": "turn the led red",
                "tool": "led",
                "arguments": {"color": "red"},
            },
            {
                "event_type": "answer",
                "id": None,
                "session": None,
                "prompt": "turn the led red",
                "text": "echo: turn the led red",
                "tools": ["led"],
            },
        ]
        assert all(not e.retain for e in events)  # HA drops replayed (retained) events
        assert all(e.json()["event_type"] in cmps["event"]["event_types"] for e in events)
        (answer,) = await wait_for(ha, f"{base}/answer")
        assert render(cmps["answer"]["value_template"], answer.json()) == "echo: turn the led red"
        attributes = json.loads(render(cmps["answer"]["json_attributes_template"], answer.json()))
        assert attributes == {
            "text": "echo: turn the led red",
            "error": None,
            "id": None,
            "session": None,
            "prompt": "turn the led red",
            "tool_calls": [LED_CALL],
        }

        ha.publish(fe.topic_ask, {"prompt": "fail", "id": "f"})
        (error,) = await wait_for(ha, f"{base}/event/turn", lambda m: m.json()["id"] == "f")
        assert error.json() == {
            "event_type": "error",
            "id": "f",
            "session": None,
            "prompt": "fail",
            "error": "the model worker crashed",
        }
        failed = await wait_for(ha, f"{base}/answer", count=2)
        assert failed[-1].json()["state"] == "the model worker crashed"

    run_with_frontend(config, body)
    # HA restarts: the answer sensor reads the last answer back, not "unknown".
    (answer,) = retained_messages(broker, f"{base}/answer").values()
    assert answer.json()["state"] == "the model worker crashed"
    assert answer.json()["attributes"]["id"] == "f"


def test_diagnostic_sensors_follow_the_daemon_status(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    config = make_config(broker, homeassistant_discovery=True)
    topic = f"{config.base_topic}/diagnostics"
    watcher = clients()

    async def body(fe: MQTTFrontend) -> None:
        watcher.subscribe(topic)
        (idle,) = await wait_for(watcher, topic)
        assert idle.retain and idle.json() == {
            "llm": "echo: echo-1",
            "backend": "echo",
            "model": "echo-1",
            "activity": "idle",
            "last_turn_s": None,
            "context_used": 250.0,
            "context_window": 1000.0,
            "context_pct": 25.0,
        }
        watcher.publish(fe.topic_ask, "slow one")
        await wait_for(watcher, topic, lambda m: m.json()["activity"] == "busy", timeout=5)
        (done,) = await wait_for(
            watcher, topic, lambda m: m.json()["last_turn_s"] is not None, timeout=5
        )
        assert done.json()["activity"] == "idle" and done.json()["last_turn_s"] >= 1.5

    run_with_frontend(config, body, dispatcher=EchoDispatcher(delay_s=1.5))


def test_a_prompt_typed_while_the_pi_is_down_expires_instead_of_running_late(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    """HA publishes the text entity's value with the discovery config's
    ``message_expiry_interval``; the persistent session holds it while edgeagent is down,
    and the broker drops it once it is older than that."""
    config = make_config(broker, homeassistant_discovery=True)
    ha = HomeAssistantConfig(prompt_expiry_s=1)
    dispatcher = EchoDispatcher()
    home = clients()
    expiry: list[int] = []

    async def first(fe: MQTTFrontend) -> None:
        home.subscribe(f"homeassistant/device/{config.device_id}/config")
        (discovery,) = await wait_for(home, f"homeassistant/device/{config.device_id}/config")
        expiry.append(discovery.json()["cmps"]["prompt"]["message_expiry_interval"])

    run_with_frontend(config, first, homeassistant=ha)  # the session persists after stop
    assert expiry == [1]

    def publish(text: str, expiry_s: int | None) -> None:
        properties = Properties(PacketTypes.PUBLISH)
        if expiry_s is not None:
            properties.MessageExpiryInterval = expiry_s
        info = home.client.publish(f"{config.base_topic}/ask", text, qos=1, properties=properties)
        info.wait_for_publish(5)

    publish("turn on the heater", expiry[0])  # as HA sends it: expires
    publish("kept without expiry", None)
    time.sleep(expiry[0] + 1.5)

    async def second(fe: MQTTFrontend) -> None:
        await asyncio.sleep(1.0)

    run_with_frontend(config, second, dispatcher=dispatcher, homeassistant=ha)
    assert [r.prompt for r in dispatcher.requests] == ["kept without expiry"]


# --- The recorder's 16 KiB -----------------------------------------------------------------


def test_answer_and_event_attributes_stay_under_16_kib() -> None:
    huge = "é\n" * 40_000  # escapes and two-byte characters make JSON larger than the text
    calls = [{"name": "shell", "arguments": {"cmd": "cat"}, "ok": True, "result": huge}] * 40
    state = ha_entities.answer_state(
        echo={"id": 1}, session="s", prompt=huge, text=huge, tool_calls=calls, error=None
    )
    assert len(state["state"]) == 255 and state["state"] == huge[:255]
    size = len(json.dumps(state["attributes"], ensure_ascii=False).encode())
    assert size <= ha_entities.ATTRIBUTES_MAX_BYTES < 16 * 1024
    attributes = state["attributes"]
    assert attributes["truncated"] is True and attributes["id"] == 1
    assert attributes["tool_calls"][0] == {"name": "shell", "ok": True}
    assert attributes["text"].startswith("é\né") and attributes["text"].endswith("…")
    event = ha_entities.turn_event("answer", text=huge, tools=["shell"] * 40)
    assert len(json.dumps(event, ensure_ascii=False).encode()) <= 16 * 1024
    assert event["event_type"] == "answer" and event["tools"] == ["shell"] * 40
    # A short answer is left whole.
    small = ha_entities.answer_state(
        echo={}, session=None, prompt="hi", text="hello", tool_calls=[], error=None
    )
    assert "truncated" not in small["attributes"] and small["attributes"]["text"] == "hello"


def test_the_answer_sensor_over_mqtt_keeps_its_attributes_under_16_kib(
    broker: Broker, clients: Callable[..., TestClient]
) -> None:
    class Verbose(EchoDispatcher):
        async def submit(self, request: Request) -> AsyncGenerator[Event, None]:
            yield FinalAnswer("word " * 10_000, tool_calls=[LED_CALL] * 200, steps=1)

    config = make_config(broker, homeassistant_discovery=True)
    watcher = clients()

    async def body(fe: MQTTFrontend) -> None:
        watcher.subscribe(f"{config.base_topic}/answer")
        watcher.publish(fe.topic_ask, "tell me everything")
        (answer,) = await wait_for(watcher, f"{config.base_topic}/answer")
        attributes = json.loads(render("{{ value_json.attributes | tojson }}", answer.json()))
        assert len(json.dumps(attributes).encode()) < 16 * 1024
        assert attributes["truncated"] is True and len(attributes["tool_calls"]) == 200

    run_with_frontend(config, body, dispatcher=Verbose())


@pytest.mark.parametrize(
    ("buttons", "message"),
    [
        ({"!!!": "x"}, "has no letter or digit"),
        ({"Lights off": "  "}, "empty prompt"),
        ({"Lights off": "a", "lights-off": "b"}, "make the same entity id"),
    ],
)
def test_button_names_that_make_no_usable_entity_id_are_refused(
    buttons: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        HomeAssistantConfig(buttons=buttons)


def test_error_outcome_is_an_error_event() -> None:
    sent: list[Outgoing] = []

    def send(messages: list[Outgoing]) -> list[None]:
        sent.extend(messages)
        return []

    entities = ha_entities.HomeAssistantEntities(
        MQTTConfig(device_id="d", homeassistant_discovery=True),
        HomeAssistantConfig(),
        send=send,
        status=dict,
    )
    entities.answered(ErrorEvent("busy"), echo={"transaction": "t"}, session=None, prompt="p")
    answer, event = sent
    assert (answer.topic, answer.retain, event.topic, event.retain) == (
        "edgeagent/d/answer",
        True,
        "edgeagent/d/event/turn",
        False,
    )
    assert json.loads(event.payload)["transaction"] == "t"
