"""Home Assistant MQTT discovery: the retained configs that make the device appear.

Pure functions: they build ``(topic, payload)`` pairs and the MQTT front end publishes
them retained. One config per component, under
``<prefix>/<component>/<node_id>/<object_id>/config``:

* a ``text`` entity whose command topic is the ``ask`` topic (type a prompt in HA);
* a ``sensor`` whose state is the last answer on ``reply``, capped at HA's 255
  characters, with the full text and the tool calls as attributes.

The sensor follows ``reply``, so it shows answers to prompts from HA's text entity and
to any prompt sent without an MQTT v5 response topic. Both share one ``device`` block
and are available while the status topic says ``online``. An empty retained payload on
the same topics removes them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from edgeagent import __version__
from edgeagent.config import MQTTConfig

STATE_MAX_CHARS = 255
"""Home Assistant rejects sensor states longer than this."""

# Jinja templates evaluated by Home Assistant on each `reply` payload. An error reply
# has no text, so the state falls back to the error message.
_STATE_TEMPLATE = "{{ (value_json.text or value_json.error or '')[:" + str(STATE_MAX_CHARS) + "] }}"
_ATTRIBUTES_TEMPLATE = (
    "{{ {'text': value_json.text, 'error': value_json.error, 'id': value_json.id,"
    " 'session': value_json.session, 'tool_calls': value_json.tool_calls} | tojson }}"
)


def node_id(config: MQTTConfig) -> str:
    """The device id reduced to what HA allows in a discovery topic segment."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", config.device_id) or "edgeagent"


def status_topic(config: MQTTConfig) -> str:
    """Where Home Assistant announces ``online`` after it (re)starts."""
    return f"{config.homeassistant_prefix}/status"


def config_topic(config: MQTTConfig, component: str, object_id: str) -> str:
    return f"{config.homeassistant_prefix}/{component}/{node_id(config)}/{object_id}/config"


def device_block(config: MQTTConfig, *, model: str = "edgeagent") -> dict[str, Any]:
    return {
        "identifiers": [f"edgeagent_{node_id(config)}"],
        "name": f"edgeagent {config.device_id}",
        "manufacturer": "edgeagent",
        "model": model,
        "sw_version": __version__,
    }


def _availability(config: MQTTConfig) -> list[dict[str, str]]:
    return [
        {
            "topic": f"{config.topic_base}/status",
            "payload_available": "online",
            "payload_not_available": "offline",
        }
    ]


def discovery_configs(config: MQTTConfig, *, model: str = "edgeagent") -> dict[str, dict[str, Any]]:
    """Discovery topic -> config object, for every entity the device declares."""
    base = config.topic_base
    node = node_id(config)
    common = {
        "device": device_block(config, model=model),
        "availability": _availability(config),
        "qos": 1,
    }
    prompt = {
        **common,
        "name": "Prompt",
        "unique_id": f"edgeagent_{node}_prompt",
        "object_id": f"edgeagent_{node}_prompt",
        "icon": "mdi:robot",
        "command_topic": f"{base}/ask",
        "mode": "text",
        "max": STATE_MAX_CHARS,
        "retain": False,
    }
    answer = {
        **common,
        "name": "Answer",
        "unique_id": f"edgeagent_{node}_answer",
        "object_id": f"edgeagent_{node}_answer",
        "icon": "mdi:message-reply-text",
        "state_topic": f"{base}/reply",
        "value_template": _STATE_TEMPLATE,
        "json_attributes_topic": f"{base}/reply",
        "json_attributes_template": _ATTRIBUTES_TEMPLATE,
    }
    return {
        config_topic(config, "text", "prompt"): prompt,
        config_topic(config, "sensor", "answer"): answer,
    }


def discovery_messages(config: MQTTConfig, *, model: str = "edgeagent") -> list[tuple[str, str]]:
    """``(topic, payload)`` pairs to publish retained so the device appears in HA."""
    return [
        (topic, json.dumps(payload, separators=(",", ":")))
        for topic, payload in discovery_configs(config, model=model).items()
    ]


def removal_messages(config: MQTTConfig) -> list[tuple[str, str]]:
    """Empty retained payloads on every discovery topic: HA deletes the entities."""
    return [(topic, "") for topic in discovery_configs(config)]
