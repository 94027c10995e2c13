"""`edgeagent install-service` from an installed wheel, not only from the checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """edgeagent built as a wheel from a copy of the tree and installed into a directory
    (no network, no build isolation; the copy keeps the build out of the checkout)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for name in ("edgeagent", "plugins", "simulators", "systemd", "config"):
        shutil.copytree(
            ROOT / name,
            source / name,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
        )
    pip = [sys.executable, "-m", "pip", "-q"]
    flags = ["--no-deps", "--no-build-isolation"]
    subprocess.run([*pip, "wheel", *flags, "-w", str(work / "dist"), str(source)], check=True)
    (wheel,) = (work / "dist").glob("edgeagent-*.whl")
    subprocess.run(
        [*pip, "install", "--no-deps", "--target", str(work / "site"), str(wheel)], check=True
    )
    return work / "site"


def run_installed(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEAGENT_")}
    env["PYTHONPATH"] = str(site)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=60
    )


def test_the_wheel_ships_the_units_and_example_configs(site: Path, tmp_path: Path) -> None:
    deploy = site / "edgeagent" / "deploy"
    for name in (
        "systemd/edgeagent.service",
        "systemd/edgeagent-sim.service",
        "config/edgeagent.toml",
        "config/edgeagent.pi.toml",
        "config/tools.d/ls.tool",
    ):
        shipped = deploy / name
        assert shipped.is_file() and not shipped.is_symlink(), name
        assert shipped.read_bytes() == (ROOT / name).read_bytes(), name
    where = run_installed(site, tmp_path, "-c", "import edgeagent; print(edgeagent.__file__)")
    assert where.stdout.startswith(str(site)), where  # the wheel, not the checkout


def test_install_service_dry_run_works_from_the_installed_wheel(site: Path, tmp_path: Path) -> None:
    unit_dir, config_dir = tmp_path / "units", tmp_path / "etc"
    result = run_installed(
        site, tmp_path, "-m", "edgeagent", "install-service", "--dry-run", "--sim",
        "--user", "edgeagent-test-nobody",
        "--unit-dir", str(unit_dir), "--config-dir", str(config_dir),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"would install {unit_dir / 'edgeagent.service'} (ExecStart=" in result.stdout
    assert f"would install {unit_dir / 'edgeagent-sim.service'}" in result.stdout
    example = site / "edgeagent" / "deploy" / "config" / "edgeagent.pi.toml"
    assert f"would copy {example} to {config_dir / 'edgeagent.toml'}" in result.stdout
    assert not unit_dir.exists() and not config_dir.exists()


def test_the_installed_unit_and_tools_are_what_install_service_writes(
    site: Path, tmp_path: Path
) -> None:
    script = (
        "from edgeagent import deploy\n"
        "from edgeagent.cli.service import unit_text\n"
        "print(unit_text(deploy.unit_file('edgeagent.service'), '/opt/ea/bin/edgeagent'))\n"
        "print(' '.join(t.name for t in deploy.example_tools()))\n"
    )
    result = run_installed(site, tmp_path, "-c", script)
    assert result.returncode == 0, result.stderr
    assert "ExecStart=/opt/ea/bin/edgeagent run\n" in result.stdout
    assert (
        "cat.tool df.tool free.tool glob.tool grep.tool head.tool ls.tool tail.tool "
        "uptime.tool wc.tool" in result.stdout
    )
