"""The ``weather`` tool against a loopback server that answers in Open-Meteo's real field
layout (geocoding ``/v1/search`` and forecast ``/v1/forecast``). Nothing leaves the host."""

from __future__ import annotations

import datetime as dt
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from edgeagent_weather import register_tools
from edgeagent_weather.service import OpenMeteo

from edgeagent.plugin import ConfigError, PluginContext, Tool, ToolError
from edgeagent.testing import call_tool

PLACES = {
    "berlin": {
        "id": 2950159, "name": "Berlin", "latitude": 52.52437, "longitude": 13.41053,
        "elevation": 74.0, "feature_code": "PPLC", "country_code": "DE", "admin1_id": 2950157,
        "timezone": "Europe/Berlin", "population": 3426354, "country_id": 2921044,
        "country": "Germany", "admin1": "Land Berlin",
    },
}  # fmt: skip
NATIVE = {"서울": ("ko", {**PLACES["berlin"], "name": "Seoul", "country": "South Korea"})}
CODES = [0, 3, 61, 95]
START = dt.date(2025, 6, 1)


@dataclass
class FakeOpenMeteo:
    """What the server was asked, and what it should do next."""

    url: str = ""
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    fail_next: list[str] = field(default_factory=list)
    """Per upcoming request: ``"503"``, ``"drop"`` (close without answering) or ``"slow"``."""
    delay_s: float = 0.0

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if path == "/v1/search":
            place = PLACES.get(query["name"].lower())
            if query["name"] in NATIVE:  # matched only in its own language, as Open-Meteo does
                native, place = NATIVE[query["name"]]
                place = place if query["language"] == native else None
            body: dict[str, Any] = {"generationtime_ms": 0.4}
            if place:
                body["results"] = [place]
            return 200, body
        if path == "/v1/forecast":
            return 200, forecast_body(query)
        return 404, {"error": True, "reason": f"no endpoint {path}"}


def forecast_body(query: dict[str, str]) -> dict[str, Any]:
    days = int(query["forecast_days"])
    imperial = query.get("temperature_unit") == "fahrenheit"

    def temp(c: float) -> float:
        return round(c * 9 / 5 + 32, 1) if imperial else c

    return {
        "latitude": 52.52, "longitude": 13.419998, "generationtime_ms": 0.1,
        "utc_offset_seconds": 7200, "timezone": "Europe/Berlin",
        "timezone_abbreviation": "GMT+2", "elevation": 38.0,
        "daily_units": {
            "time": "iso8601", "weather_code": "wmo code",
            "temperature_2m_max": "°F" if imperial else "°C",
            "temperature_2m_min": "°F" if imperial else "°C",
            "precipitation_probability_max": "%",
            "precipitation_sum": "inch" if imperial else "mm",
            "wind_speed_10m_max": "mp/h" if imperial else "km/h",
        },
        "daily": {
            "time": [(START + dt.timedelta(days=i)).isoformat() for i in range(days)],
            "weather_code": [CODES[i % len(CODES)] for i in range(days)],
            "temperature_2m_max": [temp(20.0 + i) for i in range(days)],
            "temperature_2m_min": [temp(10.0 + i) for i in range(days)],
            # far days have no probability yet; the real service sends null
            "precipitation_probability_max": [10 * i if i < 10 else None for i in range(days)],
            "precipitation_sum": [0.04 * i if imperial else 1.0 * i for i in range(days)],
            "wind_speed_10m_max": [8.1 if imperial else 13.0 for _ in range(days)],
        },
    }  # fmt: skip


def make_handler(fake: FakeOpenMeteo) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            fake.requests.append((parts.path, query))
            action = fake.fail_next.pop(0) if fake.fail_next else ""
            if action == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if action == "slow":
                time.sleep(fake.delay_s)
            status, body = (
                (503, {"error": True, "reason": "busy"})
                if action == "503"
                else (fake.answer(parts.path, query))
            )
            data = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (the timeout test): that is the point

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

    return Handler


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx would send even loopback requests through a proxy from the environment."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def server() -> Iterator[FakeOpenMeteo]:
    fake = FakeOpenMeteo()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(fake))
    httpd.daemon_threads = True
    fake.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(
        target=httpd.serve_forever,
        kwargs={"poll_interval": 0.05},
        name="fake-open-meteo",
        daemon=True,
    )
    thread.start()
    try:
        yield fake
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def service(fake: FakeOpenMeteo, **kwargs: Any) -> OpenMeteo:
    kwargs.setdefault("timeout_s", 2.0)
    kwargs.setdefault("today", lambda: START)  # the device's clock, on the fake's first day
    return OpenMeteo(geocoding_url=fake.url, forecast_url=fake.url, **kwargs)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_metric_forecast_summary(server: FakeOpenMeteo) -> None:
    weather = service(server)
    assert weather.weather("Berlin", "day after tomorrow") == {
        "place": "Berlin, Land Berlin, Germany",
        "date": "2025-06-03",
        "weekday": "Tuesday",
        "description": "slight rain",
        "temp_min": "12.0 °C",
        "temp_max": "22.0 °C",
        "precipitation_probability": "20 %",
        "precipitation": "2.0 mm",
        "wind_max": "13.0 km/h",
    }
    (geo_path, geo), (fc_path, fc) = server.requests
    assert (geo_path, geo) == (
        "/v1/search",
        {"name": "Berlin", "count": "1", "language": "en", "format": "json"},
    )
    assert fc_path == "/v1/forecast"
    assert fc == {
        "latitude": "52.52437",
        "longitude": "13.41053",
        "daily": "weather_code,temperature_2m_max,temperature_2m_min,"
        "precipitation_probability_max,precipitation_sum,wind_speed_10m_max",
        "timezone": "auto",
        "forecast_days": "4",  # one more than needed: the place may be a day behind
    }
    weather.close()


@pytest.mark.parametrize(
    ("day", "date"),
    [
        ("today", "2025-06-01"),
        ("Tomorrow", "2025-06-02"),
        ("friday", "2025-06-06"),  # 2025-06-01 is a Sunday
        ("sunday", "2025-06-01"),
        ("in three days", "2025-06-04"),
        ("+2", "2025-06-03"),
        (5, "2025-06-06"),
        ("2025-06-10", "2025-06-10"),
    ],
)
def test_day_is_read_from_the_device_clock(
    server: FakeOpenMeteo, day: str | int, date: str
) -> None:
    result = call_tool([service(server).as_tool()], "weather", location="Berlin", day=day)
    assert result.ok, result.error
    assert result.result["date"] == date
    assert result.result["weekday"] == dt.date.fromisoformat(date).strftime("%A")


def test_the_row_is_picked_by_date_when_the_place_is_a_day_behind(server: FakeOpenMeteo) -> None:
    # The device's clock is already on 2 June; the place's forecast still starts on 1 June.
    weather = service(server, today=lambda: START + dt.timedelta(days=1))
    assert weather.weather("Berlin", "today")["date"] == "2025-06-02"
    assert server.requests[-1][1]["forecast_days"] == "2"
    assert weather.weather("Berlin", "tomorrow")["date"] == "2025-06-03"


def test_imperial_units_are_requested_and_reported(server: FakeOpenMeteo) -> None:
    result = service(server, units="imperial").weather("berlin")
    query = server.requests[-1][1]
    assert (query["temperature_unit"], query["wind_speed_unit"], query["precipitation_unit"]) == (
        "fahrenheit", "mph", "inch",
    )  # fmt: skip
    assert result["temp_max"] == "68.0 °F"
    assert result["temp_min"] == "50.0 °F"
    assert result["wind_max"] == "8.1 mp/h"
    assert result["precipitation"] == "0.0 inch"
    assert result["description"] == "clear sky"


def test_missing_values_are_none_not_a_crash(server: FakeOpenMeteo) -> None:
    result = service(server).weather("Berlin", "15")
    assert server.requests[-1][1]["forecast_days"] == "16"  # the service's limit
    assert result["date"] == "2025-06-16"
    assert result["precipitation_probability"] is None
    assert result["description"] == "thunderstorm"


def test_answers_are_cached_per_instance_until_the_ttl_passes(server: FakeOpenMeteo) -> None:
    clock = Clock()
    weather = service(server, cache_ttl_s=60, clock=clock)
    first = weather.weather("Berlin", "tomorrow")
    assert weather.weather(" berlin ", "1") == first  # the same day, said another way
    assert len(server.requests) == 2  # one geocoding, one forecast
    weather.weather("Berlin", "in 4 days")  # another day: the place is cached, not the forecast
    assert [p for p, _ in server.requests] == ["/v1/search", "/v1/forecast", "/v1/forecast"]
    clock.now += 61
    weather.weather("Berlin", "tomorrow")
    assert len(server.requests) == 5
    other = service(server, cache_ttl_s=60, clock=clock)  # no shared, global cache
    other.weather("Berlin", "tomorrow")
    assert len(server.requests) == 7


def test_zero_ttl_disables_the_cache(server: FakeOpenMeteo) -> None:
    weather = service(server, cache_ttl_s=0)
    weather.weather("Berlin")
    weather.weather("Berlin")
    assert len(server.requests) == 4


@pytest.mark.parametrize("failure", ["503", "drop"])
def test_one_failure_is_retried_once(server: FakeOpenMeteo, failure: str) -> None:
    server.fail_next = [failure]
    assert service(server).weather("Berlin")["date"] == "2025-06-01"
    assert [p for p, _ in server.requests] == ["/v1/search", "/v1/search", "/v1/forecast"]


def test_two_failures_in_a_row_give_up_naming_the_url(server: FakeOpenMeteo) -> None:
    server.fail_next = ["503", "503"]
    with pytest.raises(ToolError) as info:
        service(server).weather("Berlin")
    assert f"could not be reached ({server.url}/v1/search): HTTP 503" in str(info.value)
    assert len(server.requests) == 2


def test_a_slow_service_times_out_with_one_retry(server: FakeOpenMeteo) -> None:
    server.fail_next, server.delay_s = ["slow", "slow"], 1.0
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"could not be reached .*ReadTimeout"):
        service(server, timeout_s=0.2).weather("Berlin")
    assert time.monotonic() - started < 1.5
    assert len(server.requests) == 2


def test_a_name_in_another_script_is_searched_again_in_its_language(
    server: FakeOpenMeteo,
) -> None:
    # Open-Meteo matches "서울" only with language=ko; the model passes it as written.
    summary = service(server).weather("서울")
    assert summary["place"].startswith("Seoul")
    searched = [(q["name"], q["language"]) for p, q in server.requests if p == "/v1/search"]
    assert searched == [("서울", "en"), ("서울", "ko")]
    with pytest.raises(ToolError, match="no place called 'Xyzzy'"):
        service(server).weather("Xyzzy")  # Latin letters: searched once
    assert len([p for p, _ in server.requests if p == "/v1/search"]) == 3


def test_unknown_place(server: FakeOpenMeteo) -> None:
    with pytest.raises(ToolError, match="no place called 'Xyzzy'"):
        service(server).weather("Xyzzy")
    assert [p for p, _ in server.requests] == ["/v1/search"]


def test_unreachable_service_names_its_url() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    weather = OpenMeteo(geocoding_url=url, forecast_url=url, timeout_s=1.0)
    with pytest.raises(ToolError) as info:
        weather.weather("Berlin")
    message = str(info.value)
    assert f"the weather service could not be reached ({url}/v1/search)" in message
    assert "ConnectError" in message


def test_days_out_of_range_or_unknown_are_refused_before_any_request(
    server: FakeOpenMeteo,
) -> None:
    tool = service(server).as_tool()

    def error(day: Any) -> str:
        result = call_tool([tool], "weather", location="B", day=day)
        assert not result.ok and result.error is not None
        return result.error

    ahead = "is 16 days ahead; forecasts reach 15 days ahead (until 2025-06-16)"
    assert f"day '16' {ahead}" in error(16)
    assert "day 'in 3 weeks' is 21 days ahead" in error("in 3 weeks")
    assert "day 'someday' is not understood; use 'today', 'tomorrow'" in error("someday")
    assert "day '2025-05-31' is 1 day in the past" in error("2025-05-31")
    with pytest.raises(ToolError, match="1 day in the past"):
        tool.func(location="Berlin", day=-1)
    assert server.requests == []


def test_schema_says_day_is_words(server: FakeOpenMeteo) -> None:
    tool = service(server).as_tool()
    assert tool.description == (
        "Daily weather forecast for a place; day: the user's own words for it (today, "
        "tomorrow, day after tomorrow, friday, in 3 days)."
    )
    assert tool.parameters == {
        "properties": {
            "location": {
                "description": "place name",
                "maxLength": 100,
                "minLength": 1,
                "type": "string",
                "x-user-words": True,
            },
            "day": {
                "default": "today",
                "description": "today, tomorrow, friday, in 3 days, 2026-11-24",
                "maxLength": 40,
                "type": "string",
            },
        },
        "required": ["location"],
        "type": "object",
    }
    # The place must be one the user named: the agent asks rather than guess one.
    assert tool.user_words == ("location",)


def test_answer_states_the_fields_of_the_result(server: FakeOpenMeteo) -> None:
    weather = service(server)
    tool = weather.as_tool()
    assert tool.answer is not None
    assert tool.answer(weather.weather("Berlin", "day after tomorrow")) == (
        "Berlin, Land Berlin, Germany on Tuesday 2025-06-03: slight rain, 12.0–22.0 °C, "
        "20 % chance of precipitation (2.0 mm), wind up to 13.0 km/h."
    )
    far = weather.weather("Berlin", "15")  # no precipitation probability that far ahead
    assert tool.answer(far) == (
        "Berlin, Land Berlin, Germany on Monday 2025-06-16: thunderstorm, 25.0–35.0 °C, "
        "15.0 mm of precipitation, wind up to 13.0 km/h."
    )
    sparse = {"place": "Oslo", "date": "2025-06-01", "weekday": "Sunday", "temp_max": "9 °C"}
    assert tool.answer(sparse) == "Oslo on Sunday 2025-06-01: up to 9 °C."
    assert tool.answer({"place": "Oslo"}) == "Oslo: no forecast values."


def test_plugin_hook_reads_its_options_and_closes_its_client(server: FakeOpenMeteo) -> None:
    registered: list[Tool | Callable[..., Any]] = []
    context = PluginContext(
        name="weather",
        options={"geocoding_url": server.url, "forecast_url": server.url, "units": "imperial"},
    )
    register_tools(register=registered.append, context=context)
    (tool,) = registered
    assert isinstance(tool, Tool) and tool.name == "weather"
    result = call_tool([tool], "weather", location="Berlin")
    assert result.ok and result.result["temp_max"] == "68.0 °F"
    assert len(context.closers) == 1
    context.closers[0]()
    asked = len(server.requests)
    after = call_tool([tool], "weather", location="Berlin", day=3)
    assert not after.ok and after.error is not None and "closed" in after.error
    assert len(server.requests) == asked


def test_bad_options_name_the_key() -> None:
    context = PluginContext(name="weather", options={"units": "kelvin"})
    with pytest.raises(ConfigError, match=r"plugins\.weather\.units"):
        register_tools(register=lambda t: None, context=context)
