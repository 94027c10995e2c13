"""The shipped configuration made offline, for the accuracy benchmark.

:func:`offline_tools` loads ``config/edgeagent.toml`` with the product's own loader and
changes only what must not leave the machine:

* ``[plugins.led]`` and ``[plugins.servo]`` on their in-memory ``mock`` backends,
* ``[plugins.weather]`` URLs pointing at a loopback HTTP server that answers in
  Open-Meteo's field layout (geocoding ``/v1/search``, forecast ``/v1/forecast``) for any
  place name; its forecast starts at the real ``date.today()``, so a tool that resolves
  "tomorrow" from the device clock gets the date the judge expects,
* ``[plugins.shell] roots`` confined to a temporary directory holding a few files.

Everything else stays as shipped: ``[tools] enabled``, the ``.tool`` wrappers of
``config/tools.d``, ``[agent]``, ``[llm]``. A variant's overrides go on top, and a key
the shipped config does not have fails loudly (:class:`UnknownOverrideError`).
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from edgeagent.compose import ToolSet, build_tools
from edgeagent.config import Config
from edgeagent.config_file import load_config

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_CONFIG = ROOT / "config" / "edgeagent.toml"
CODES = [0, 3, 61, 95, 2, 71]

Overrides = Mapping[str, Any]
"""Nested tables like the TOML file's: ``{"llm": {"llamacpp": {"grammar": True}}}``. A
leaf may be a function of the shipped value (``{"grammar": flip}``)."""


def flip(value: Any) -> bool:
    """An override leaf: the opposite of the shipped boolean."""
    return not value


class UnknownOverrideError(KeyError):
    """A variant overrides a config key that the shipped config does not have."""


# --- the fake Open-Meteo ----------------------------------------------------------------


def _place(name: str) -> dict[str, Any]:
    seed = zlib.crc32(name.lower().encode())
    return {
        "id": seed % 10_000_000, "name": name.strip().title(),
        "latitude": (seed % 1400) / 10 - 70, "longitude": (seed % 3600) / 10 - 180,
        "elevation": 50.0, "feature_code": "PPLC", "country_code": "XX",
        "timezone": "UTC", "population": 500000, "country": "Testland",
    }  # fmt: skip


def forecast_days(query: Mapping[str, str], today: dt.date) -> list[dt.date]:
    """The days a forecast request asks for: ``start_date``..``end_date``, else
    ``forecast_days`` days from ``today`` (Open-Meteo's default is 7)."""
    if "start_date" in query:
        start = dt.date.fromisoformat(query["start_date"])
        end = dt.date.fromisoformat(query.get("end_date", query["start_date"]))
        return [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]
    return [today + dt.timedelta(days=i) for i in range(int(query.get("forecast_days", "7")))]


def _forecast(query: dict[str, str]) -> dict[str, Any]:
    today = dt.date.today()
    days = forecast_days(query, today)
    offsets = [(day - today).days % 16 for day in days]  # each date has fixed weather
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
            "time": [day.isoformat() for day in days],
            "weather_code": [CODES[i % len(CODES)] for i in offsets],
            "temperature_2m_max": [14.0 + i for i in offsets],
            "temperature_2m_min": [6.0 + i for i in offsets],
            "precipitation_probability_max": [(20 * i) % 100 for i in offsets],
            "precipitation_sum": [1.5 * (i % 3) for i in offsets],
            "wind_speed_10m_max": [12.0 for _ in offsets],
        },
    }  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/v1/search":
            body: dict[str, Any] = {"results": [_place(query.get("name", "x"))]}
        elif parts.path == "/v1/forecast":
            try:
                body = _forecast(query)
            except ValueError as exc:
                self.send_error(400, str(exc))
                return
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


@contextmanager
def fake_open_meteo() -> Iterator[str]:
    """A loopback Open-Meteo for the weather tool; yields its base URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, name="fake-open-meteo", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


# --- the shell's files ------------------------------------------------------------------


def shell_root(root: Path) -> Path:
    """The files the shell tool (and its wrappers) can see; prompts ask about them."""
    (root / "logs").mkdir(parents=True, exist_ok=True)
    (root / "notes.txt").write_text("Buy a new servo.\nCalibrate the LED strip.\n")
    (root / "todo.md").write_text("# Todo\n- milk\n- solder the header\n- milk again\n")
    (root / "data.csv").write_text("t,temp\n" + "".join(f"{i},{20 + i % 5}\n" for i in range(40)))
    (root / "logs" / "app.log").write_text("".join(f"line {i}: ok\n" for i in range(30)))
    return root


# --- the config -------------------------------------------------------------------------


def merge_overrides(
    data: dict[str, Any], overrides: Overrides, *, strict: bool, where: str = ""
) -> dict[str, Any]:
    """``data`` with ``overrides`` merged in (a new dict). With ``strict``, every key must
    already exist in ``data``, except inside a ``plugins.<name>`` table, whose keys the
    plugin's own options model checks when the tools load. Callable leaves receive the
    current value."""
    merged = dict(data)
    for key, value in overrides.items():
        path = f"{where}.{key}" if where else key
        if strict and key not in merged:
            known = ", ".join(sorted(merged)) or "none"
            raise UnknownOverrideError(
                f"override {path!r} names a key that the config model does not have "
                f"(keys here: {known}); check its spelling against the config model"
            )
        current = merged.get(key)
        if isinstance(value, Mapping):
            if current is not None and not isinstance(current, dict):
                raise UnknownOverrideError(f"override {path!r} is a table, but the key is a value")
            inner_strict = strict and where != "plugins"  # plugins.<name>.<key>: plugin checks
            merged[key] = merge_overrides(current or {}, value, strict=inner_strict, where=path)
        elif callable(value):
            merged[key] = value(current)
        else:
            merged[key] = value
    return merged


def offline_config(
    *, weather_url: str, shell_dir: Path, overrides: Overrides | None = None
) -> Config:
    """The shipped config, offline, with a variant's ``overrides`` (strictly checked)."""
    shipped = load_config(SHIPPED_CONFIG, env={})  # the file as shipped, no EDGEAGENT_ vars
    data = shipped.model_dump()
    data = merge_overrides(data, overrides or {}, strict=True)
    data = merge_overrides(
        data,
        {
            "plugins": {
                "led": {"backend": "mock"},
                "servo": {"backend": "mock"},
                "weather": {"geocoding_url": weather_url, "forecast_url": weather_url},
                "shell": {"roots": [str(shell_dir)]},
            }
        },
        strict=False,
    )
    config = Config.model_validate(data)
    config.source = shipped.source  # wrapped_dir stays the shipped config/tools.d
    return config


@dataclass
class OfflineTools:
    tools: ToolSet
    config: Config
    shell_root: Path


@contextmanager
def offline_tools(workdir: Path, overrides: Overrides | None = None) -> Iterator[OfflineTools]:
    """The shipped tool set, offline; fails when a plugin or a ``.tool`` file did not load."""
    with fake_open_meteo() as url:
        root = shell_root(workdir / "files")
        config = offline_config(weather_url=url, shell_dir=root, overrides=overrides)
        toolset = build_tools(config)
        try:
            problems = [f"{k}: {v}" for k, v in toolset.report.failed.items()]
            problems += toolset.wrapped_errors
            if problems:
                raise RuntimeError(f"the shipped tools did not all load: {'; '.join(problems)}")
            yield OfflineTools(toolset, config, root)
        finally:
            toolset.close()
