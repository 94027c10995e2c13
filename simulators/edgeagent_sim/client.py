"""The HTTP client the ``sim`` backends use to talk to the simulator's JSON API.

Timeouts are short on purpose: a tool call must fail fast with a useful message when
the simulator is not running, never hang the agent.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import httpx

from edgeagent.errors import HardwareError, SimulatorUnreachableError


class SimulatorClient:
    """GET/POST JSON against one simulator; a context manager with an idempotent close."""

    def __init__(self, base_url: str, *, timeout_s: float = 2.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._timeout_s = timeout_s
        # trust_env=False: an HTTP(S)_PROXY in the environment must not capture 127.0.0.1.
        self._http = httpx.Client(
            base_url=self.base_url,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 1.0)),
            trust_env=False,
        )

    def get(self, path: str) -> dict[str, Any]:
        return self._request("GET", path)

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._request("POST", path, body)

    def _request(
        self, method: str, path: str, body: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        try:
            response = self._http.request(method, path, json=body)
        except httpx.TimeoutException:
            raise SimulatorUnreachableError(
                f"simulator not reachable at {self.base_url} (no answer within "
                f"{self._timeout_s:g} s); start it with `edgeagent sim`"
            ) from None
        except (httpx.ConnectError, httpx.RemoteProtocolError):
            raise SimulatorUnreachableError(
                f"simulator not reachable at {self.base_url}; start it with `edgeagent sim`"
            ) from None
        except httpx.HTTPError as exc:
            raise SimulatorUnreachableError(
                f"simulator at {self.base_url} failed: {exc}; start it with `edgeagent sim`"
            ) from None
        try:
            data = response.json()
        except ValueError:
            data = None
        if response.status_code >= 400 or not isinstance(data, dict):
            reason = data.get("error") if isinstance(data, dict) else response.text[:200]
            raise HardwareError(
                f"simulator refused {method} {path} (HTTP {response.status_code}): {reason}"
            )
        return data

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> SimulatorClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
