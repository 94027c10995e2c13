"""The HTTP client the ``sim`` backends use to talk to the simulator's JSON API.

Every request has a *total* deadline (``timeout_s``), from connecting to the last byte
of the answer. Per-read timeouts are not enough: a server that drips one byte a second
never trips them, and the tool call would hold its device's lock for ever. So each
socket operation waits at most for what is left of the deadline (a network backend of
httpcore's, the library under httpx), and each request has a connection of its own that
is closed when it ends. A tool call fails fast with a useful message when the simulator
is not running or not answering; it never hangs the agent.
"""

from __future__ import annotations

import json
import ssl
import time
from collections.abc import Iterable
from types import TracebackType
from typing import Any

import httpcore

from edgeagent.errors import HardwareError, SimulatorUnreachableError

CONNECT_TIMEOUT_S = 1.0
MAX_RESPONSE_BYTES = 1_000_000
"""Far above any state the simulator sends (1,024 pixels are about 12 kB)."""
WRITE_CHUNK = 4096


class DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read and write ends by ``deadline`` (``time.monotonic``)."""

    def __init__(self, stream: httpcore.NetworkStream, deadline: float) -> None:
        self._stream = stream
        self._deadline = deadline

    def _left(self, timeout: float | None, error: type[Exception]) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise error("the request's deadline passed")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, self._left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        # In chunks, so a peer that reads slowly cannot stretch one write past the deadline.
        for start in range(0, len(buffer), WRITE_CHUNK):
            chunk = buffer[start : start + WRITE_CHUNK]
            self._stream.write(chunk, self._left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        left = self._left(timeout, httpcore.ConnectTimeout)
        tls = self._stream.start_tls(ssl_context, server_hostname, left)
        return DeadlineStream(tls, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's sync backend, its connections bounded by one deadline."""

    def __init__(self, deadline: float) -> None:
        self._deadline = deadline
        self._backend = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise httpcore.ConnectTimeout("the request's deadline passed")
        timeout = left if timeout is None else min(timeout, left)
        stream = self._backend.connect_tcp(host, port, timeout, local_address, socket_options)
        return DeadlineStream(stream, self._deadline)


class SimulatorClient:
    """GET/POST JSON against one simulator; a context manager with an idempotent close."""

    def __init__(self, base_url: str, *, timeout_s: float = 2.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s

    def get(self, path: str) -> dict[str, Any]:
        return self._request("GET", path)

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._request("POST", path, body)

    def _request(
        self, method: str, path: str, body: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout_s
        content = b"" if body is None else json.dumps(body).encode()
        headers = [("Accept", "application/json")]
        if body is not None:
            headers.append(("Content-Type", "application/json"))
        try:
            # httpcore reads no proxy settings: an HTTP_PROXY cannot capture 127.0.0.1.
            with (
                httpcore.ConnectionPool(network_backend=DeadlineBackend(deadline)) as pool,
                pool.stream(
                    method,
                    self.base_url + path,
                    headers=headers,
                    content=content,
                    extensions={"timeout": {"connect": CONNECT_TIMEOUT_S}},
                ) as response,
            ):
                status = response.status
                raw = _read_capped(response)
        except httpcore.TimeoutException:
            raise SimulatorUnreachableError(
                f"simulator not reachable at {self.base_url} (no complete answer to "
                f"{method} {path} within {self.timeout_s:g} s); start it with `edgeagent sim`"
            ) from None
        except (httpcore.NetworkError, httpcore.RemoteProtocolError):
            raise SimulatorUnreachableError(
                f"simulator not reachable at {self.base_url}; start it with `edgeagent sim`"
            ) from None
        except (httpcore.UnsupportedProtocol, httpcore.LocalProtocolError) as exc:
            raise SimulatorUnreachableError(
                f"simulator at {self.base_url} failed: {exc}; check [simulator] host and port"
            ) from None
        return _json_reply(method, path, status, raw)

    def close(self) -> None:
        """Nothing to release: each request closes its own connection. Kept so that the
        backends can treat every client alike."""

    def __enter__(self) -> SimulatorClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _read_capped(response: httpcore.Response) -> bytes:
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_stream():
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise HardwareError(
                f"the simulator's answer passed {MAX_RESPONSE_BYTES} bytes; is the URL right?"
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _json_reply(method: str, path: str, status: int, raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if status >= 400 or not isinstance(data, dict):
        reason = (
            data.get("error")
            if isinstance(data, dict)
            else raw[:200].decode("utf-8", errors="replace")
        )
        raise HardwareError(f"simulator refused {method} {path} (HTTP {status}): {reason}")
    return data
