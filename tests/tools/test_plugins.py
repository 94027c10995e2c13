"""Plugin discovery through the ``edgeagent.tools`` entry points, as a third party sees it.

Each test builds real distributions from a temp directory, installs them into their own
site directory and runs the real ``edgeagent`` command against it: nothing in edgeagent
changes to pick them up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PLUGIN_SOURCE = '''
from typing import Annotated
from pydantic import Field
from edgeagent.plugin import hookimpl, tool


@tool(kind="read")
def {tool}(name: Annotated[str, Field(description="Who to greet")]) -> str:
    """Greet someone."""
    return "hello " + name + " from {dist}"


@hookimpl
def register_tools(register, context):
    {body}
'''


def make_dist(
    root: Path, dist: str, *, tool: str = "hello", body: str = "register({tool})"
) -> Path:
    """Write a tiny third-party plugin project; return its directory."""
    project = root / dist
    module = dist.replace("-", "_")
    (project / module).mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""
            [build-system]
            requires = ["setuptools"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "{dist}"
            version = "1.0"

            [project.entry-points."edgeagent.tools"]
            {module} = "{module}"
            """
        )
    )
    (project / module / "__init__.py").write_text(
        PLUGIN_SOURCE.format(tool=tool, dist=dist, body=body.format(tool=tool))
    )
    return project


def install(projects: list[Path], site: Path) -> None:
    """Build wheels and install them into ``site`` (no network, no build isolation)."""
    wheels = site.parent / "wheels"
    for project in projects:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "-q",
                "--no-deps",
                "--no-build-isolation",
                "-w",
                str(wheels),
                str(project),
            ],
            check=True,
        )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(site),
            *map(str, sorted(wheels.glob("*.whl"))),
        ],
        check=True,
    )


def edgeagent(site: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "edgeagent.toml"
    if not config.exists():
        config.write_text('[plugins.led]\nbackend = "mock"\n[plugins.servo]\nbackend = "mock"\n')
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("EDGEAGENT_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "edgeagent", "--config", str(config), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("thirdparty")
    projects = [
        make_dist(root, "edgeagent-hello"),
        # Fails at import: must be logged with the reason and skipped.
        make_dist(root, "edgeagent-broken-import", tool="nope", body="register(nope)"),
        # Fails inside its hook: same.
        make_dist(root, "edgeagent-broken-hook", tool="boom", body="raise RuntimeError('no GPIO')"),
        # Registers a tool under a name that edgeagent-hello already uses.
        make_dist(root, "edgeagent-zhello", tool="hello"),
    ]
    broken = projects[1] / "edgeagent_broken_import" / "__init__.py"
    broken.write_text("import edgeagent_missing_dependency\n" + broken.read_text())
    site = root / "site"
    install(projects, site)
    return site


def test_third_party_plugin_is_listed_and_callable(site: Path, tmp_path: Path) -> None:
    listed = edgeagent(site, tmp_path, "tools", "list")
    assert listed.returncode == 0, listed.stderr
    assert "hello" in listed.stdout
    called = edgeagent(site, tmp_path, "tools", "call", "hello", '{"name": "Ada"}')
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout) == {
        "ok": True,
        "result": "hello Ada from edgeagent-hello",
    }


def test_first_party_plugins_load_beside_third_party(site: Path, tmp_path: Path) -> None:
    listed = edgeagent(site, tmp_path, "tools", "list")
    for name in ("led", "servo", "weather", "shell", "math"):
        assert name in listed.stdout


def test_broken_plugins_are_logged_and_skipped(site: Path, tmp_path: Path) -> None:
    listed = edgeagent(site, tmp_path, "tools", "list")
    assert listed.returncode == 0
    assert "plugin 'edgeagent_broken_import' skipped" in listed.stderr
    assert "edgeagent_missing_dependency" in listed.stderr
    assert "plugin 'edgeagent_broken_hook' skipped: RuntimeError: no GPIO" in listed.stderr
    assert "nope" not in listed.stdout and "boom" not in listed.stdout


def test_duplicate_tool_names_are_reported_naming_both_plugins(site: Path, tmp_path: Path) -> None:
    listed = edgeagent(site, tmp_path, "tools", "list")
    assert (
        "Tool name 'hello' is registered by plugin 'edgeagent_hello' and again by plugin "
        "'edgeagent_zhello'" in listed.stderr
    )
    # The first one wins; the call still reaches edgeagent-hello.
    called = edgeagent(site, tmp_path, "tools", "call", "hello", '{"name": "Bo"}')
    assert json.loads(called.stdout)["result"] == "hello Bo from edgeagent-hello"


def test_config_disables_tools_by_name(site: Path, tmp_path: Path) -> None:
    (tmp_path / "edgeagent.toml").write_text(
        '[tools]\ndisabled = ["hello"]\n[plugins.led]\nbackend = "mock"\n'
        '[plugins.servo]\nbackend = "mock"\n'
    )
    listed = edgeagent(site, tmp_path, "tools", "list")
    assert listed.returncode == 0, listed.stderr
    assert "hello" not in listed.stdout.split()
    called = edgeagent(site, tmp_path, "tools", "call", "hello", '{"name": "Bo"}')
    assert called.returncode == 1
    assert "Unknown tool 'hello'" in json.loads(called.stdout)["error"]


def test_a_disabled_plugin_is_never_imported(site: Path, tmp_path: Path) -> None:
    (tmp_path / "edgeagent.toml").write_text(
        '[tools]\ndisabled_plugins = ["edgeagent_broken_import", "edgeagent_hello"]\n'
        '[plugins.led]\nbackend = "mock"\n[plugins.servo]\nbackend = "mock"\n'
    )
    listed = edgeagent(site, tmp_path, "tools", "list")
    assert listed.returncode == 0, listed.stderr
    # Importing it would fail on its missing dependency; disabled, it is never imported.
    assert "edgeagent_missing_dependency" not in listed.stderr
    assert "edgeagent_broken_hook' skipped" in listed.stderr  # not disabled: still loaded
    hello = [line.split()[0] for line in listed.stdout.splitlines()]
    assert hello.count("hello") == 1  # edgeagent_zhello's, not edgeagent_hello's
    called = edgeagent(site, tmp_path, "tools", "call", "hello", '{"name": "Bo"}')
    assert json.loads(called.stdout)["result"] == "hello Bo from edgeagent-zhello"
