"""Thirty-two tools of the kind remote MCP servers bring, for the many-tools variants.

Modelled on what Home Assistant's MCP server exposes (its Assist intents: HassTurnOn,
HassLightSet, timers, lists, media, climate...) and on common MCP servers (time, fetch,
memory/notes, web search, calendar, email). Each is registered as a remote tool would
be (``plugin = "mcp:<server>"``, so tool selection treats it as remote) and returns a
plausible fixed result: they are not the devices under judgement. The judge gives each
its own family, so a call to one on an LED, servo, weather, shell or math turn is the
wrong tool.

Left out on purpose: a remote weather tool (Home Assistant's HassGetWeather) and a
remote calculator or file reader, which would serve the first-party turns as well as
the local tools do, so that the judge could not score those turns honestly.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from edgeagent.plugin import Tool, make_tool, tool
from edgeagent.tools.registry import ToolRegistry

Name = Annotated[str, Field(description="Name of the device or entity")]
Area = Annotated[str, Field(description="Name of the area (room)")]
Floor = Annotated[str, Field(description="Name of the floor")]
Domain = Annotated[list[str], Field(description="Entity domains, e.g. light, switch, cover")]


def _done(action: str, **what: Any) -> dict[str, Any]:
    target = {k: v for k, v in what.items() if v not in (None, "", [])}
    return {"success": True, "action": action, "targets": target or "all matching"}


# --- Home Assistant (mcp:homeassistant) -------------------------------------------------


@tool(kind="act")
def HassTurnOn(
    name: Name = "", area: Area = "", floor: Floor = "", domain: Domain | None = None
) -> dict[str, Any]:
    """Turns on, opens or presses a device or entity; for locks, locks it."""
    return _done("turn_on", name=name, area=area, floor=floor, domain=domain)


@tool(kind="act")
def HassTurnOff(
    name: Name = "", area: Area = "", floor: Floor = "", domain: Domain | None = None
) -> dict[str, Any]:
    """Turns off, closes or unlocks a device or entity."""
    return _done("turn_off", name=name, area=area, floor=floor, domain=domain)


@tool(kind="act")
def HassLightSet(
    name: Name = "",
    area: Area = "",
    brightness: Annotated[int, Field(ge=0, le=100, description="Brightness percent")] = 100,
    color: Annotated[str, Field(description="Color name")] = "",
    temperature: Annotated[int, Field(description="Color temperature in kelvin")] = 0,
) -> dict[str, Any]:
    """Sets the brightness, color or color temperature of a Home Assistant light."""
    return _done("light_set", name=name, area=area, brightness=brightness, color=color)


@tool(kind="act")
def HassClimateSetTemperature(
    temperature: Annotated[float, Field(description="Target temperature")],
    name: Name = "",
    area: Area = "",
) -> dict[str, Any]:
    """Sets the target temperature of a climate device (thermostat, heater, AC)."""
    return _done("climate_set_temperature", name=name, area=area, temperature=temperature)


@tool
def HassClimateGetTemperature(name: Name = "", area: Area = "") -> dict[str, Any]:
    """Gets the current temperature of a climate device or area."""
    return {"area": area or "Living room", "current_temperature": 21.5, "unit": "°C"}


@tool(kind="act")
def HassFanSetSpeed(
    percentage: Annotated[int, Field(ge=0, le=100, description="Fan speed percent")],
    name: Name = "",
    area: Area = "",
) -> dict[str, Any]:
    """Sets a fan's speed by percentage."""
    return _done("fan_set_speed", name=name, area=area, percentage=percentage)


@tool(kind="act")
def HassSetPosition(
    position: Annotated[int, Field(ge=0, le=100, description="Position percent")],
    name: Name = "",
    area: Area = "",
) -> dict[str, Any]:
    """Sets the position of a cover or valve (blinds, curtains, shutters, garage door)."""
    return _done("set_position", name=name, area=area, position=position)


@tool(kind="act")
def HassStartTimer(
    hours: Annotated[int, Field(ge=0)] = 0,
    minutes: Annotated[int, Field(ge=0)] = 0,
    seconds: Annotated[int, Field(ge=0)] = 0,
    name: Annotated[str, Field(description="Name of the timer")] = "",
) -> dict[str, Any]:
    """Starts a new timer."""
    return _done("start_timer", hours=hours, minutes=minutes, seconds=seconds, name=name)


@tool(kind="act")
def HassCancelTimer(
    name: Annotated[str, Field(description="Name of the timer")] = "",
) -> dict[str, Any]:
    """Cancels a timer."""
    return _done("cancel_timer", name=name)


@tool(kind="act")
def HassIncreaseTimer(
    minutes: Annotated[int, Field(ge=0)] = 0,
    seconds: Annotated[int, Field(ge=0)] = 0,
    name: Annotated[str, Field(description="Name of the timer")] = "",
) -> dict[str, Any]:
    """Adds time to a running timer."""
    return _done("increase_timer", minutes=minutes, seconds=seconds, name=name)


@tool
def HassTimerStatus(
    name: Annotated[str, Field(description="Name of the timer")] = "",
) -> dict[str, Any]:
    """Reports the status of the running timers."""
    return {"timers": [{"name": name or "pasta", "remaining": "00:07:12"}]}


@tool(kind="act")
def HassListAddItem(
    item: Annotated[str, Field(description="The item to add")],
    name: Annotated[str, Field(description="Name of the list, e.g. Shopping List")],
) -> dict[str, Any]:
    """Adds an item to a todo list or shopping list."""
    return _done("list_add_item", item=item, list=name)


@tool(kind="act")
def HassListCompleteItem(
    item: Annotated[str, Field(description="The item to check off")],
    name: Annotated[str, Field(description="Name of the list")],
) -> dict[str, Any]:
    """Checks off an item on a todo list or shopping list."""
    return _done("list_complete_item", item=item, list=name)


@tool
def todo_get_items(
    todo_list: Annotated[str, Field(description="Name of the list")],
) -> dict[str, Any]:
    """Gets the items on a Home Assistant todo list or shopping list."""
    return {"list": todo_list, "items": ["batteries", "coffee beans", "light bulbs"]}


@tool(kind="act")
def HassMediaPause(name: Name = "", area: Area = "") -> dict[str, Any]:
    """Pauses a media player."""
    return _done("media_pause", name=name, area=area)


@tool(kind="act")
def HassMediaUnpause(name: Name = "", area: Area = "") -> dict[str, Any]:
    """Resumes a paused media player."""
    return _done("media_unpause", name=name, area=area)


@tool(kind="act")
def HassMediaNext(name: Name = "", area: Area = "") -> dict[str, Any]:
    """Skips a media player to the next item."""
    return _done("media_next", name=name, area=area)


@tool(kind="act")
def HassSetVolume(
    volume_level: Annotated[int, Field(ge=0, le=100, description="Volume percent")],
    name: Name = "",
    area: Area = "",
) -> dict[str, Any]:
    """Sets the volume of a media player."""
    return _done("set_volume", name=name, area=area, volume_level=volume_level)


@tool(kind="act")
def HassVacuumStart(name: Name = "", area: Area = "") -> dict[str, Any]:
    """Starts a vacuum cleaner."""
    return _done("vacuum_start", name=name, area=area)


@tool(kind="act")
def HassVacuumReturnToBase(name: Name = "") -> dict[str, Any]:
    """Sends a vacuum cleaner back to its dock."""
    return _done("vacuum_return_to_base", name=name)


@tool(kind="act")
def HassBroadcast(
    message: Annotated[str, Field(description="What to announce")],
) -> dict[str, Any]:
    """Announces a message on the speakers of the house."""
    return _done("broadcast", message=message)


@tool
def GetLiveContext() -> dict[str, Any]:
    """Gets the live state of the home's devices and sensors (on/off, open/closed,
    temperatures) for questions about their current state."""
    return {
        "Kitchen light": "on",
        "Garage door": "closed",
        "Front door lock": "locked",
        "Living room thermostat": {"current": 21.5, "target": 21},
    }


# --- time (mcp:time) -------------------------------------------------------------------


@tool
def get_current_time(
    timezone: Annotated[str, Field(description="IANA timezone, e.g. Europe/London")],
) -> dict[str, Any]:
    """Gets the current time in a timezone."""
    return {"timezone": timezone, "datetime": "2026-11-25T09:41:00", "is_dst": False}


@tool
def convert_time(
    source_timezone: Annotated[str, Field(description="IANA timezone of the time given")],
    time: Annotated[str, Field(description="Time in 24-hour format, HH:MM")],
    target_timezone: Annotated[str, Field(description="IANA timezone to convert to")],
) -> dict[str, Any]:
    """Converts a time between timezones."""
    return {"source": {"timezone": source_timezone, "time": time},
            "target": {"timezone": target_timezone, "time": "17:00"}}  # fmt: skip


# --- fetch, search, memory, calendar, email -----------------------------------------------


@tool
def fetch(
    url: Annotated[str, Field(description="URL to fetch")],
    max_length: Annotated[int, Field(ge=1, le=100000)] = 5000,
) -> str:
    """Fetches a URL from the internet and returns its content as markdown."""
    return "# Example Domain\nThis domain is for use in illustrative examples."


@tool
def web_search(
    query: Annotated[str, Field(description="Search query")],
    count: Annotated[int, Field(ge=1, le=20)] = 5,
) -> dict[str, Any]:
    """Searches the web and returns titles, links and snippets."""
    return {"results": [{"title": "Example result", "url": "https://example.com"}]}


@tool
def wikipedia_summary(
    topic: Annotated[str, Field(description="Article title or topic")],
) -> dict[str, Any]:
    """Gets the summary of a Wikipedia article."""
    return {"title": topic, "summary": "A summary of the article."}


@tool(kind="act")
def create_note(
    heading: Annotated[str, Field(description="Heading of the note")],
    content: Annotated[str, Field(description="Text of the note")],
) -> dict[str, Any]:
    """Saves a note to the notes store."""
    return {"saved": True, "heading": heading}


@tool
def search_notes(query: Annotated[str, Field(description="Words to look for")]) -> list[Any]:
    """Searches saved notes."""
    return [{"title": "Ideas", "snippet": "a robot arm for the camera"}]


@tool
def calendar_list_events(
    start: Annotated[str, Field(description="Start date, YYYY-MM-DD")] = "",
    end: Annotated[str, Field(description="End date, YYYY-MM-DD")] = "",
) -> dict[str, Any]:
    """Lists the events on the user's calendar between two dates."""
    return {"events": [{"title": "Dentist", "start": "2026-11-25T15:00"}]}


@tool(kind="act")
def calendar_create_event(
    summary: Annotated[str, Field(description="What the event is")],
    start: Annotated[str, Field(description="Start, YYYY-MM-DDTHH:MM")],
    duration_minutes: Annotated[int, Field(ge=1)] = 60,
) -> dict[str, Any]:
    """Creates an event on the user's calendar (appointments, reminders)."""
    return {"created": True, "summary": summary, "start": start}


@tool(kind="act")
def send_email(
    to: Annotated[str, Field(description="Recipient address")],
    subject: str,
    body: str,
) -> dict[str, Any]:
    """Sends an email."""
    return {"sent": True, "to": to}


SERVERS: dict[str, list[Any]] = {
    "homeassistant": [
        HassTurnOn, HassTurnOff, HassLightSet, HassClimateSetTemperature,
        HassClimateGetTemperature, HassFanSetSpeed, HassSetPosition, HassStartTimer,
        HassCancelTimer, HassIncreaseTimer, HassTimerStatus, HassListAddItem,
        HassListCompleteItem, todo_get_items, HassMediaPause, HassMediaUnpause,
        HassMediaNext, HassSetVolume, HassVacuumStart, HassVacuumReturnToBase,
        HassBroadcast, GetLiveContext,
    ],
    "time": [get_current_time, convert_time],
    "fetch": [fetch],
    "search": [web_search, wikipedia_summary],
    "memory": [create_note, search_notes],
    "calendar": [calendar_list_events, calendar_create_event],
    "email": [send_email],
}  # fmt: skip


def extra_tools() -> list[Tool]:
    """The tools, each from its server's plugin (``mcp:<server>``)."""
    return [
        make_tool(func, plugin=f"mcp:{server}")
        for server, funcs in SERVERS.items()
        for func in funcs
    ]


def add_extra_tools(registry: ToolRegistry) -> int:
    """Add the tools to ``registry``; how many."""
    tools = extra_tools()
    for extra in tools:
        registry.add(extra)
    return len(tools)
