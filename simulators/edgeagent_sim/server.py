"""Serve a simulator app from a thread (tests, embedding) or the foreground (CLI)."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import TYPE_CHECKING

from werkzeug.serving import BaseWSGIServer, make_server

if TYPE_CHECKING:
    from flask import Flask


class SimulatorServer:
    """A threaded werkzeug server (one thread per request, so event streams do not block
    the API). ``port=0`` picks a free port; ``url`` says which."""

    def __init__(self, app: Flask, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = app
        self._server: BaseWSGIServer = make_server(host, port, app, threaded=True)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self._server.host}:{self._server.server_port}"

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def start(self) -> SimulatorServer:
        self._thread = threading.Thread(
            # A short poll interval makes close() (and test teardown) quick.
            target=self._server.serve_forever,
            args=(0.05,),
            name="edgeagent-sim",
            daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """End the event streams, stop serving, free the port. Idempotent."""
        self.app.extensions["edgeagent_sim"].close()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> SimulatorServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
