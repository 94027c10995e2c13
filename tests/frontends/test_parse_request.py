"""One rule for a prompt request, whichever front end it came in on."""

from __future__ import annotations

import json
from typing import Any

import pytest

from edgeagent.errors import ProtocolError
from edgeagent.frontends.base import Request, echo_fields, parse_request
from edgeagent.frontends.mqtt_payload import Prompt, Rejected, parse_prompt

FRONTENDS = ("mqtt", "socket")


def over_mqtt(obj: dict[str, Any]) -> Request:
    """What the MQTT front end makes of the object published as JSON."""
    parsed = parse_prompt(json.dumps(obj).encode(), max_bytes=16384)
    if isinstance(parsed, Rejected):
        raise ProtocolError(parsed.error)
    return parsed.request


def test_the_same_object_is_the_same_request_on_every_front_end() -> None:
    obj = {"prompt": "  turn the LED red \n", "id": 7, "session": "kitchen", "stream": False}
    expected = Request("turn the LED red", frontend="mqtt", id="7", session="kitchen")
    assert over_mqtt(obj) == expected
    assert parse_request(obj, frontend="socket") == Request(
        "turn the LED red", frontend="socket", id="7", session="kitchen"
    )


def test_stream_defaults_to_on_for_the_socket_and_off_for_mqtt() -> None:
    assert parse_request({"prompt": "hi"}, frontend="socket").stream is True
    assert parse_request({"prompt": "hi"}, frontend="mqtt").stream is False
    assert over_mqtt({"prompt": "hi"}).stream is False


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_a_transaction_is_the_request_id_when_there_is_no_id(frontend: str) -> None:
    obj = {"prompt": "hi", "transaction": 42}
    assert parse_request(obj, frontend=frontend).id == "42"
    assert echo_fields(obj) == {"transaction": 42}
    both = {"prompt": "hi", "id": "a", "transaction": "t"}
    assert parse_request(both, frontend=frontend).id == "a"
    assert echo_fields(both) == {"id": "a", "transaction": "t"}


BAD: list[tuple[object, str]] = [
    ({"prompt": "hi", "sesion": "kitchen"}, 'unknown field(s) "sesion"'),
    ({"prompt": "hi", "op": "status"}, 'unknown field(s) "op"'),
    ({"prompt": 5}, '"prompt" must be a non-empty string, got 5'),
    ({"prompt": " \n"}, "(an empty prompt)"),
    ({}, '"prompt" must be a non-empty string, got None'),
    ({"prompt": "hi", "stream": "yes"}, "\"stream\" must be true or false, got 'yes'"),
    ({"prompt": "hi", "id": [1]}, '"id" must be a string or an integer, got [1]'),
    ({"prompt": "hi", "transaction": True}, '"transaction" must be a string or an integer'),
    ({"prompt": "hi", "session": ""}, "session '' is empty"),
    ([1, 2], "expected a JSON object"),
]


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize(("obj", "expected"), BAD, ids=range(len(BAD)))
def test_a_bad_request_is_refused_with_the_same_words_on_every_front_end(
    frontend: str, obj: object, expected: str
) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_request(obj, frontend=frontend)
    assert expected in str(caught.value)
    if frontend == "mqtt" and isinstance(obj, dict):
        parsed = parse_prompt(json.dumps(obj).encode(), max_bytes=16384)
        assert isinstance(parsed, Rejected) and parsed.error == str(caught.value)


def test_a_long_unknown_field_is_cut_short_in_the_error() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_request({"prompt": "hi", "x" * 10_000: 1}, frontend="socket")
    assert len(str(caught.value)) < 200


def test_mqtt_plain_text_is_a_prompt_only_mqtt_takes() -> None:
    parsed = parse_prompt(b"turn the LED red", max_bytes=100)
    assert isinstance(parsed, Prompt)
    assert parsed.request == Request("turn the LED red", frontend="mqtt")
