"""The systemd units pass `systemd-analyze verify` and keep the promised settings."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from edgeagent.cli.service import unit_text

ROOT = Path(__file__).resolve().parents[2]
UNITS = sorted((ROOT / "systemd").glob("*.service"))


def parse(unit: Path) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    # Repeated keys (DeviceAllow=) overwrite each other here; check those as text.
    parser.read_string(unit.read_text())
    return parser


def test_both_units_exist() -> None:
    assert [u.name for u in UNITS] == ["edgeagent-sim.service", "edgeagent.service"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_systemd_analyze_verify_passes(unit: Path, tmp_path: Path) -> None:
    # verify insists that ExecStart exists: point it at this interpreter's entry point,
    # exactly as `edgeagent install-service` does.
    executable = Path(sys.executable).parent / "edgeagent"
    assert executable.exists()
    copy = tmp_path / unit.name
    copy.write_text(unit_text(unit, str(executable)))
    result = subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "", result.stderr


def test_the_daemon_unit_is_a_hardened_notify_service() -> None:
    unit = Path(UNITS[1])
    service = parse(unit)["Service"]
    assert service["Type"] == "notify"
    assert service["NotifyAccess"] == "main"
    assert service["Restart"] == "on-failure"
    assert service["WatchdogSec"]
    assert service["User"] == "edgeagent"
    assert set(service["SupplementaryGroups"].split()) == {"gpio", "spi", "video"}
    assert service["RuntimeDirectory"] == "edgeagent"
    assert service["StateDirectory"] == "edgeagent"
    assert service["ConfigurationDirectory"] == "edgeagent"
    for key, value in {
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "DevicePolicy": "closed",
        "ProtectKernelTunables": "yes",
        "RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6",
    }.items():
        assert service[key] == value, key
    text = unit.read_text()
    assert "Environment=EDGEAGENT_CONFIG=/etc/edgeagent/edgeagent.toml" in text
    # The devices the hardware backends open must stay reachable.
    for allowed in (
        "DeviceAllow=char-gpiochip rw",
        "DeviceAllow=char-spi rw",
        "DeviceAllow=/dev/hailo0 rw",
    ):
        assert allowed in text
    assert "PrivateDevices=yes" not in text


def test_install_rewrites_execstart_to_the_running_entry_point(tmp_path: Path) -> None:
    text = unit_text(UNITS[1], "/opt/edgeagent/bin/edgeagent")
    assert "ExecStart=/opt/edgeagent/bin/edgeagent run\n" in text
    sim = unit_text(UNITS[0], "/opt/edgeagent/bin/edgeagent")
    assert "ExecStart=/opt/edgeagent/bin/edgeagent sim\n" in sim


def test_install_service_dry_run_prints_every_step_and_changes_nothing(tmp_path: Path) -> None:
    unit_dir, config_dir = tmp_path / "units", tmp_path / "etc"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "edgeagent",
            "install-service",
            "--dry-run",
            "--sim",
            "--user",
            "edgeagent-test-nobody",
            "--unit-dir",
            str(unit_dir),
            "--config-dir",
            str(config_dir),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "would create system user 'edgeagent-test-nobody'" in out
    assert f"would install {unit_dir / 'edgeagent.service'} (ExecStart=" in out
    assert f"would install {unit_dir / 'edgeagent-sim.service'}" in out
    assert f"to {config_dir / 'edgeagent.toml'} (mode 0640" in out
    assert f"would create {config_dir / 'tools.d'}" in out
    assert out.rstrip().endswith("dry run: nothing was changed")
    assert not unit_dir.exists() and not config_dir.exists()


def test_the_pi_config_asks_nothing_the_unit_hides_or_forbids() -> None:
    """ProtectHome=yes empties /home for the service, and the unprivileged user with no
    capabilities cannot drive ws281x (it needs root): the Pi config must avoid both."""
    service = parse(UNITS[1])["Service"]
    pi = tomllib.loads((ROOT / "config" / "edgeagent.pi.toml").read_text())
    assert service["ProtectHome"] == "yes"
    hidden = ("/home", "/root", "/run/user")
    for root in pi["plugins"]["shell"]["roots"]:
        assert not any(root == h or root.startswith(h + "/") for h in hidden), root
    assert service["User"] != "root" and service["CapabilityBoundingSet"] == ""
    assert pi["plugins"]["led"]["driver"] == "spi"  # "auto" means ws281x on a Pi 4
