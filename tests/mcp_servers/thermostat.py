"""A small MCP server written with the SDK's ``MCPServer``, for the client tests.

It runs as its own process, over stdio (the default) or streamable HTTP (``--port``),
and appends every call it really receives to ``--record`` (one JSON line each), so a
test reads what reached the server, not what the client meant to send.

Tools: a thermostat (``room_temperature`` is read-only, ``set_heating`` acts, with a
range), ``weather`` (a name edgeagent's weather plugin has too), ``lamp`` (no
annotations: unknown, so an acting tool), ``always_fails`` (a
tool error, ``isError``), ``hang`` (never answers) and ``crash`` (the process exits in
the middle of the call). ``--exit-after S`` makes the whole server exit S seconds after
it starts; ``--token-file`` makes the HTTP endpoint refuse requests without
``Authorization: Bearer <the file's text>``.

    python -m tests.mcp_servers.thermostat --port 8123 --record calls.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import threading
import time
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field


def build_server(record: Path | None) -> MCPServer:
    server = MCPServer("thermostat", log_level="CRITICAL")  # tool errors are expected
    targets: dict[str, float] = {"kitchen": 19.0}

    def note(tool: str, arguments: dict[str, Any]) -> None:
        if record is not None:
            with record.open("a", encoding="utf-8") as out:
                out.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def room_temperature(room: str) -> dict[str, Any]:
        """Read the temperature of a room, in degrees Celsius."""
        note("room_temperature", {"room": room})
        return {"room": room, "celsius": 21.5, "target": targets.get(room)}

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=True))
    def set_heating(
        room: str,
        celsius: Annotated[float, Field(ge=5, le=30, description="Target temperature")],
    ) -> str:
        """Set the target temperature of a room's heating."""
        note("set_heating", {"room": room, "celsius": celsius})
        targets[room] = celsius
        return f"heating in the {room} set to {celsius:g} °C"

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def weather() -> dict[str, Any]:
        """The weather at the house (edgeagent has a tool of that name too)."""
        note("weather", {})
        return {"outside_celsius": 4.0}

    @server.tool()
    def lamp(on: bool) -> str:
        """Switch the hall lamp."""
        note("lamp", {"on": on})
        return "the hall lamp is " + ("on" if on else "off")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def always_fails() -> str:
        """A sensor that is unplugged."""
        note("always_fails", {})
        raise RuntimeError("the sensor is unplugged")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def hang() -> str:
        """A sensor that never answers."""
        note("hang", {})
        await asyncio.sleep(3600)
        return "never"

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def crash() -> str:
        """A sensor whose server dies when it is read."""
        note("crash", {})
        os._exit(3)

    return server


def _require_token(app: Any, token: str) -> Any:
    """The app, behind a check of ``Authorization: Bearer <token>``."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"bad token"})
            return
        await app(scope, receive, send)

    return guarded


def _exit_after(seconds: float) -> None:
    def stop() -> None:
        time.sleep(seconds)
        os._exit(4)

    threading.Thread(target=stop, daemon=True).start()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, help="serve streamable HTTP on 127.0.0.1:PORT")
    parser.add_argument("--token-file", type=Path)
    parser.add_argument("--record", type=Path)
    parser.add_argument("--exit-after", type=float)
    args = parser.parse_args()
    server = build_server(args.record)
    if args.exit_after is not None:
        _exit_after(args.exit_after)
    if args.port is None:
        server.run("stdio")
        return
    import uvicorn

    app = server.streamable_http_app()
    if args.token_file is not None:
        app = _require_token(app, args.token_file.read_text().strip())
    uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=args.port, log_level="warning")).run()


if __name__ == "__main__":
    main()
