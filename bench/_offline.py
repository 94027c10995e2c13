"""Offline fixtures for the accuracy benchmark: the five first-party tools, working.

* led and servo on their in-memory ``mock`` backends,
* weather against a loopback HTTP server that answers in Open-Meteo's field layout
  (geocoding ``/v1/search``, forecast ``/v1/forecast``) for any place name, the same
  idea as tests/plugins/test_weather.py,
* shell confined to a temporary directory holding a few files,
* math as it is.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from edgeagent.compose import ToolSet, build_tools
from edgeagent.config import Config

FIRST_PARTY = ("led", "servo", "weather", "shell", "math")
CODES = [0, 3, 61, 95, 2, 71]


def _place(name: str) -> dict[str, Any]:
    seed = zlib.crc32(name.lower().encode())
    return {
        "id": seed % 10_000_000, "name": name.strip().title(),
        "latitude": (seed % 1400) / 10 - 70, "longitude": (seed % 3600) / 10 - 180,
        "elevation": 50.0, "feature_code": "PPLC", "country_code": "XX",
        "timezone": "UTC", "population": 500000, "country": "Testland",
    }  # fmt: skip


def _forecast(query: dict[str, str]) -> dict[str, Any]:
    days = int(query.get("forecast_days", "1"))
    start = dt.date(2026, 11, 22)
    return {
        "latitude": float(query.get("latitude", 0)), "longitude": float(query.get("longitude", 0)),
        "generationtime_ms": 0.1, "utc_offset_seconds": 0, "timezone": "UTC",
        "timezone_abbreviation": "UTC", "elevation": 50.0,
        "daily_units": {
            "time": "iso8601", "weather_code": "wmo code", "temperature_2m_max": "°C",
            "temperature_2m_min": "°C", "precipitation_probability_max": "%",
            "precipitation_sum": "mm", "wind_speed_10m_max": "km/h",
        },
        "daily": {
            "time": [(start + dt.timedelta(days=i)).isoformat() for i in range(days)],
            "weather_code": [CODES[i % len(CODES)] for i in range(days)],
            "temperature_2m_max": [14.0 + i for i in range(days)],
            "temperature_2m_min": [6.0 + i for i in range(days)],
            "precipitation_probability_max": [(20 * i) % 100 for i in range(days)],
            "precipitation_sum": [1.5 * (i % 3) for i in range(days)],
            "wind_speed_10m_max": [12.0 for _ in range(days)],
        },
    }  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/v1/search":
            body: dict[str, Any] = {"results": [_place(query.get("name", "x"))]}
        elif parts.path == "/v1/forecast":
            body = _forecast(query)
        else:
            self.send_error(404)
            return
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass
class OfflineTools:
    tools: ToolSet
    config: Config
    shell_root: Path


def _shell_root(root: Path) -> Path:
    (root / "logs").mkdir(parents=True, exist_ok=True)
    (root / "notes.txt").write_text("Buy a new servo.\nCalibrate the LED strip.\n")
    (root / "todo.md").write_text("# Todo\n- milk\n- solder the header\n- milk again\n")
    (root / "data.csv").write_text("t,temp\n" + "".join(f"{i},{20 + i % 5}\n" for i in range(40)))
    (root / "logs" / "app.log").write_text("".join(f"line {i}: ok\n" for i in range(30)))
    return root


@contextmanager
def offline_tools(workdir: Path, **agent: Any) -> Iterator[OfflineTools]:
    """The first-party tools wired for offline use; ``agent``: extra [agent] settings."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, name="fake-open-meteo", daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    root = _shell_root(workdir / "files")
    config = Config.model_validate(
        {
            "agent": agent,
            "tools": {"enabled": list(FIRST_PARTY), "wrapped_dir": None},
            "plugins": {
                "led": {"backend": "mock"},
                "servo": {"backend": "mock"},
                "weather": {"geocoding_url": url, "forecast_url": url, "timeout_s": 5},
                "shell": {"roots": [str(root)]},
            },
        }
    )
    toolset = build_tools(config)
    try:
        missing = sorted(set(FIRST_PARTY) - set(toolset.registry.names()))
        if missing:
            raise RuntimeError(f"first-party tools did not load: {missing}; {toolset.report}")
        yield OfflineTools(toolset, config, root)
    finally:
        toolset.close()
        httpd.shutdown()
        httpd.server_close()
