"""The MQTT front end: prompts in on ``<base>/ask``, answers out on ``<base>/reply``.

paho-mqtt runs its own network thread (``loop_start``); every callback only copies what
it needs and hands it to the asyncio loop with ``call_soon_threadsafe``, so the paho
thread never waits on the agent. Each prompt becomes one asyncio task that submits a
:class:`Request` to the dispatcher and publishes the events it streams back.

Topics under ``config.base_topic`` (``edgeagent/<device_id>``):

``ask``         prompts: plain text, or JSON ``{"prompt", "session", "id"|"transaction", "stream"}``
``reply``       every answer: ``{"id", "session", "text", "tool_calls", "error"}`` inside
                zigbee2mqtt's ``{"status", "data", "transaction"}`` envelope; an MQTT v5
                request's answer goes to its response topic too, when
                :func:`~edgeagent.frontends.mqtt_payload.check_response_topic` allows it
``stream``      partial text, when the prompt asked for ``"stream": true``
``event/tool``  every tool call and result
``status``      retained ``online``/``offline``; the last will is a retained ``offline``
``tools``       retained JSON list of the loaded tools
``info``        retained: version, backend, model, context size, tool names

With ``[mqtt] homeassistant_discovery``, Home Assistant's entities and their topics
(``answer``, ``event/turn``, ``diagnostics``) are kept by
:class:`~edgeagent.frontends.ha_entities.HomeAssistantEntities`.

Nothing is lost across restarts: QoS 1, a stable client id and a persistent session
(v5 ``clean_start=False`` + session expiry, v3.1.1 ``clean_session=False``), and
prompts are acknowledged only once accepted, so one that arrives while the front end is
stopping stays with the broker and is delivered on the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import logging
import random
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from edgeagent.agent.events import (
    ErrorEvent,
    Event,
    FinalAnswer,
    TextChunk,
    ToolCallEvent,
    ToolResultEvent,
    event_to_dict,
)
from edgeagent.config import HomeAssistantConfig, MQTTConfig
from edgeagent.errors import ProtocolError
from edgeagent.frontends import ha_entities
from edgeagent.frontends.base import Dispatcher
from edgeagent.frontends.ha_entities import HomeAssistantEntities
from edgeagent.frontends.mqtt_client import connect_properties, make_client, wait_published
from edgeagent.frontends.mqtt_payload import (
    Outgoing,
    Prompt,
    Rejected,
    Topics,
    check_response_topic,
    parse_prompt,
    payload_too_large,
    reply_payload,
    reserved_topics,
)
from edgeagent.jsontypes import JSONValue

log = logging.getLogger(__name__)


# --- The front end ----------------------------------------------------------------------


@dataclass(frozen=True)
class Inbound:
    """What the paho thread copies out of one received message."""

    topic: str
    payload: bytes
    """Empty when ``size`` is over the limit: an oversized payload is never kept."""
    size: int
    retain: bool
    response_topic: str | None
    correlation: bytes | None


class MQTTFrontend:
    """Serves prompts from an MQTT broker. ``await start()``, later ``await stop()``."""

    name = "mqtt"

    def __init__(
        self,
        config: MQTTConfig,
        *,
        dispatcher: Dispatcher,
        tools: Callable[[], list[dict[str, Any]]] | None = None,
        homeassistant: HomeAssistantConfig | None = None,
        device_model: str = "edgeagent",
        dashboard_url: str | None = None,
        rng: random.Random | None = None,
        connect_wait_s: float = 5.0,
        reconnect_min_s: float = 1.0,
        reconnect_max_s: float = 60.0,
    ) -> None:
        self.config = config
        self._dispatcher = dispatcher
        self._tools = tools if tools is not None else dispatcher.tools
        self._ha = HomeAssistantEntities(
            config,
            homeassistant or HomeAssistantConfig(),
            send=self._send,
            status=dispatcher.status,
            device_model=device_model,
            configuration_url=dashboard_url,
            rng=rng,
        )
        self._connect_wait_s = connect_wait_s
        self._reconnect = (reconnect_min_s, reconnect_max_s)
        self.topics = t = Topics.under(config)
        self.topic_ask, self.topic_reply, self.topic_stream = t.ask, t.reply, t.stream
        self.topic_tool, self.topic_status, self.topic_tools = t.tool, t.status, t.tools
        self.client_id = f"edgeagent-{config.device_id}"
        self._v5 = config.protocol == "5"
        self._client: mqtt.Client | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing = threading.Event()  # read by the paho thread
        self._stopped = False
        self._sub_mid: int | None = None
        self._ready_task: asyncio.Task[None] | None = None
        # (mid, size, digest) of recent prompts; paho thread only.
        self._recent: deque[tuple[int, int, bytes]] = deque(maxlen=64)
        self._state = "stopped"
        self._connected = False
        self.received = 0
        self.rejected = 0

    # -- status ---------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def state(self) -> str:
        """``stopped``, ``connecting``, ``connected``, ``reconnecting`` or ``refused: ...``."""
        return self._state

    @property
    def degraded(self) -> None:
        """Never: a broker that is down is retried in the background, and ``status``
        says so (``state``, ``connected``)."""
        return None

    def status(self) -> dict[str, JSONValue]:
        return {
            "state": self._state,
            "connected": self._connected,
            "broker": f"{self.config.host}:{self.config.port}",
            "client_id": self.client_id,
            "received": self.received,
            "rejected": self.rejected,
            "in_flight": len(self._tasks),
        }

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect in the background; wait up to ``connect_wait_s`` for the subscriptions."""
        if self._client is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._ready = asyncio.Event()
        self._client = client = self._make_client()
        self._state = "connecting"
        client.connect_async(
            self.config.host,
            self.config.port,
            keepalive=self.config.keepalive_s,
            clean_start=False if self._v5 else mqtt.MQTT_CLEAN_START_FIRST_ONLY,
            properties=connect_properties(self.config),
        )
        client.loop_start()
        if self._connect_wait_s > 0:
            try:
                await asyncio.wait_for(self._ready.wait(), self._connect_wait_s)
            except TimeoutError:
                log.warning(
                    "MQTT broker %s:%d not reached within %.1f s; still retrying in the "
                    "background (check [mqtt] host/port and that the broker runs)",
                    self.config.host,
                    self.config.port,
                    self._connect_wait_s,
                )

    def stop_accepting(self) -> None:
        """Leave new prompts unacknowledged with the broker (delivered after a restart)."""
        self._closing.set()

    async def stop(self, *, grace_s: float = 0.0) -> None:
        """Stop taking prompts, let running ones finish for ``grace_s``, cancel the rest,
        publish the retained ``offline`` and disconnect. Safe to call twice."""
        client = self._client
        if client is None or self._stopped:
            return
        self._stopped = True
        self._closing.set()
        pending = set(self._tasks)
        if pending and grace_s > 0:
            _, pending = await asyncio.wait(pending, timeout=grace_s)
        if self._ready_task is not None:
            pending.add(self._ready_task)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await self._ha.close()
        try:
            if self._connected:
                info = client.publish(self.topic_status, "offline", qos=1, retain=True)
                await asyncio.to_thread(wait_published, [info], 5.0)
        finally:
            client.disconnect()
            await asyncio.to_thread(client.loop_stop)
            self._connected = False
            self._state = "stopped"

    def _make_client(self) -> mqtt.Client:
        client = make_client(
            self.config,
            client_id=self.client_id,
            will_topic=self.topic_status,
            reconnect_s=self._reconnect,
        )
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        return client

    # -- paho thread: copy, then hand over to the loop ------------------------------------

    def _call(self, fn: Callable[..., None], *args: Any) -> None:
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed during shutdown
            loop.call_soon_threadsafe(fn, *args)

    def _on_connect(
        self, client: mqtt.Client, _userdata: Any, flags: Any, reason: ReasonCode, _props: Any
    ) -> None:
        if reason.is_failure:
            log.error(
                "MQTT broker %s:%d refused the connection: %s (check [mqtt] username/password/tls)",
                self.config.host,
                self.config.port,
                reason,
            )
            self._call(self._set_state, f"refused: {reason}", False)
            return
        # Subscribe on every connect: a broker that lost its state must learn them again.
        if self._ha.legacy:
            # Its own SUBSCRIBE first: the broker sends the retained per-entity configs of
            # earlier releases before it acknowledges the next one, so they are migrated
            # before the device config is announced.
            client.subscribe([(topic, 1) for topic in self._ha.legacy])
        topics = [(self.topic_ask, 1)] + [(t, 1) for t in self._ha.subscriptions()]
        if self.config.shared_group:
            topics.append((f"$share/{self.config.shared_group}/{self.topics.fleet}", 1))
        _, self._sub_mid = client.subscribe(topics)
        log.info(
            "MQTT connected to %s:%d as %s (session present: %s)",
            self.config.host,
            self.config.port,
            self.client_id,
            getattr(flags, "session_present", None),
        )
        self._call(self._set_state, "connected", True)

    def _on_connect_fail(self, _client: mqtt.Client, _userdata: Any) -> None:
        log.debug("MQTT connection to %s:%d failed; retrying", self.config.host, self.config.port)

    def _on_disconnect(
        self, _c: mqtt.Client, _u: Any, _flags: Any, reason: ReasonCode, _props: Any
    ) -> None:
        if self._stopped:
            self._call(self._set_state, "stopped", False)
            return
        log.warning("MQTT connection lost (%s); reconnecting with backoff", reason)
        self._call(self._set_state, "reconnecting", False)

    def _on_subscribe(
        self, _c: mqtt.Client, _u: Any, mid: int, reasons: list[ReasonCode], _props: Any
    ) -> None:
        if mid != self._sub_mid:
            return
        refused = [str(r) for r in reasons if r.is_failure]
        if refused:
            log.error("MQTT broker refused subscriptions: %s (check its ACLs)", refused)
        self._call(self._on_subscribed)

    def _on_message(self, client: mqtt.Client, _userdata: Any, msg: mqtt.MQTTMessage) -> None:
        if self._closing.is_set():
            return  # not acknowledged: the broker keeps it for the next start
        # The size first: an oversized payload is neither copied nor remembered.
        size = len(msg.payload)
        payload = bytes(msg.payload) if size <= self.config.max_payload_bytes else b""
        # A redelivery (DUP) of a prompt already taken before a reconnect is answered once.
        seen = (msg.mid, size, hashlib.blake2b(payload, digest_size=16).digest())
        duplicate = msg.dup and seen in self._recent
        if msg.qos > 0:
            self._recent.append(seen)
            client.ack(msg.mid, msg.qos)
        if duplicate:
            log.info("MQTT: ignoring a redelivered duplicate on %s", msg.topic)
            return
        props = getattr(msg, "properties", None)
        correlation = getattr(props, "CorrelationData", None)
        inbound = Inbound(
            topic=msg.topic,
            payload=payload,
            size=size,
            retain=bool(msg.retain),
            response_topic=getattr(props, "ResponseTopic", None),
            correlation=bytes(correlation) if correlation is not None else None,
        )
        self._call(self._handle, inbound)

    # -- asyncio loop ---------------------------------------------------------------------

    def _set_state(self, state: str, connected: bool) -> None:
        if self._stopped and state != "stopped":
            return
        if state == "reconnecting" and self._state.startswith("refused"):
            return  # the broker hangs up after a refusal; the reason is the useful part
        self._state, self._connected = state, connected

    def _on_subscribed(self) -> None:
        """Subscribed: now say ``online``, so a client that waits for it loses nothing."""
        sent = [self._publish(self.topic_status, "online", qos=1, retain=True)]
        try:
            tools = self._tools()
        except Exception:
            log.exception("Could not list the tools for %s", self.topic_tools)
            tools = []
        sent.append(self._publish(self.topic_tools, tools, qos=1, retain=True))
        info = ha_entities.info(self.config, self._dispatcher.status(), tools)
        sent.append(self._publish(self.topics.info, info, qos=1, retain=True))
        sent += self._ha.connected()
        if self._ready is not None and not self._ready.is_set() and self._ready_task is None:
            # start() returns once the broker holds the retained status, tools and configs.
            self._ready_task = asyncio.get_running_loop().create_task(self._confirm_ready(sent))

    async def _confirm_ready(self, sent: list[mqtt.MQTTMessageInfo | None]) -> None:
        await asyncio.to_thread(wait_published, [i for i in sent if i is not None], 5.0)
        if self._ready is not None:
            self._ready.set()

    def _send(self, messages: list[Outgoing]) -> list[mqtt.MQTTMessageInfo | None]:
        return [self._publish(m.topic, m.payload, qos=1, retain=m.retain) for m in messages]

    def _handle(self, inbound: Inbound) -> None:
        if self._ha.received(inbound.topic, inbound.payload, retain=inbound.retain):
            return
        fleet = inbound.topic == self.topics.fleet and self.config.shared_group is not None
        if inbound.topic != self.topic_ask and not fleet:
            return  # e.g. a fleet subscription left in the session after shared_group was unset
        if inbound.retain:
            log.warning(
                "MQTT: ignoring a retained prompt on %s (it would run on every "
                "restart); publish prompts without the retain flag",
                inbound.topic,
            )
            return
        self.received += 1
        limit = self.config.max_payload_bytes
        parsed = (
            payload_too_large(inbound.size, max_bytes=limit)
            if inbound.size > limit
            else parse_prompt(inbound.payload, max_bytes=limit)
        )
        if inbound.response_topic:
            try:
                self._check_response_topic(inbound.response_topic)
            except ProtocolError as exc:
                # Nothing runs and nothing goes to the named topic: the error is told on
                # the daemon's own reply topic, with the asker's id and correlation data.
                inbound = dataclasses.replace(inbound, response_topic=None)
                session = parsed.session if isinstance(parsed, Rejected) else parsed.request.session
                parsed = Rejected(str(exc), echo=parsed.echo, session=session)
        if isinstance(parsed, Rejected):
            self.rejected += 1
            log.warning("MQTT: rejected a prompt on %s: %s", inbound.topic, parsed.error)
            self._reply(inbound, parsed, ErrorEvent(parsed.error))
            return
        task = asyncio.get_running_loop().create_task(self._serve(parsed, inbound))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _check_response_topic(self, topic: str) -> None:
        cfg = self.config
        check_response_topic(
            topic, reserved=reserved_topics(cfg), allowed_prefixes=cfg.response_topic_prefixes
        )

    async def _serve(self, prompt: Prompt, inbound: Inbound) -> None:
        request = prompt.request
        session = request.session
        tags = {"id": prompt.echo.get("id"), **prompt.echo, "session": session}
        answered = False
        try:
            events = self._dispatcher.submit(request)
            try:
                async for event in events:
                    answered = self._emit(event, prompt, inbound, tags) or answered
            finally:
                aclose = getattr(events, "aclose", None)
                if aclose is not None:
                    await aclose()
            if not answered:
                self._reply(inbound, prompt, ErrorEvent("the request ended without an answer"))
        except asyncio.CancelledError:
            why = "cancelled: edgeagent is shutting down; send the prompt again"
            self._reply(inbound, prompt, ErrorEvent(why))
            raise
        except Exception as exc:
            log.exception("MQTT request %s failed", request.id)
            self._reply(inbound, prompt, ErrorEvent(f"internal error: {exc}"))

    def _emit(self, event: Event, prompt: Prompt, inbound: Inbound, tags: dict[str, Any]) -> bool:
        """Publish one event; True when it was the final answer or error."""
        if isinstance(event, TextChunk):
            if prompt.request.stream:
                self._publish(
                    self.topic_stream,
                    {**tags, "text": event.text},
                    qos=0,
                    correlation=inbound.correlation,
                )
            return False
        if isinstance(event, ToolCallEvent | ToolResultEvent):
            self._publish(self.topic_tool, {**tags, **event_to_dict(event)}, qos=1)
            if isinstance(event, ToolCallEvent):
                self._ha.tool_called(event, tags=tags, prompt=prompt.request.prompt)
            return False
        self._reply(inbound, prompt, event)
        return True

    def _reply(
        self, inbound: Inbound, asker: Prompt | Rejected, outcome: FinalAnswer | ErrorEvent
    ) -> None:
        """The answer, to the v5 response topic (if any) and to ``reply``, which Home
        Assistant and every other listener follow; then Home Assistant's entities."""
        if isinstance(asker, Prompt):
            session, prompt = asker.request.session, asker.request.prompt
        else:
            session, prompt = asker.session, None
        payload = reply_payload(asker.echo, session, outcome)
        for topic in filter(None, (inbound.response_topic, self.topic_reply)):
            self._publish(topic, payload, qos=1, correlation=inbound.correlation)
        self._ha.answered(outcome, echo=asker.echo, session=session, prompt=prompt)

    def _publish(
        self,
        topic: str,
        payload: Any,
        *,
        qos: int,
        retain: bool = False,
        correlation: bytes | None = None,
    ) -> mqtt.MQTTMessageInfo | None:
        client = self._client
        if client is None:
            return None
        data = payload if isinstance(payload, str) else json.dumps(payload, default=str)
        properties = None
        if self._v5 and correlation is not None:
            properties = Properties(PacketTypes.PUBLISH)
            properties.CorrelationData = correlation
        # While disconnected paho queues QoS 1 messages and sends them after reconnecting.
        try:
            return client.publish(topic, data, qos=qos, retain=retain, properties=properties)
        except ValueError as exc:  # a topic or payload paho refuses; one line, no traceback
            log.warning("MQTT: cannot publish on %r: %s", topic[:200], exc)
            return None

