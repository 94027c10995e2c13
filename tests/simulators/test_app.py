"""The simulator's JSON API through Flask's test client."""

from __future__ import annotations

import json
from pathlib import Path

from edgeagent_sim import create_app
from flask.testing import FlaskClient


def test_fresh_strip_and_servo(client: FlaskClient) -> None:
    assert client.get("/api/led").get_json() == {
        "on": False,
        "brightness": 100,
        "pixels": ["#000000"] * 4,
    }
    assert client.get("/api/servo").get_json() == {"angle": 0.0}


def test_led_post_changes_only_what_is_given(client: FlaskClient) -> None:
    client.post("/api/led", json={"color": "red", "on": True})
    reply = client.post("/api/led", json={"color": "#00F", "first": 1, "last": 2})
    assert reply.status_code == 200
    assert reply.get_json() == {
        "on": True,
        "brightness": 100,
        "pixels": ["#ff0000", "#0000ff", "#0000ff", "#ff0000"],
    }
    client.post("/api/led", json={"brightness": 30})
    assert client.get("/api/led").get_json()["brightness"] == 30
    client.post("/api/led", json={"pixels": ["white"] * 6})  # a longer strip
    assert client.get("/api/led").get_json()["pixels"] == ["#ffffff"] * 6


def test_servo_post_sets_the_angle(client: FlaskClient) -> None:
    assert client.post("/api/servo", json={"angle": -45.5}).get_json() == {"angle": -45.5}
    assert client.get("/api/servo").get_json() == {"angle": -45.5}


def test_bad_input_is_a_400_naming_the_problem(client: FlaskClient) -> None:
    cases = {
        "/api/led": [
            ({"brightness": 150}, "brightness"),
            ({"color": "blurple"}, "unknown color 'blurple'"),
            ({"colour": "red"}, "colour"),
            ({"color": "red", "first": 2, "last": 9}, "2-9"),
            ({"first": 1}, "only make sense together with color"),
        ],
        "/api/servo": [({"angle": 120}, "less than or equal to 90"), ({}, "angle")],
    }
    before = client.get("/api/led").get_json(), client.get("/api/servo").get_json()
    for path, bodies in cases.items():
        for body, expected in bodies:
            reply = client.post(path, json=body)
            assert reply.status_code == 400, body
            assert expected in reply.get_json()["error"], (body, reply.get_json())
    not_json = client.post("/api/led", data="on", content_type="text/plain")
    assert not_json.status_code == 400
    assert "JSON object" in not_json.get_json()["error"]
    after = client.get("/api/led").get_json(), client.get("/api/servo").get_json()
    assert after == before


def test_state_survives_a_new_app_instance(client: FlaskClient, state_file: Path) -> None:
    client.post("/api/led", json={"color": "orange", "on": True, "brightness": 60})
    client.post("/api/servo", json={"angle": 33})
    assert json.loads(state_file.read_text())["servo"] == {"angle": 33.0}

    again = create_app({"TESTING": True, "STATE_FILE": str(state_file)}).test_client()
    assert again.get("/api/led").get_json() == {
        "on": True,
        "brightness": 60,
        "pixels": ["#ffa500"] * 4,
    }
    assert again.get("/api/servo").get_json() == {"angle": 33.0}


def test_a_corrupt_state_file_starts_fresh(state_file: Path) -> None:
    state_file.parent.mkdir(parents=True)
    state_file.write_text("{not json")
    client = create_app({"TESTING": True, "STATE_FILE": str(state_file)}).test_client()
    assert client.get("/api/servo").get_json() == {"angle": 0.0}
    client.post("/api/servo", json={"angle": 5})
    assert json.loads(state_file.read_text())["servo"]["angle"] == 5.0


def test_dashboard_page_draws_the_current_state(client: FlaskClient) -> None:
    client.post("/api/led", json={"color": "lime", "on": True})
    client.post("/api/servo", json={"angle": -30})
    page = client.get("/").get_data(as_text=True)
    assert page.count('class="pixel"') == 4
    assert 'data-color="#00ff00"' in page
    assert "rotate(-30.0 100 110)" in page
    assert client.get("/static/dashboard.js").status_code == 200
