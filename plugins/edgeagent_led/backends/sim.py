"""The strip in the simulator (``edgeagent sim``), over its JSON API."""

from __future__ import annotations

from edgeagent_sim.client import SimulatorClient

from edgeagent_led.strip import LedState


class SimLed:
    name = "sim"

    def __init__(self, url: str, *, count: int, timeout_s: float = 2.0) -> None:
        # No request here: the daemon may start before the simulator does.
        self.count = count
        self.client = SimulatorClient(url, timeout_s=timeout_s)

    def write(self, state: LedState) -> None:
        self.client.post("/api/led", state.to_dict())

    def read(self) -> LedState:
        return LedState.from_dict(self.client.get("/api/led"), count=self.count)

    def close(self) -> None:
        self.client.close()
