"""The device simulator: a Flask app factory with one blueprint per device.

``create_app()`` follows the Flask tutorial's shape. The JSON API (``/api/led``,
``/api/servo``) is what the plugins' ``sim`` backends call; ``/api/events`` streams
every change to the dashboard as Server-Sent Events. The console (``/console/api``,
:mod:`edgeagent_sim.console`) is the page's way to the running daemon.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

EXTENSION = "edgeagent_sim"


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the simulator app.

    Config keys: ``STATE_FILE`` (a path, or ``None`` to keep state in memory only),
    ``LED_COUNT`` (pixels on a fresh strip), ``SSE_KEEPALIVE_S``, ``ALLOWED_HOSTS``
    (``Host`` names answered besides loopback ones; ``["*"]``: any; from
    ``[simulator] allowed_hosts``), ``DAEMON_SOCKET`` (the daemon's ``[socket] path``
    for the console; ``None``: the console says none is configured).
    """
    # Imported here so that the plugins' HTTP client (edgeagent_sim.client) does not
    # pay for importing Flask.
    from flask import Flask

    from edgeagent_sim import console, dashboard, led, servo
    from edgeagent_sim.hosts import HostGuard
    from edgeagent_sim.store import DeviceStore

    app = Flask(__name__)
    app.config.from_mapping(
        STATE_FILE=None, LED_COUNT=8, SSE_KEEPALIVE_S=15.0, ALLOWED_HOSTS=[], DAEMON_SOCKET=None
    )
    if test_config is not None:
        app.config.from_mapping(test_config)
    state_file = app.config["STATE_FILE"]
    app.extensions[EXTENSION] = DeviceStore(
        state_file=Path(state_file).expanduser() if state_file else None,
        led_count=int(app.config["LED_COUNT"]),
    )
    app.before_request(HostGuard(app.config["ALLOWED_HOSTS"]))
    app.register_blueprint(led.bp)
    app.register_blueprint(servo.bp)
    app.register_blueprint(dashboard.bp)
    app.register_blueprint(console.bp)
    return app
