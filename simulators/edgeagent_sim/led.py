"""The LED strip: ``GET /api/led`` reads it, ``POST /api/led`` changes it."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from pydantic import ValidationError

from edgeagent_sim.api import bad_request, get_store, json_body
from edgeagent_sim.store import LedUpdate, describe

bp = Blueprint("led", __name__, url_prefix="/api/led")


@bp.get("")
def read() -> Response:
    return jsonify(get_store().snapshot()["led"])


@bp.post("")
def write() -> Response | tuple[Response, int]:
    body = json_body()
    if isinstance(body, str):
        return bad_request(body)
    try:
        update = LedUpdate.model_validate(body)
        return jsonify(get_store().update_led(update))
    except ValidationError as exc:
        return bad_request(describe(exc))
    except ValueError as exc:
        return bad_request(str(exc))
