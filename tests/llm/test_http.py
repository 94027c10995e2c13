"""The HTTP engine against a real llama.cpp OpenAI server and a replayed Ollama server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from edgeagent.agent.events import FinalAnswer
from edgeagent.compose import build_agent, build_llm
from edgeagent.config import Config
from edgeagent.errors import BackendUnavailableError, LLMError, ModelNotFoundError
from edgeagent.llm.base import Engine, GenerateRequest, Message
from edgeagent.llm.http import HTTPEngine
from edgeagent.llm.select import create_engine, select_engine_spec
from edgeagent.tools import tool, tools_from
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from tests.loopback import free_port

DATA = Path(__file__).parent / "data"
ASK: list[Message] = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is the capital of France?"},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "set_led",
            "description": "Set the LED colour.",
            "parameters": {"type": "object", "properties": {"color": {"type": "string"}}},
        },
    }
]


def collect(engine: HTTPEngine, **kw: Any) -> list[str]:
    request = GenerateRequest(messages=kw.pop("messages", ASK), **kw)
    return list(engine.generate(request, cancelled=lambda: False))


# --- Ollama /api/chat: recorded streams replayed byte for byte ------------------------------


class OllamaReplay:
    """A loopback Ollama: the request's model name picks the recording it replays."""

    recordings: ClassVar[dict[str, str]] = {
        "qwen2.5-coder:1.5b": "ollama_chat_plain.ndjson",
        "tool-caller": "ollama_chat_tool_calls.ndjson",
        "broken": "ollama_chat_malformed.ndjson",
    }

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                replay.requests.append({"path": self.path, **body})
                model = body["model"]
                if model == "tool-then-answer":  # a call, then an answer to its result
                    last = body["messages"][-1]["role"]
                    model = "qwen2.5-coder:1.5b" if last == "tool" else "tool-caller"
                if model == "no-tools" and "tools" in body:
                    error = b'{"error":"registry.ollama.ai/library/no-tools:latest '
                    error += b'does not support tools"}'
                    self._send(400, "application/json; charset=utf-8", error)
                elif model == "no-tools":
                    self._send(
                        200,
                        "application/x-ndjson",
                        (DATA / replay.recordings["qwen2.5-coder:1.5b"]).read_bytes(),
                    )
                elif model in replay.recordings:
                    self._send(
                        200, "application/x-ndjson", (DATA / replay.recordings[model]).read_bytes()
                    )
                else:
                    self._send(
                        404,
                        "application/json; charset=utf-8",
                        (DATA / "ollama_chat_404.json").read_bytes(),
                    )

            def _send(self, status: int, kind: str, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join()


@pytest.fixture
def ollama() -> Iterator[OllamaReplay]:
    replay = OllamaReplay()
    yield replay
    replay.close()


def ollama_engine(replay: OllamaReplay, model: str = "qwen2.5-coder:1.5b", **kw: Any) -> HTTPEngine:
    return HTTPEngine(api="ollama", base_url=replay.base_url, model=model, **kw)


def test_ollama_streams_the_recorded_answer_piece_by_piece(ollama: OllamaReplay) -> None:
    with ollama_engine(ollama) as engine:
        assert isinstance(engine, Engine)
        pieces = collect(engine, max_tokens=42, stop=("\n\n",))
    assert pieces == ["The", " capital", " of", " France", " is", " Paris", "."]
    (sent,) = ollama.requests
    assert sent["path"] == "/api/chat" and sent["stream"] is True
    assert sent["messages"] == ASK
    assert sent["options"] == {"temperature": 0.0, "num_predict": 42, "stop": ["\n\n"]}


def test_a_read_ahead_sends_the_server_nothing(ollama: OllamaReplay) -> None:
    with ollama_engine(ollama) as engine:
        assert collect(engine, ahead=True) == []
    assert ollama.requests == []  # the server keeps (or does not keep) its own cache


def test_ollama_native_tool_calls_become_canonical_call_text(ollama: OllamaReplay) -> None:
    with ollama_engine(ollama, "tool-caller", native_tools="auto") as engine:
        text = "".join(collect(engine, tools=TOOLS))
        assert engine.status().extra["native_tools"] == "on"
    assert text.startswith("<tool_call>") and text.endswith("</tool_call>")
    call = json.loads(text.removeprefix("<tool_call>").removesuffix("</tool_call>"))
    assert call == {"name": "set_led", "arguments": {"color": "red", "brightness": 0.8}}
    assert ollama.requests[0]["tools"] == TOOLS


def test_ollama_replays_earlier_calls_natively(ollama: OllamaReplay) -> None:
    history: list[Message] = [
        *ASK,
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "set_led", "arguments": {"color": "red"}}</tool_call>',
        },
        {"role": "tool", "content": '{"ok": true}'},
    ]
    with ollama_engine(ollama, native_tools="on") as engine:
        collect(engine, messages=history, tools=TOOLS)
    sent = ollama.requests[0]["messages"]
    assert sent[2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "set_led", "arguments": {"color": "red"}}}],
    }
    assert sent[3] == {"role": "tool", "content": '{"ok": true}'}


def test_auto_tools_fall_back_to_text_once_refused_and_remember(ollama: OllamaReplay) -> None:
    with ollama_engine(ollama, "no-tools", native_tools="auto") as engine:
        assert "".join(collect(engine, tools=TOOLS)) == "The capital of France is Paris."
        collect(engine, tools=TOOLS)
        assert engine.status().extra["native_tools"] == "off"
    assert ["tools" in r for r in ollama.requests] == [True, False, False]


def test_ollama_tools_refused_with_native_on_is_an_error(ollama: OllamaReplay) -> None:
    with (
        ollama_engine(ollama, "no-tools", native_tools="on") as engine,
        pytest.raises(LLMError, match=r"HTTP 400.*does not support tools"),
    ):
        collect(engine, tools=TOOLS)


def test_ollama_malformed_stream_names_the_url(ollama: OllamaReplay) -> None:
    with ollama_engine(ollama, "broken") as engine:
        pieces: list[str] = []
        with pytest.raises(LLMError, match="malformed stream line") as info:
            for piece in engine.generate(GenerateRequest(messages=ASK), cancelled=lambda: False):
                pieces.append(piece)
    assert pieces == ["Sure", ","]
    assert f"{ollama.base_url}/api/chat" in str(info.value)


def test_ollama_unknown_model_is_model_not_found(ollama: OllamaReplay) -> None:
    with ollama_engine(ollama, "qwen9:7b") as engine, pytest.raises(ModelNotFoundError) as info:
        collect(engine)
    message = str(info.value)
    assert (
        "404" in message and 'model "qwen9:7b" not found' in message and ollama.base_url in message
    )


def test_connection_refused_names_the_url() -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with (
        HTTPEngine(api="ollama", base_url=url, model="m") as engine,
        pytest.raises(BackendUnavailableError, match=rf"127\.0\.0\.1:{port}/api/chat"),
    ):
        collect(engine)


def test_the_config_builds_the_engine_and_its_status() -> None:
    """[llm.http] reaches the engine through the one path the daemon takes."""
    config = Config.model_validate(
        {
            "llm": {
                "backend": "http",
                "http": {
                    "api": "openai",
                    "base_url": "http://h:1/v1",
                    "model": "x",
                    "native_tools": "off",
                },
            }
        }
    )
    engine = create_engine(select_engine_spec(config))
    assert isinstance(engine, HTTPEngine)
    with engine:
        status = engine.status()
        assert engine.url == "http://h:1/v1/chat/completions"
        assert status.context_window == 2048 and status.extra["native_tools"] == "off"
        assert "estimate" in status.extra["token_count"]
        assert engine.count_tokens(ASK) > engine.count_tokens(ASK[:1])


def test_earlier_calls_in_any_call_format_are_replayed_natively(ollama: OllamaReplay) -> None:
    # The history holds calls as the agent's call format renders them (fence here).
    fence = '```json\n{"name": "set_led", "arguments": {"color": "red"}}\n```'
    history: list[Message] = [
        *ASK,
        {"role": "assistant", "content": f"On it.\n{fence}"},
        {"role": "tool", "content": '{"ok": true}'},
    ]
    with ollama_engine(ollama, native_tools="on") as engine:
        collect(engine, messages=history, tools=TOOLS)
    assert ollama.requests[0]["messages"][2] == {
        "role": "assistant",
        "content": "On it.",
        "tool_calls": [{"function": {"name": "set_led", "arguments": {"color": "red"}}}],
    }


# --- [llm.http] native_tools through the agent that compose builds --------------------------


class Led:
    def __init__(self) -> None:
        self.commands: list[tuple[str, float]] = []

    @tool
    def set_led(self, color: str, brightness: float = 1.0) -> str:
        """Set the LED colour."""
        self.commands.append((color, brightness))
        return f"LED {color} at {brightness:.0%}"


def agent_turn(ollama: OllamaReplay, model: str, native_tools: str, led: Led) -> FinalAnswer:
    config = Config.model_validate(
        {
            "llm": {
                "backend": "http",
                "http": {"base_url": ollama.base_url, "model": model, "native_tools": native_tools},
            },
            "agent": {"check_target": False},
        }
    )
    registry = ToolRegistry(tools_from(led))
    llm = build_llm(config, in_process=True)
    agent = build_agent(config, llm=llm, executor=ToolExecutor(registry), registry=registry)

    async def main() -> FinalAnswer:
        try:
            conversation = agent.new_conversation()
            events = [
                e async for e in agent.run("LED red", conversation=conversation, frontend="cli")
            ]
        finally:
            await llm.aclose()
        assert isinstance(events[-1], FinalAnswer), events
        return events[-1]

    return asyncio.run(main())


@pytest.mark.parametrize("setting", ["auto", "on"])
def test_native_tools_send_the_enabled_tools_and_the_native_call_runs(
    ollama: OllamaReplay, setting: str
) -> None:
    led = Led()
    answer = agent_turn(ollama, "tool-then-answer", setting, led)
    assert led.commands == [("red", 0.8)]  # the server's native call ran the tool
    assert answer.text == "The capital of France is Paris."
    first, second = ollama.requests
    assert first["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "set_led",
                "description": "Set the LED colour.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "color": {"type": "string"},
                        "brightness": {"type": "number", "default": 1.0},
                    },
                    "required": ["color"],
                },
            },
        }
    ]
    call = {"function": {"name": "set_led", "arguments": {"color": "red", "brightness": 0.8}}}
    assert second["messages"][-2]["tool_calls"] == [call]
    assert second["messages"][-1] == {
        "role": "tool",
        "content": '{"ok": true, "result": "LED red at 80%"}',
    }


def test_native_tools_off_sends_no_tools(ollama: OllamaReplay) -> None:
    answer = agent_turn(ollama, "qwen2.5-coder:1.5b", "off", Led())
    assert answer.text == "The capital of France is Paris."
    assert ollama.requests and not any("tools" in r for r in ollama.requests)


# --- OpenAI /v1/chat/completions: a real llama.cpp server ------------------------------------


@pytest.fixture(scope="module")
def llama_server(smollm2_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("uvicorn")
    pytest.importorskip("sse_starlette")
    port = free_port()
    log = (tmp_path_factory.mktemp("server") / "server.log").open("wb")
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2"]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {process.returncode}; see {log.name}")
            try:
                if httpx.get(f"{base_url}/v1/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"llama_cpp.server did not answer /v1/models within 60 s; see {log.name}"
                )
            time.sleep(0.25)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.mark.model
def test_openai_server_streams_a_chat(llama_server: str) -> None:
    with HTTPEngine(
        api="openai", base_url=llama_server, model="smollm2", native_tools="off"
    ) as engine:
        pieces = collect(engine, max_tokens=24)
    assert len(pieces) > 3
    assert "".join(pieces).strip()


@pytest.mark.model
def test_openai_server_honours_stop_and_cancel(llama_server: str) -> None:
    with HTTPEngine(api="openai", base_url=llama_server + "/v1", model="smollm2") as engine:
        counting: list[Message] = [
            {"role": "user", "content": "Count from 1 to 20, separated by commas."}
        ]
        text = "".join(collect(engine, messages=counting, max_tokens=64, stop=("5",)))
        assert "5" not in text and "4" in text
        seen: list[str] = []
        request = GenerateRequest(messages=counting, max_tokens=64)
        for piece in engine.generate(request, cancelled=lambda: len(seen) >= 2):
            seen.append(piece)
        assert len(seen) == 2
        assert collect(engine, messages=counting, max_tokens=4)  # the connection is reusable


@pytest.mark.model
def test_openai_wrong_path_is_an_error_with_status_and_url(llama_server: str) -> None:
    with (
        HTTPEngine(api="openai", base_url=llama_server + "/nope", model="smollm2") as engine,
        pytest.raises(LLMError, match=r"/nope/v1/chat/completions answered HTTP 404"),
    ):
        collect(engine)
