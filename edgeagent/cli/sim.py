"""``edgeagent sim``: run the device simulator and its live dashboard."""

from __future__ import annotations

import sys

import click

from edgeagent.cli import load
from edgeagent.config import is_loopback


@click.command()
@click.option(
    "--host", default=None, help="Address to bind (default: [simulator] host, 127.0.0.1)."
)
@click.option("--port", type=int, default=None, help="Port (default: [simulator] port, 8765).")
@click.pass_context
def sim(ctx: click.Context, host: str | None, port: int | None) -> None:
    """Run the LED/servo simulator with its dashboard (Ctrl-C stops it)."""
    from edgeagent_sim import create_app
    from edgeagent_sim.server import SimulatorServer

    full = load(ctx)
    config = full.simulator
    host = host or config.host
    port = port or config.port
    if not is_loopback(host):
        # The simulator has no authentication: anyone who can reach it drives the devices.
        click.echo(f"warning: binding {host}; the simulator has no authentication", err=True)
    state_file = config.state_file
    app = create_app(
        {
            "STATE_FILE": str(state_file) if state_file else None,
            "ALLOWED_HOSTS": list(config.allowed_hosts),
            # The console asks the daemon that the same config starts.
            "DAEMON_SOCKET": str(full.socket.path) if full.socket.enabled else None,
        }
    )
    try:
        server = SimulatorServer(app, host=host, port=port)
    except OSError as exc:
        click.echo(f"error: cannot listen on {host}:{port}: {exc}; pick another --port", err=True)
        sys.exit(1)
    click.echo(f"simulator dashboard: {server.url}/  (state file: {state_file or 'none'})")
    if full.socket.enabled:
        click.echo(f"console: asks the daemon on {full.socket.path} ([socket] path)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
