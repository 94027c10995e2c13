"""The MQTT front end: prompts in on ``<base>/ask``, answers out on ``<base>/reply``.

paho-mqtt runs its own network thread (``loop_start``); every callback only copies what
it needs and hands it to the asyncio loop with ``call_soon_threadsafe``, so the paho
thread never waits on the agent. Each prompt becomes one asyncio task that submits a
:class:`Request` to the dispatcher and publishes the events it streams back.

Topics under ``config.topic_base`` (``edgeagent/<device_id>``):

``ask``         prompts: plain text, or JSON ``{"prompt", "session", "id"|"transaction", "stream"}``
``reply``       ``{"id", "session", "text", "tool_calls", "error"}`` (or the v5 response topic)
``stream``      partial text, when the prompt asked for ``"stream": true``
``event/tool``  every tool call and result
``status``      retained ``online``/``offline``; the last will is a retained ``offline``
``tools``       retained JSON list of the loaded tools

Nothing is lost across restarts: QoS 1, a stable client id and a persistent session
(v5 ``clean_start=False`` + session expiry, v3.1.1 ``clean_session=False``), and
prompts are acknowledged only once accepted, so one that arrives while the front end is
stopping stays with the broker and is delivered on the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
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
from edgeagent.config import MQTTConfig
from edgeagent.errors import ConfigError
from edgeagent.frontends import homeassistant
from edgeagent.frontends.base import Dispatcher, Request
from edgeagent.frontends.mqtt_payload import Prompt, Rejected, parse_prompt, reply_payload

log = logging.getLogger(__name__)

FLEET_TOPIC = "edgeagent/fleet/ask"
# --- The front end ----------------------------------------------------------------------


@dataclass(frozen=True)
class Inbound:
    """What the paho thread copies out of one received message."""

    topic: str
    payload: bytes
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
        device_model: str = "edgeagent",
        connect_wait_s: float = 5.0,
        reconnect_min_s: float = 1.0,
        reconnect_max_s: float = 60.0,
    ) -> None:
        self.config = config
        self._dispatcher = dispatcher
        self._tools = tools if tools is not None else dispatcher.tools
        self._device_model = device_model
        self._connect_wait_s = connect_wait_s
        self._reconnect = (reconnect_min_s, reconnect_max_s)
        base = config.topic_base
        self.topic_ask, self.topic_reply = f"{base}/ask", f"{base}/reply"
        self.topic_stream, self.topic_tool = f"{base}/stream", f"{base}/event/tool"
        self.topic_status, self.topic_tools = f"{base}/status", f"{base}/tools"
        self.client_id = f"edgeagent-{config.device_id}"
        self._v5 = config.protocol == "5"
        self._client: mqtt.Client | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing = threading.Event()  # read by the paho thread
        self._stopped = False
        self._cleared_discovery = False
        self._sub_mid: int | None = None
        self._ready_task: asyncio.Task[None] | None = None
        self._recent: deque[tuple[int, bytes]] = deque(maxlen=64)  # paho thread only
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

    def status(self) -> dict[str, Any]:
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
        properties = None
        if self._v5:
            properties = Properties(PacketTypes.CONNECT)
            properties.SessionExpiryInterval = self.config.session_expiry_s
        client.connect_async(
            self.config.host,
            self.config.port,
            keepalive=self.config.keepalive_s,
            clean_start=False if self._v5 else mqtt.MQTT_CLEAN_START_FIRST_ONLY,
            properties=properties,
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
        try:
            if self._connected:
                info = client.publish(self.topic_status, "offline", qos=1, retain=True)
                await asyncio.to_thread(_wait_published, [info], 5.0)
        finally:
            client.disconnect()
            await asyncio.to_thread(client.loop_stop)
            self._connected = False
            self._state = "stopped"

    def _make_client(self) -> mqtt.Client:
        cfg = self.config
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=mqtt.MQTTv5 if self._v5 else mqtt.MQTTv311,
            clean_session=None if self._v5 else False,
            manual_ack=True,
        )
        if cfg.username is not None:
            client.username_pw_set(cfg.username, cfg.password)
        if cfg.tls.enabled:
            _configure_tls(client, cfg)
        client.will_set(self.topic_status, "offline", qos=1, retain=True)
        client.reconnect_delay_set(*self._reconnect)  # type: ignore[arg-type]  # floats work
        client.on_socket_open = _disable_nagle
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
        topics = [(self.topic_ask, 1)]
        if self.config.shared_group:
            topics.append((f"$share/{self.config.shared_group}/{FLEET_TOPIC}", 1))
        if self.config.homeassistant_discovery:
            topics.append((homeassistant.status_topic(self.config), 1))
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
        payload = bytes(msg.payload)
        # A redelivery (DUP) of a prompt already taken before a reconnect is answered once.
        duplicate = msg.dup and (msg.mid, payload) in self._recent
        if msg.qos > 0:
            self._recent.append((msg.mid, payload))
            client.ack(msg.mid, msg.qos)
        if duplicate:
            log.info("MQTT: ignoring a redelivered duplicate on %s", msg.topic)
            return
        props = getattr(msg, "properties", None)
        correlation = getattr(props, "CorrelationData", None)
        inbound = Inbound(
            topic=msg.topic,
            payload=payload,
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
        if self.config.homeassistant_discovery:
            sent += self._publish_discovery()
        elif not self._cleared_discovery:
            # A device that had discovery on before must disappear from Home Assistant.
            for topic, payload in homeassistant.removal_messages(self.config):
                sent.append(self._publish(topic, payload, qos=1, retain=True))
            self._cleared_discovery = True
        if self._ready is not None and not self._ready.is_set() and self._ready_task is None:
            # start() returns once the broker holds the retained status, tools and configs.
            self._ready_task = asyncio.get_running_loop().create_task(self._confirm_ready(sent))

    async def _confirm_ready(self, sent: list[mqtt.MQTTMessageInfo | None]) -> None:
        await asyncio.to_thread(_wait_published, [i for i in sent if i is not None], 5.0)
        if self._ready is not None:
            self._ready.set()

    def _publish_discovery(self) -> list[mqtt.MQTTMessageInfo | None]:
        return [
            self._publish(topic, payload, qos=1, retain=True)
            for topic, payload in homeassistant.discovery_messages(
                self.config, model=self._device_model
            )
        ]

    def _handle(self, inbound: Inbound) -> None:
        if inbound.topic == homeassistant.status_topic(self.config):
            if self.config.homeassistant_discovery and inbound.payload == b"online":
                log.info("Home Assistant came online; re-publishing discovery configs")
                self._publish_discovery()
            return
        fleet = inbound.topic == FLEET_TOPIC and self.config.shared_group is not None
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
        parsed = parse_prompt(inbound.payload, max_bytes=self.config.max_payload_bytes)
        if isinstance(parsed, Rejected):
            self.rejected += 1
            log.warning("MQTT: rejected a prompt on %s: %s", inbound.topic, parsed.error)
            self._reply(inbound, parsed.echo, parsed.session, error=parsed.error)
            return
        task = asyncio.get_running_loop().create_task(self._serve(parsed, inbound))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, prompt: Prompt, inbound: Inbound) -> None:
        request = Request(
            prompt=prompt.text,
            frontend="mqtt",
            id=prompt.request_id,
            session=prompt.session,
            stream=prompt.stream,
            meta={"topic": inbound.topic, "response_topic": inbound.response_topic},
        )
        tags = {"id": prompt.echo.get("id"), **prompt.echo, "session": prompt.session}
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
                self._reply(
                    inbound,
                    prompt.echo,
                    prompt.session,
                    error="the request ended without an answer",
                )
        except asyncio.CancelledError:
            self._reply(
                inbound,
                prompt.echo,
                prompt.session,
                error="cancelled: edgeagent is shutting down; send the prompt again",
            )
            raise
        except Exception as exc:
            log.exception("MQTT request %s failed", request.id)
            self._reply(inbound, prompt.echo, prompt.session, error=f"internal error: {exc}")

    def _emit(self, event: Event, prompt: Prompt, inbound: Inbound, tags: dict[str, Any]) -> bool:
        """Publish one event; True when it was the final answer or error."""
        if isinstance(event, TextChunk):
            if prompt.stream:
                self._publish(
                    self.topic_stream,
                    {**tags, "text": event.text},
                    qos=0,
                    correlation=inbound.correlation,
                )
            return False
        if isinstance(event, ToolCallEvent | ToolResultEvent):
            self._publish(self.topic_tool, {**tags, **event_to_dict(event)}, qos=1)
            return False
        if isinstance(event, FinalAnswer):
            self._reply(
                inbound, prompt.echo, prompt.session, text=event.text, tool_calls=event.tool_calls
            )
        elif isinstance(event, ErrorEvent):
            self._reply(inbound, prompt.echo, prompt.session, error=event.message)
        return True

    def _reply(
        self,
        inbound: Inbound,
        echo: dict[str, Any],
        session: str | None,
        *,
        text: str | None = None,
        tool_calls: list[dict[str, Any]] | None = None,
        error: str | None = None,
    ) -> None:
        payload = reply_payload(echo, session, text=text, tool_calls=tool_calls, error=error)
        topic = inbound.response_topic or self.topic_reply
        self._publish(topic, payload, qos=1, correlation=inbound.correlation)

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
        return client.publish(topic, data, qos=qos, retain=retain, properties=properties)


def _disable_nagle(_client: mqtt.Client, _userdata: Any, sock: Any) -> None:
    # paho leaves Nagle on: each small reply would wait for the peer's delayed ACK
    # (~40 ms on Linux), which dominates a prompt's round trip on the scripted backend.
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _wait_published(infos: list[mqtt.MQTTMessageInfo], timeout: float) -> None:
    """Block (in a worker thread) until the broker acknowledged each message."""
    for info in infos:
        with contextlib.suppress(ValueError, RuntimeError):
            info.wait_for_publish(timeout)


def _configure_tls(client: mqtt.Client, cfg: MQTTConfig) -> None:
    tls = cfg.tls
    try:
        client.tls_set(
            ca_certs=str(tls.ca_certs) if tls.ca_certs else None,
            certfile=str(tls.certfile) if tls.certfile else None,
            keyfile=str(tls.keyfile) if tls.keyfile else None,
        )
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"[mqtt.tls] ca_certs={tls.ca_certs} certfile={tls.certfile} "
            f"keyfile={tls.keyfile}: cannot load ({exc}); point them at readable PEM files"
        ) from None
    if tls.insecure:
        client.tls_insecure_set(True)
