"""A hung simulator: it accepts connections and answers one byte at a time, slowly.

Each byte arrives well within any per-read timeout, so only a total deadline ends a
request to it (issue 9, item 12).
"""

from __future__ import annotations

import socket
import threading
from types import TracebackType

ANSWER = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 99\r\n\r\n{"on"'


class DripServer:
    """Listens on a free port of 127.0.0.1; ``url`` says which. ``close()`` frees it."""

    def __init__(self, *, interval_s: float = 0.3) -> None:
        self.interval_s = interval_s
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.connections = 0
        self._accepting = threading.Thread(target=self._accept, name="drip-accept", daemon=True)
        self._accepting.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        self._listener.settimeout(0.05)
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            thread = threading.Thread(target=self._drip, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _drip(self, conn: socket.socket) -> None:
        with conn:
            for i in range(len(ANSWER)):
                if self._stop.wait(self.interval_s):
                    return
                try:
                    conn.sendall(ANSWER[i : i + 1])
                except OSError:
                    return
            self._stop.wait()  # the body never ends

    def close(self) -> None:
        self._stop.set()
        self._listener.close()
        self._accepting.join(timeout=2)
        for thread in self._threads:
            thread.join(timeout=2)

    def __enter__(self) -> DripServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
