"""The servo in the simulator (``edgeagent sim``), over its JSON API."""

from __future__ import annotations

from edgeagent_sim.client import SimulatorClient


class SimServo:
    name = "sim"

    def __init__(self, url: str, *, timeout_s: float = 2.0) -> None:
        # No request here: the daemon may start before the simulator does.
        self.client = SimulatorClient(url, timeout_s=timeout_s)

    def move_to(self, angle: float) -> None:
        self.client.post("/api/servo", {"angle": angle})

    def read(self) -> float | None:
        return float(self.client.get("/api/servo")["angle"])

    def close(self) -> None:
        self.client.close()
