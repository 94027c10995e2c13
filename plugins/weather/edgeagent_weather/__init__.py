"""The ``weather`` tool: a daily forecast from Open-Meteo (no API key).

Options (``[plugins.weather]``): ``units`` (metric|imperial), ``geocoding_url`` and
``forecast_url`` (point them at a mirror or a test server), ``timeout_s``,
``cache_ttl_s``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from edgeagent.plugin import PluginContext, Register, hookimpl
from edgeagent_weather.service import OpenMeteo


class WeatherOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    units: Literal["metric", "imperial"] = "metric"
    geocoding_url: str = "https://geocoding-api.open-meteo.com"
    forecast_url: str = "https://api.open-meteo.com"
    timeout_s: float = Field(5.0, gt=0, le=60)
    cache_ttl_s: float = Field(600.0, ge=0)


def build_service(options: WeatherOptions) -> OpenMeteo:
    return OpenMeteo(
        units=options.units,
        geocoding_url=options.geocoding_url,
        forecast_url=options.forecast_url,
        timeout_s=options.timeout_s,
        cache_ttl_s=options.cache_ttl_s,
    )


@hookimpl
def register_tools(register: Register, context: PluginContext) -> None:
    service = build_service(context.options_as(WeatherOptions))
    context.on_close(service.close)
    register(service.as_tool())
