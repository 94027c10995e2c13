"""What the device blueprints share: the store lookup and JSON error replies."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify, request

from edgeagent_sim.store import DeviceStore


def get_store() -> DeviceStore:
    store = current_app.extensions["edgeagent_sim"]
    assert isinstance(store, DeviceStore)
    return store


def bad_request(message: str) -> tuple[Response, int]:
    return jsonify(error=message), 400


def json_body() -> dict[str, Any] | str:
    """The request's JSON object, or the reason it is not one."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        return 'expected a JSON object body, e.g. {"on": true}, with Content-Type: application/json'
    return body
