"""The strip in the simulator (``edgeagent sim``), over its JSON API."""

from __future__ import annotations

from edgeagent_sim.client import SimulatorClient

from edgeagent.plugin import HardwareError
from edgeagent_led.strip import LedState


class SimLed:
    name = "sim"

    def __init__(self, url: str, *, count: int, timeout_s: float = 2.0) -> None:
        # No request here: the daemon may start before the simulator does.
        self.count = count
        self.client: SimulatorClient | None = SimulatorClient(url, timeout_s=timeout_s)

    def _client(self) -> SimulatorClient:
        if self.client is None:
            raise HardwareError("the LED strip is closed")
        return self.client

    def write(self, state: LedState) -> None:
        self._client().post("/api/led", state.to_dict())

    def read(self) -> LedState:
        return LedState.from_dict(self._client().get("/api/led"), count=self.count)

    def close(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            client.close()
