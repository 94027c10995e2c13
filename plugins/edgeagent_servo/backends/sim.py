"""The servo in the simulator (``edgeagent sim``), over its JSON API."""

from __future__ import annotations

from edgeagent_sim.client import SimulatorClient

from edgeagent.plugin import HardwareError


class SimServo:
    name = "sim"

    def __init__(self, url: str, *, timeout_s: float = 2.0) -> None:
        # No request here: the daemon may start before the simulator does.
        self.client: SimulatorClient | None = SimulatorClient(url, timeout_s=timeout_s)

    def _client(self) -> SimulatorClient:
        if self.client is None:
            raise HardwareError("the servo is closed")
        return self.client

    def move_to(self, angle: float) -> None:
        self._client().post("/api/servo", {"angle": angle})

    def read(self) -> float | None:
        return float(self._client().get("/api/servo")["angle"])

    def close(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            client.close()
