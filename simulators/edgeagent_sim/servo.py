"""The servo: ``GET /api/servo`` reads its angle, ``POST /api/servo`` sets it (-90..90)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from pydantic import ValidationError

from edgeagent_sim.api import bad_request, get_store, json_body
from edgeagent_sim.store import ServoUpdate, describe

bp = Blueprint("servo", __name__, url_prefix="/api/servo")


@bp.get("")
def read() -> Response:
    return jsonify(get_store().snapshot()["servo"])


@bp.post("")
def write() -> Response | tuple[Response, int]:
    body = json_body()
    if isinstance(body, str):
        return bad_request(body)
    try:
        update = ServoUpdate.model_validate(body)
    except ValidationError as exc:
        return bad_request(describe(exc))
    return jsonify(get_store().update_servo(update))
