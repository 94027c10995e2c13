"""Home Assistant MQTT discovery: the device, its entities, and the move to device discovery.

Pure functions: they build the retained messages the MQTT front end publishes. What the
entities' own topics carry is :mod:`edgeagent.frontends.ha_entities`.

Device-based discovery, as HA documents it: one retained
``<prefix>/device/<node_id>/config`` with the device (``dev``), the origin (``o``,
required there), an availability every entity shares (``<base>/status``) and a ``cmps``
map, one entry per entity with its platform (``p``), its ``unique_id`` and a
``default_entity_id``: the full entity id HA gives it when it first sees the unique id
(``object_id``, which did that before, is ignored since HA 2026.4). The entities, by
component key:

* ``prompt``, a ``text``: what is typed there is published to ``<base>/ask``;
* ``answer``, a ``sensor``: the last answer, from the retained ``<base>/answer``;
* ``event``, an ``event``: ``answer``, ``tool_call`` and ``error``, from
  ``<base>/event/turn``;
* ``model``, ``activity``, ``latency``, ``context``: diagnostic sensors, from the
  retained ``<base>/diagnostics``;
* ``button_<name>``, a ``button`` per ``[homeassistant] buttons`` entry: a press
  publishes its prompt to ``<base>/ask``.

The prompt entity and the buttons ask HA to publish with a message expiry
(``[homeassistant] prompt_expiry_s``), so a prompt typed while the Pi is down is
dropped by the broker instead of running hours later.

Releases before this one sent one config per entity, on
``<prefix>/text/<node_id>/prompt/config`` and ``<prefix>/sensor/<node_id>/answer/config``.
HA's discovery id is ``<node_id> <object_id>`` there and ``<node_id> <component key>``
here, and the unique ids are the same, so :func:`migration_messages` moves them over
without losing entity ids or settings, the way HA documents it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from edgeagent import __version__
from edgeagent.config import HomeAssistantConfig, MQTTConfig
from edgeagent.frontends.mqtt_payload import Outgoing, Topics

STATE_MAX_CHARS = 255
"""Home Assistant rejects longer states (and text entity values)."""
MIGRATE = json.dumps({"migrate_discovery": True})
"""Published on a per-entity config topic: HA unloads the entity and keeps its settings
for the device config that follows."""
LEGACY_ENTITIES = (("text", "prompt"), ("sensor", "answer"))
"""``(platform, object_id)`` of the per-entity configs earlier releases published."""


def node_id(config: MQTTConfig) -> str:
    """The device id reduced to what HA allows in a discovery topic level."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", config.device_id) or "edgeagent"


def entity_slug(text: str) -> str:
    """``text`` as HA writes the object part of an entity id: lower case, ``a-z0-9_``."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def button_ids(buttons: Mapping[str, str]) -> dict[str, str]:
    """Component key (``button_<slug>``) -> name, for ``[homeassistant] buttons``.

    Raises :class:`ValueError` (config validation shows it) for a name without a letter
    or digit, an empty prompt, or two names that make the same entity id.
    """
    ids: dict[str, str] = {}
    for name, prompt in buttons.items():
        slug = entity_slug(name)
        if not slug:
            raise ValueError(
                f"button name {name!r} has no letter or digit; name it, e.g. 'Lights off'"
            )
        if not prompt.strip():
            raise ValueError(f"button {name!r} has an empty prompt; write what it asks")
        key = f"button_{slug}"
        if key in ids:
            raise ValueError(
                f"buttons {ids[key]!r} and {name!r} make the same entity id "
                f"(both end in _{slug}); rename one"
            )
        ids[key] = name
    return ids


def device_topic(config: MQTTConfig) -> str:
    return f"{config.homeassistant_prefix}/device/{node_id(config)}/config"


def legacy_topics(config: MQTTConfig) -> list[str]:
    """The per-entity config topics of earlier releases."""
    prefix, node = config.homeassistant_prefix, node_id(config)
    return [f"{prefix}/{platform}/{node}/{key}/config" for platform, key in LEGACY_ENTITIES]


def device_block(
    config: MQTTConfig, *, model: str = "edgeagent", configuration_url: str | None = None
) -> dict[str, Any]:
    block: dict[str, Any] = {
        "ids": [f"edgeagent_{node_id(config)}"],
        "name": f"edgeagent {config.device_id}",
        "mf": "edgeagent",
        "mdl": model,
        "sw": __version__,
        "sn": config.device_id,
    }
    if configuration_url is not None:
        block["cu"] = configuration_url
    return block


def origin_block() -> dict[str, str]:
    return {"name": "edgeagent", "sw": __version__}


def _entity(
    config: MQTTConfig, platform: str, key: str, name: str, *, slug: str | None = None
) -> dict[str, Any]:
    """What every component has: platform, name, unique id and default entity id.

    The entity ids are the ones earlier releases' ``object_id`` made
    (``text.edgeagent_kitchen_prompt``), so a fresh install and a migrated one agree.
    """
    node = node_id(config)
    return {
        "p": platform,
        "name": name,
        "unique_id": f"edgeagent_{node}_{key}",
        "default_entity_id": f"{platform}.{entity_slug(f'edgeagent_{node}_{slug or key}')}",
    }


DIAGNOSTICS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "model": ("Model", "llm", {"icon": "mdi:brain"}),
    "activity": ("Activity", "activity", {"device_class": "enum", "options": ["idle", "busy"]}),
    "latency": (
        "Last turn",
        "last_turn_s",
        {"device_class": "duration", "unit_of_measurement": "s", "state_class": "measurement"},
    ),
    "context": (
        "Context use",
        "context_pct",
        {"icon": "mdi:gauge", "unit_of_measurement": "%", "state_class": "measurement"},
    ),
}
"""The diagnostic sensors: component key -> name, field of ``<base>/diagnostics``, options."""


def components(config: MQTTConfig, ha: HomeAssistantConfig) -> dict[str, dict[str, Any]]:
    """The ``cmps`` map: component key -> that entity's config."""
    topics = Topics.under(config)
    asking = {"command_topic": topics.ask, "retain": False, "qos": 1}
    expiry = {"message_expiry_interval": ha.prompt_expiry_s}
    cmps: dict[str, dict[str, Any]] = {
        "prompt": {
            **_entity(config, "text", "prompt", "Prompt"),
            **asking,
            **expiry,
            "icon": "mdi:robot",
            "mode": "text",
            "max": STATE_MAX_CHARS,
        },
        "answer": {
            **_entity(config, "sensor", "answer", "Answer"),
            "icon": "mdi:message-reply-text",
            "state_topic": topics.answer,
            "value_template": "{{ value_json.state }}",
            "json_attributes_topic": topics.answer,
            "json_attributes_template": "{{ value_json.attributes | tojson }}",
        },
        "event": {
            **_entity(config, "event", "event", "Event"),
            "icon": "mdi:robot-outline",
            "state_topic": topics.events,
            "event_types": ["answer", "tool_call", "error"],
        },
    }
    for key, (name, field, options) in DIAGNOSTICS.items():
        cmps[key] = {
            **_entity(config, "sensor", key, name),
            "state_topic": topics.diagnostics,
            "value_template": "{{ value_json." + field + " }}",
            "entity_category": "diagnostic",
            **options,
        }
    for key, name in button_ids(ha.buttons).items():
        cmps[key] = {
            **_entity(config, "button", key, name, slug=entity_slug(name)),
            **asking,
            **expiry,
            "payload_press": ha.buttons[name],
        }
    return cmps


def device_config(
    config: MQTTConfig,
    ha: HomeAssistantConfig,
    *,
    model: str = "edgeagent",
    configuration_url: str | None = None,
) -> dict[str, Any]:
    """The device-based discovery payload."""
    return {
        "dev": device_block(config, model=model, configuration_url=configuration_url),
        "o": origin_block(),
        "avty": [
            {
                "topic": Topics.under(config).status,
                "payload_available": "online",
                "payload_not_available": "offline",
            }
        ],
        "qos": 1,
        "cmps": components(config, ha),
    }


def discovery_message(config: MQTTConfig, ha: HomeAssistantConfig, **device: Any) -> Outgoing:
    """The retained device config that makes the device and its entities appear."""
    payload = json.dumps(device_config(config, ha, **device), separators=(",", ":"))
    return Outgoing(device_topic(config), payload, retain=True)


def migration_messages(legacy_topic: str, announce: Outgoing) -> list[Outgoing]:
    """Move one per-entity config that a broker still holds over to the device config:
    ``migrate_discovery`` on the old topic, the device config, then the old topic
    emptied, in HA's documented order."""
    return [
        Outgoing(legacy_topic, MIGRATE, retain=True),
        announce,
        Outgoing(legacy_topic, "", retain=True),
    ]


def is_legacy_config(payload: bytes) -> bool:
    """A per-entity config of an earlier release (not empty, not a migration marker)."""
    try:
        data = json.loads(payload)
    except ValueError:
        return False
    return isinstance(data, dict) and "migrate_discovery" not in data and bool(data)


def removal_messages(config: MQTTConfig) -> list[Outgoing]:
    """Empty retained payloads: HA deletes the device and its entities, and the retained
    states they read are gone from the broker too."""
    topics = Topics.under(config)
    return [
        Outgoing(topic, "", retain=True)
        for topic in (
            device_topic(config),
            *legacy_topics(config),
            topics.answer,
            topics.diagnostics,
        )
    ]
