"""An engine that streams from a model server over HTTP.

Two wire protocols:

* ``ollama``: ``POST /api/chat``, newline-delimited JSON. Ollama itself and Hailo's
  ``hailo-ollama`` (port 8000, the Hailo-10H's second way in) speak it.
* ``openai``: ``POST /v1/chat/completions`` with ``stream: true``, server-sent events.
  llama.cpp's servers, vLLM and most others speak it.

The server holds the whole model and its context, so every request sends the whole
conversation. Tools go to the server natively when it supports them
(``native_tools``); native tool calls that come back are rendered as canonical call text
(the json call format, in the call format's tags) so the agent's parser sees one format
whichever way the model called, and earlier calls in the history are read with the
call format's parser and replayed natively. The server's tokenizer is not asked:
``count_tokens`` estimates four characters per token (``status().extra`` says so).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import httpx

from edgeagent.errors import (
    BackendUnavailableError,
    GenerationTimeoutError,
    LLMError,
    ModelNotFoundError,
)
from edgeagent.llm.base import CancelCheck, EngineStatus, GenerateRequest, Message
from edgeagent.tools.calls import CALL_TAGS, get_call_format
from edgeagent.tools.executor import ToolCall

API = Literal["ollama", "openai"]
_BODY_EXCERPT = 300


def _error_text(body: str) -> str:
    """The message in a JSON error body (Ollama and OpenAI shapes), else the body."""
    try:
        data = json.loads(body)
    except ValueError:
        return body
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        error = error.get("message")
    return error if isinstance(error, str) else body


class _ToolsRejected(Exception):
    """The server answered 400 to a request that carried native tools."""


class HTTPEngine:
    """A model behind an Ollama or OpenAI-compatible HTTP server."""

    name = "http"

    def __init__(
        self,
        *,
        api: API = "ollama",
        base_url: str = "http://127.0.0.1:8000",
        model: str,
        api_key: str | None = None,
        connect_timeout_s: float = 5.0,
        read_timeout_s: float = 120.0,
        native_tools: Literal["auto", "on", "off"] = "auto",
        context_window: int = 2048,
        call_tags: tuple[str, str] = CALL_TAGS,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if api not in ("ollama", "openai"):
            raise ValueError(f"api must be 'ollama' or 'openai', not {api!r}")
        self.api: API = api
        self.model = model
        self._read_timeout_s = read_timeout_s
        self._native_tools = native_tools
        self._tools_ok: bool | None = {"on": True, "off": False}.get(native_tools)
        self._context_window = context_window
        self._calls = get_call_format("json", open_tag=call_tags[0], close_tag=call_tags[1])
        base = base_url.rstrip("/")
        if api == "ollama":
            self.url = base + "/api/chat"
        else:
            self.url = base + (
                "/chat/completions" if base.endswith("/v1") else "/v1/chat/completions"
            )
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            timeout=httpx.Timeout(read_timeout_s, connect=connect_timeout_s),
            headers=headers,
            transport=transport,
        )
        self._closed = False

    # --- requests ------------------------------------------------------------------------

    def _messages(self, messages: Sequence[Message], native: bool) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        ids: list[str] = []
        for message in messages:
            role, content = message["role"], message["content"]
            entry: dict[str, Any] = {"role": role, "content": content}
            if native and role == "assistant":
                parsed = self._calls.parse(content)
                if parsed.calls:
                    entry["content"] = parsed.text
                    entry["tool_calls"] = [self._native_call(c, ids) for c in parsed.calls]
            elif role == "tool" and self.api == "openai":
                if native and ids:
                    entry["tool_call_id"] = ids.pop(0)
                else:  # without a call id OpenAI servers refuse role "tool"
                    entry = {"role": "user", "content": f"Tool result: {content}"}
            out.append(entry)
        return out

    def _native_call(self, call: ToolCall, ids: list[str]) -> dict[str, Any]:
        if self.api == "ollama":
            return {"function": {"name": call.name, "arguments": call.arguments}}
        call_id = f"call_{len(ids)}_{call.name}"
        ids.append(call_id)
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }

    def _call_text(self, name: str, arguments: Any) -> str:
        """A native call as the canonical call text the agent's parser reads."""
        if isinstance(arguments, str):  # OpenAI sends arguments as a JSON string
            with contextlib.suppress(ValueError):
                arguments = json.loads(arguments) if arguments.strip() else {}
        # Arguments that are still not an object go on as sent: the agent's parser
        # tells the model what is wrong with them.
        return self._calls.render_call([ToolCall(name=name, arguments=arguments)])

    def _payload(
        self, request: GenerateRequest, tools: Sequence[dict[str, Any]] | None
    ) -> dict[str, Any]:
        messages = self._messages(request.messages, native=tools is not None)
        payload: dict[str, Any] = {"model": self.model, "messages": messages, "stream": True}
        if self.api == "ollama":
            options: dict[str, Any] = {
                "temperature": request.temperature,
                "num_predict": request.max_tokens,
            }
            if request.stop:
                options["stop"] = list(request.stop)
            payload["options"] = options
        else:
            payload.update(temperature=request.temperature, max_tokens=request.max_tokens)
            if request.stop:
                payload["stop"] = list(request.stop)
        if tools:
            payload["tools"] = list(tools)
        return payload

    # --- generation ------------------------------------------------------------------------

    def generate(self, request: GenerateRequest, *, cancelled: CancelCheck) -> Iterator[str]:
        if self._closed:
            raise LLMError(f"the HTTP engine for {self.url} is closed")
        if request.ahead:
            return  # the server keeps (or does not keep) its own cache
        tools = request.tools if request.tools and self._tools_ok is not False else None
        try:
            yield from self._stream(request, tools, cancelled)
        except _ToolsRejected:
            # auto: the server (or this model) has no native tools; the system prompt's
            # text manifest still describes them, so retry without and remember.
            self._tools_ok = False
            yield from self._stream(request, None, cancelled)
        else:
            if tools is not None:
                self._tools_ok = True

    def _stream(
        self,
        request: GenerateRequest,
        tools: Sequence[dict[str, Any]] | None,
        cancelled: CancelCheck,
    ) -> Iterator[str]:
        payload = self._payload(request, tools)
        try:
            with self._client.stream("POST", self.url, json=payload) as response:
                if response.status_code != 200:
                    self._refuse(response, tools_sent=tools is not None)
                lines = response.iter_lines()
                if self.api == "ollama":
                    yield from self._ollama(lines, cancelled)
                else:
                    yield from self._openai(lines, cancelled)
        except httpx.ConnectError as exc:
            raise BackendUnavailableError(
                f"Cannot connect to the model server at {self.url} ({exc}); start it "
                f"(hailo-ollama: `sudo systemctl start hailo-ollama`) or fix [llm.http] base_url"
            ) from exc
        except httpx.ConnectTimeout as exc:
            raise BackendUnavailableError(
                f"Connecting to {self.url} timed out; is the host up? ([llm.http] base_url, "
                f"connect_timeout_s)"
            ) from exc
        except httpx.TimeoutException as exc:
            raise GenerationTimeoutError(
                f"{self.url} sent nothing for {self._read_timeout_s:g} s "
                f"([llm.http] read_timeout_s)"
            ) from exc
        except httpx.HTTPError as exc:
            raise LLMError(f"The model server at {self.url} broke the stream: {exc}") from exc

    def _refuse(self, response: httpx.Response, *, tools_sent: bool) -> None:
        body = response.read().decode("utf-8", "replace")
        excerpt = _error_text(body)[:_BODY_EXCERPT]
        status = response.status_code
        if tools_sent and status == 400 and "tool" in body.lower() and self._native_tools == "auto":
            raise _ToolsRejected(excerpt)
        if status == 404 and "model" in body.lower():
            raise ModelNotFoundError(
                f"{self.url} answered 404: {excerpt}. Pull the model on the server "
                f"(`ollama pull {self.model}`, `hailo-ollama` model list) or fix [llm.http] model"
            )
        raise LLMError(f"{self.url} answered HTTP {status}: {excerpt}")

    def _json(self, line: str) -> dict[str, Any]:
        try:
            data = json.loads(line)
        except ValueError:
            raise LLMError(f"{self.url} sent a malformed stream line: {line[:120]!r}") from None
        if not isinstance(data, dict):
            raise LLMError(f"{self.url} sent a stream line that is not an object: {line[:120]!r}")
        if "error" in data:
            error = data["error"]
            message = error.get("message", error) if isinstance(error, dict) else error
            raise LLMError(f"{self.url} reported an error mid-stream: {message}")
        return data

    def _ollama(self, lines: Iterator[str], cancelled: CancelCheck) -> Iterator[str]:
        done = False
        for line in lines:
            if cancelled():
                return
            if not line.strip():
                continue
            data = self._json(line)
            message = data.get("message") or {}
            if not isinstance(message, dict):
                raise LLMError(f"{self.url} sent a message that is not an object: {line[:120]!r}")
            if message.get("content"):
                yield str(message["content"])
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                yield self._call_text(
                    str(function.get("name", "")), function.get("arguments") or {}
                )
            if data.get("done"):
                done = True
                break
        if not done:
            raise LLMError(f"{self.url} ended the stream before its final (done) message")

    def _openai(self, lines: Iterator[str], cancelled: CancelCheck) -> Iterator[str]:
        calls: dict[int, dict[str, str]] = {}
        finished = False
        for line in lines:
            if cancelled():
                return
            if not line.startswith("data:"):
                continue  # blank separators, comments, event names
            data_text = line[5:].strip()
            if data_text == "[DONE]":
                finished = True
                break
            data = self._json(data_text)
            for choice in data.get("choices") or []:
                delta = choice.get("delta") or {}
                if delta.get("content"):
                    yield str(delta["content"])
                for call in delta.get("tool_calls") or []:
                    slot = calls.setdefault(
                        int(call.get("index", len(calls))), {"name": "", "arguments": ""}
                    )
                    function = call.get("function") or {}
                    slot["name"] += function.get("name") or ""
                    slot["arguments"] += function.get("arguments") or ""
                if choice.get("finish_reason"):
                    finished = True
        for index in sorted(calls):
            yield self._call_text(calls[index]["name"], calls[index]["arguments"])
        if not finished:
            raise LLMError(f"{self.url} ended the stream without [DONE] or a finish_reason")

    # --- accounting and lifetime ---------------------------------------------------------------

    def prime(self, messages: Sequence[Message], *, cancelled: CancelCheck) -> None:
        """The server keeps its own cache (a prompt it saw is reused there)."""

    def count_tokens(self, messages: Sequence[Message]) -> int:
        # An estimate: a tokenizer round trip per budget check costs more than it saves.
        return sum(len(m["content"]) // 4 + 4 for m in messages)

    def status(self) -> EngineStatus:
        return EngineStatus(
            backend=self.name,
            model=self.model,
            context_window=self._context_window,
            extra={
                "api": self.api,
                "url": self.url,
                "native_tools": {None: "auto (untested)", True: "on", False: "off"}[self._tools_ok],
                "token_count": "estimate (4 characters per token)",
            },
        )

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._client.close()

    def __enter__(self) -> HTTPEngine:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()
