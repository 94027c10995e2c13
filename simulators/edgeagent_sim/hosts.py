"""The ``Host`` guard: the simulator answers loopback names only, unless configured.

A web page can make a browser talk to ``127.0.0.1`` under its own name (DNS rebinding:
``attacker.example`` first resolves to the attacker, then to 127.0.0.1), and then read
and drive the devices with the page's origin. The browser still sends
``Host: attacker.example``; refusing unknown host names closes that door.
"""

from __future__ import annotations

from collections.abc import Iterable

from flask import Response, jsonify, request

from edgeagent.config import is_loopback

CONFIG_KEY = "[simulator] allowed_hosts"


def host_name(host: str) -> str:
    """The name in a ``Host`` value: ``127.0.0.1:8765`` -> ``127.0.0.1``, ``[::1]:80`` ->
    ``::1``, ``LocalHost.`` -> ``localhost``."""
    if host.startswith("["):
        name = host[1:].split("]", 1)[0]
    else:
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return name.rstrip(".").lower()


class HostGuard:
    """A ``before_request`` hook: 403 for a ``Host`` that is neither loopback nor listed."""

    def __init__(self, allowed: Iterable[str]) -> None:
        names = [str(a) for a in allowed]
        self.any = "*" in names
        self.allowed = frozenset(host_name(a) for a in names if a != "*")

    def permits(self, host: str) -> bool:
        # No Host at all (HTTP/1.0) is no browser, so no rebinding; the Host is not a
        # password either way: whoever reaches the port may send any name.
        name = host_name(host)
        return self.any or not name or is_loopback(name) or name in self.allowed

    def __call__(self) -> tuple[Response, int] | None:
        host = request.headers.get("Host", "")
        if self.permits(host):
            return None
        listed = ", ".join(sorted(self.allowed)) or "none"
        return jsonify(
            error=f"host {host!r} is not allowed: the simulator answers loopback names "
            f"(localhost, 127.0.0.1, [::1]) and those in {CONFIG_KEY} (now: {listed}); "
            f"add {host_name(host)!r} there to reach it under that name"
        ), 403
