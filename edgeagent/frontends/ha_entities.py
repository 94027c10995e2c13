"""What Home Assistant's entities read: the answer sensor, the event entity, diagnostics.

:class:`HomeAssistantEntities` turns what happens (a connection, Home Assistant's birth
message, an old per-entity config on the broker, an answer, a tool call, a new daemon
status) into :class:`Outgoing` messages and hands them to the MQTT front end's ``send``.
The discovery config itself is built by :mod:`edgeagent.frontends.homeassistant`.

Attributes stay under Home Assistant's recorder limit of 16 KiB (it drops larger ones
with a warning): tool calls lose their arguments and results first, then the longest
texts are cut, and ``truncated`` says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from collections.abc import Callable, Mapping
from typing import Any

from edgeagent import __version__
from edgeagent.agent.events import ErrorEvent, FinalAnswer, ToolCallEvent
from edgeagent.config import HomeAssistantConfig, MQTTConfig
from edgeagent.frontends import homeassistant
from edgeagent.frontends.mqtt_payload import Outgoing, Topics
from edgeagent.jsontypes import JSONValue

log = logging.getLogger(__name__)

ATTRIBUTES_MAX_BYTES = 15 * 1024
"""Under HA's 16 KiB, which also counts the attributes HA adds (name, icon)."""
ERROR_MAX_CHARS = 200
"""A tool's error as kept in a shortened tool call."""
STRUCTURE_MAX_BYTES = 1024
"""Past this, a structure in the attributes (tool arguments) becomes text that can be cut."""
DIAGNOSTICS_POLL_S = 1.0
"""How often the diagnostic sensors are checked (sent only when they changed), so turns
from every front end show."""


def _size(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8"))


def _call_summary(call: JSONValue) -> JSONValue:
    if not isinstance(call, dict):
        return call
    summary: dict[str, JSONValue] = {"name": call.get("name"), "ok": call.get("ok")}
    error = call.get("error")
    if isinstance(error, str):
        summary["error"] = error[:ERROR_MAX_CHARS]
    return summary


def capped(attributes: Mapping[str, Any], limit: int = ATTRIBUTES_MAX_BYTES) -> dict[str, Any]:
    """``attributes`` cut until their JSON fits in ``limit`` bytes: tool calls keep their
    name, ``ok`` and error; any other large structure becomes JSON text; then the texts share
    what room is left (a short one stays whole, long ones are cut to equal shares)."""
    out: dict[str, Any] = dict(attributes)
    if _size(out) <= limit:
        return out
    out["truncated"] = True
    for key, value in out.items():
        if key == "tool_calls" and isinstance(value, list):
            out[key] = [_call_summary(call) for call in value]
        elif isinstance(value, dict | list) and _size(value) > STRUCTURE_MAX_BYTES:
            out[key] = _json(value)
    for _ in range(8):  # a cut estimates bytes from characters: a few rounds at most
        over = _size(out) - limit
        if over <= 0:
            return out
        texts = sorted((k for k, v in out.items() if isinstance(v, str) and v), key=_sizer(out))
        room = sum(_size(out[k]) for k in texts) - over - 8 * len(texts)
        for done, key in enumerate(texts):
            share, size = room // (len(texts) - done), _size(out[key])
            if size > share:
                out[key] = _cut(out[key], share, size)
            room -= _size(out[key])
    return {"truncated": True}


def _sizer(out: Mapping[str, Any]) -> Callable[[str], int]:
    return lambda key: _size(out[key])


def _cut(text: str, share: int, size: int) -> str:
    """``text`` cut to about ``share`` of its ``size`` bytes, marked with an ellipsis."""
    chars = min(len(text) - 1, len(text) * share // size - 1)
    return text[:chars] + "…" if chars > 0 else ""


def answer_state(
    *,
    echo: Mapping[str, str | int],
    session: str | None,
    prompt: str | None,
    text: str | None,
    tool_calls: list[dict[str, Any]],
    error: str | None,
) -> dict[str, Any]:
    """The retained payload of the answer sensor: its state and attributes."""
    state = text if text is not None else error or ""
    attributes = {
        "text": text,
        "error": error,
        "id": echo.get("id"),
        **echo,
        "session": session,
        "prompt": prompt,
        "tool_calls": tool_calls,
    }
    return {"state": state[: homeassistant.STATE_MAX_CHARS], "attributes": capped(attributes)}


def turn_event(event_type: str, **fields: Any) -> dict[str, Any]:
    """A payload for the event entity: ``event_type`` and its attributes, capped."""
    return {"event_type": event_type, **capped(fields)}


def _number(value: JSONValue) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def diagnostics(status: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    """The diagnostic sensors' retained payload, from the daemon's status."""
    backend, model = status.get("backend"), status.get("model")
    context = status.get("context")
    window = used = None
    if isinstance(context, dict):
        window, used = _number(context.get("window")), _number(context.get("used"))
    busy = _number(status.get("in_flight")) or _number(status.get("queue_depth"))
    return {
        "llm": ": ".join(str(part) for part in (backend, model) if part) or None,
        "backend": backend,
        "model": model,
        "activity": "busy" if busy else "idle",
        "last_turn_s": status.get("last_turn_s"),
        "context_used": used,
        "context_window": window,
        "context_pct": round(100 * used / window, 1) if used is not None and window else None,
    }


def info(
    config: MQTTConfig, status: Mapping[str, JSONValue], tools: list[dict[str, Any]]
) -> dict[str, JSONValue]:
    """The retained ``<base>/info``: what this device is and runs."""
    context = status.get("context")
    return {
        "device_id": config.device_id,
        "version": __version__,
        "backend": status.get("backend"),
        "model": status.get("model"),
        "context_window": context.get("window") if isinstance(context, dict) else None,
        "tools": [str(t.get("name")) for t in tools],
    }


def _json(payload: object) -> str:
    return json.dumps(payload, ensure_ascii=False, default=str)


class HomeAssistantEntities:
    """The Home Assistant side of one MQTT front end, on the front end's event loop.

    ``send`` publishes messages (QoS 1) and returns what the front end waits on to know
    the broker has them; ``status`` is the daemon's status.
    """

    def __init__(
        self,
        config: MQTTConfig,
        ha: HomeAssistantConfig,
        *,
        send: Callable[[list[Outgoing]], list[Any]],
        status: Callable[[], Mapping[str, JSONValue]],
        device_model: str = "edgeagent",
        configuration_url: str | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.config, self.ha = config, ha
        self.enabled = config.homeassistant_discovery
        self.topics = Topics.under(config)
        self.legacy = homeassistant.legacy_topics(config) if self.enabled else []
        """The per-entity config topics of earlier releases, followed to migrate them."""
        self._send, self._status = send, status
        self._device = {"model": device_model, "configuration_url": configuration_url}
        self._rng = rng or random.Random()
        self._removed = False
        self._diagnostics: str | None = None
        self._poller: asyncio.Task[None] | None = None
        self._announcing: asyncio.TimerHandle | None = None

    def subscriptions(self) -> list[str]:
        """HA's birth topic, with discovery on."""
        return [self.config.homeassistant_status_topic] if self.enabled else []

    def connected(self) -> list[Any]:
        """On every connect: the device config and the diagnostics (the broker may have
        lost them); with discovery off, what an earlier run announced is removed, once."""
        if not self.enabled:
            if self._removed:
                return []
            self._removed = True
            return self._send(homeassistant.removal_messages(self.config))
        if self._poller is None:
            self._poller = asyncio.get_running_loop().create_task(self._poll())
        self._diagnostics = None
        return self._send([self._announcement(), *self._changed_diagnostics()])

    def received(self, topic: str, payload: bytes, *, retain: bool) -> bool:
        """Handle a message on one of HA's topics (True), or say it is not one (False)."""
        if topic in self.subscriptions():
            if payload == b"online":
                self._birth()
            return True
        if topic not in self.legacy:
            return False
        if retain and homeassistant.is_legacy_config(payload):
            log.info("Moving %s over to device-based discovery", topic)
            self._send(homeassistant.migration_messages(topic, self._announcement()))
        return True

    async def close(self) -> None:
        if self._announcing is not None:
            self._announcing.cancel()
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller

    def answered(
        self,
        outcome: FinalAnswer | ErrorEvent,
        *,
        echo: Mapping[str, str | int],
        session: str | None,
        prompt: str | None,
    ) -> None:
        """A turn ended (or a prompt was refused): the retained answer and one event."""
        if not self.enabled:
            return
        tags = {"id": echo.get("id"), **echo, "session": session, "prompt": prompt}
        if isinstance(outcome, ErrorEvent):
            text, calls, error = None, [], outcome.message
            event = turn_event("error", **tags, error=error)
        else:
            text, calls, error = outcome.text, outcome.tool_calls, None
            tools = [str(call.get("name")) for call in calls]
            event = turn_event("answer", **tags, text=text, tools=tools)
        state = answer_state(
            echo=echo, session=session, prompt=prompt, text=text, tool_calls=calls, error=error
        )
        self._send(
            [
                Outgoing(self.topics.answer, _json(state), retain=True),
                Outgoing(self.topics.events, _json(event)),
            ]
        )

    def tool_called(self, call: ToolCallEvent, *, tags: Mapping[str, Any], prompt: str) -> None:
        if self.enabled:
            fields = {**tags, "prompt": prompt, "tool": call.name, "arguments": call.arguments}
            self._send([Outgoing(self.topics.events, _json(turn_event("tool_call", **fields)))])

    def _announcement(self) -> Outgoing:
        return homeassistant.discovery_message(self.config, self.ha, **self._device)

    def _birth(self) -> None:
        """HA came online: announce again after a random delay (HA's advice, so that many
        devices do not answer its birth at the same moment)."""
        if self._announcing is not None:
            return  # one announcement answers births that come close together
        delay = self._rng.uniform(0.0, self.ha.announce_delay_max_s)
        log.info("Home Assistant came online; announcing the device again in %.1f s", delay)
        self._announcing = asyncio.get_running_loop().call_later(delay, self._announce)

    def _announce(self) -> None:
        self._announcing = None
        self._send([self._announcement()])

    def _changed_diagnostics(self) -> list[Outgoing]:
        payload = _json(diagnostics(self._status()))
        if payload == self._diagnostics:
            return []
        self._diagnostics = payload
        return [Outgoing(self.topics.diagnostics, payload, retain=True)]

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(DIAGNOSTICS_POLL_S)
            try:
                self._send(self._changed_diagnostics())
            except Exception:
                log.exception("Could not update Home Assistant's diagnostic sensors")
