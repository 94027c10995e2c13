"""The paho client of the MQTT front end: credentials, TLS, socket options, CONNECT.

:func:`make_client` builds it from ``[mqtt]`` without connecting; the front end adds its
callbacks. Config mistakes found here (an unreadable ``password_file``, PEM files that do
not load) raise :class:`~edgeagent.errors.ConfigError` naming the key and the path.
"""

from __future__ import annotations

import contextlib
import socket
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from edgeagent.config import MQTTConfig
from edgeagent.errors import ConfigError


def make_client(
    cfg: MQTTConfig, *, client_id: str, will_topic: str, reconnect_s: tuple[float, float]
) -> mqtt.Client:
    """A paho client with manual acks, the retained ``offline`` will and credentials."""
    v5 = cfg.protocol == "5"
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        protocol=mqtt.MQTTv5 if v5 else mqtt.MQTTv311,
        clean_session=None if v5 else False,
        manual_ack=True,
    )
    password = _password(cfg)
    if cfg.username is not None:
        client.username_pw_set(cfg.username, password)
    if cfg.tls.enabled:
        _configure_tls(client, cfg)
    client.will_set(will_topic, "offline", qos=1, retain=True)
    client.reconnect_delay_set(*reconnect_s)  # type: ignore[arg-type]  # floats work
    client.on_socket_open = _disable_nagle
    return client


def connect_properties(cfg: MQTTConfig) -> Properties | None:
    """MQTT v5 CONNECT properties: the persistent session's expiry (``None`` on v3.1.1).

    No Maximum Packet Size, on purpose: mosquitto 2.0.11 (Debian 12's package) drops a
    QoS 1 message over it without giving back its in-flight slot, and 20 oversized
    prompts left the daemon deaf to every later one. An oversized payload is answered
    and let go instead (the front end checks the size before keeping anything); the
    broker's own ``max_packet_size`` refuses it at the sender, where the traffic stops.
    """
    if cfg.protocol != "5":
        return None
    properties = Properties(PacketTypes.CONNECT)
    properties.SessionExpiryInterval = cfg.session_expiry_s
    return properties


def _disable_nagle(_client: mqtt.Client, _userdata: Any, sock: Any) -> None:
    # paho leaves Nagle on: each small reply would wait for the peer's delayed ACK
    # (~40 ms on Linux), which dominates a prompt's round trip on the scripted backend.
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _password(cfg: MQTTConfig) -> str | None:
    """``[mqtt] password``, or the first line of ``[mqtt] password_file``."""
    path = cfg.password_file
    if path is None:
        return cfg.password
    # Set together with password, or without username: refused by MQTTConfig.
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(
            f"[mqtt] password_file = {path}: cannot read it ({reason}); put the password "
            f"on its first line, in a file the edgeagent user can read (mode 0600)"
        ) from None
    password = lines[0].strip() if lines else ""
    if not password:
        raise ConfigError(
            f"[mqtt] password_file = {path}: the first line is empty; put the password there"
        )
    return password


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


def wait_published(infos: list[mqtt.MQTTMessageInfo], timeout: float) -> None:
    """Block (in a worker thread) until the broker acknowledged each message."""
    for info in infos:
        with contextlib.suppress(ValueError, RuntimeError):
            info.wait_for_publish(timeout)
