"""Token files and the two ways a client may present the token (header or URL path)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from edgeagent.errors import ConfigError
from edgeagent.mcp.token import bearer_matches, path_token_matches, read_token_file
from tests.mcp_helpers import EDGEAGENT, clean_env, write_mcp_config

KEY = "[mcp] token_file"


def token_file(tmp_path: Path, text: str, mode: int = 0o600) -> Path:
    path = tmp_path / "token"
    path.write_text(text)
    path.chmod(mode)
    return path


def test_the_first_line_is_the_token(tmp_path: Path) -> None:
    assert read_token_file(token_file(tmp_path, "  abc123  \nignored\n"), key=KEY) == "abc123"


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660, 0o620])
def test_a_file_open_to_group_or_others_is_refused(tmp_path: Path, mode: int) -> None:
    path = token_file(tmp_path, "abc123\n", mode)
    with pytest.raises(ConfigError, match=f"is open to other users \\(mode {mode:04o}\\)"):
        read_token_file(path, key=KEY)


def test_an_empty_or_missing_file_is_refused_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\[mcp\] token_file = .*: the first line is empty"):
        read_token_file(token_file(tmp_path, "\n"), key=KEY)
    with pytest.raises(ConfigError, match=r"\[mcp\] token_file = .*nope: cannot read it"):
        read_token_file(tmp_path / "nope", key=KEY)


@pytest.mark.parametrize(
    ("header", "ok"),
    [
        ("Bearer abc123", True),
        ("bearer abc123", True),
        ("Bearer  abc123 ", True),
        ("Bearer abc1234", False),
        ("Bearer abc12", False),
        ("Basic abc123", False),
        ("abc123", False),
        ("", False),
        (None, False),
    ],
)
def test_bearer_header(header: str | None, ok: bool) -> None:
    assert bearer_matches(header, "abc123") is ok


@pytest.mark.parametrize(
    ("path", "ok"),
    [
        ("/mcp/abc123", True),
        ("/mcp/abc1234", False),
        ("/mcp/", False),
        ("/mcp", False),
        ("/x/mcp/abc123", False),
        ("/mcp/abc123/", False),
        ("/mcp/abc/abc123", False),
    ],
)
def test_token_in_the_path(path: str, ok: bool) -> None:
    assert path_token_matches(path, "/mcp", "abc123") is ok


def test_config_check_names_a_token_file_open_to_others(tmp_path: Path) -> None:
    token = token_file(tmp_path, "abc123\n", 0o644)
    config = write_mcp_config(tmp_path, token_file=token)
    done = subprocess.run(
        [*EDGEAGENT, "--config", str(config), "config", "check"], env=clean_env(),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert f"error: [mcp] token_file = {token} is open to other users (mode 0644)" in done.stderr
