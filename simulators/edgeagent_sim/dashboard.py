"""The dashboard page and its live feed (``GET /api/events``, Server-Sent Events).

The page is drawn from one snapshot and then patched by each event, so a change made
through the API shows within one network round trip (no polling interval).
"""

from __future__ import annotations

import json
import queue
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, render_template

from edgeagent_sim.api import get_store
from edgeagent_sim.store import CLOSED

bp = Blueprint("dashboard", __name__)


@bp.get("/")
def index() -> str:
    return render_template("dashboard.html", state=get_store().snapshot())


def _event(snapshot: dict[str, Any]) -> str:
    return f"event: state\nid: {snapshot['version']}\ndata: {json.dumps(snapshot)}\n\n"


@bp.get("/api/events")
def events() -> Response:
    store = get_store()
    keepalive = float(current_app.config["SSE_KEEPALIVE_S"])
    feed = store.subscribe()  # subscribe before the snapshot so no change falls between

    def stream() -> Iterator[str]:
        try:
            yield "retry: 1000\n\n"
            yield _event(store.snapshot())
            while True:
                try:
                    item = feed.get(timeout=keepalive)
                except queue.Empty:
                    # A comment line; writing it is how a vanished browser is noticed.
                    yield ": keepalive\n\n"
                    continue
                if item is CLOSED:
                    return
                yield _event(item)
        finally:
            store.unsubscribe(feed)

    return Response(
        stream(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
