"""Bad config files through the real command, as a user or systemd runs it
(``python -m edgeagent ...``): each exits non-zero with a paragraph that names the file
or the key and what to do, and never with a Python traceback.

Issue 9 item 13: unreadable and non-UTF-8 files, wildcard topics, unknown
``[plugins.<name>]`` tables and bad socket paths all got tracebacks, silence, or a daemon
looping on "reconnecting".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

INSTALLED_PLUGINS = "led, math, servo, shell, weather"


def edgeagent(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEAGENT_")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "edgeagent", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_clean_failure(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    """Non-zero, the needles on stderr, and no traceback anywhere."""
    assert result.returncode != 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


def daemon_config(directory: Path, body: str, *, socket_path: Path | None = None) -> Path:
    """A config the daemon can start from (scripted model, mock hardware) plus ``body``."""
    (directory / "script.json").write_text(json.dumps({"rules": [], "default": "ok"}))
    (directory / "tools.d").mkdir(exist_ok=True)
    sock = socket_path or directory / "ea.sock"
    text = (
        '[llm]\nbackend = "scripted"\nscript = "script.json"\n'
        f'[socket]\npath = "{sock}"\n'
        '[plugins.led]\nbackend = "mock"\n[plugins.servo]\nbackend = "mock"\n'
        "[mqtt]\nenabled = false\n" + body
    )
    path = directory / "edgeagent.toml"
    path.write_text(text)
    return path


def _write_only_proc_entry() -> Path | None:
    """A file even root cannot read: procfs checks a sysctl's mode bits for root too."""
    for entry in sorted(Path("/proc/sys").rglob("*")):
        try:
            if entry.stat().st_mode & 0o444:
                continue
            entry.open("rb").close()
        except PermissionError:
            return entry
        except OSError:
            continue
    return None


@pytest.fixture
def unreadable(tmp_path: Path) -> Path:
    """A config file this process may not read: mode 000, or for root (who reads mode
    000 files) a link to a write-only sysctl."""
    path = tmp_path / "edgeagent.toml"
    if os.geteuid() != 0:
        path.write_text("[mqtt]\nport = 1883\n")
        path.chmod(0)
        return path
    target = _write_only_proc_entry()
    if target is None:
        pytest.skip("running as root and no write-only /proc/sys entry to stand for the file")
    path.symlink_to(target)
    return path


# --- files that cannot be read -------------------------------------------------------


@pytest.mark.parametrize("how", ["--config", "EDGEAGENT_CONFIG"])
def test_unreadable_config_file_is_named_with_what_to_do(
    unreadable: Path, tmp_path: Path, how: str
) -> None:
    if how == "--config":
        result = edgeagent("--config", str(unreadable), "config", "check", cwd=tmp_path)
    else:
        env = {"EDGEAGENT_CONFIG": str(unreadable)}
        result = edgeagent("config", "check", cwd=tmp_path, env=env)
    assert result.returncode == 2
    assert_clean_failure(
        result,
        f"Cannot read the config file {unreadable}: permission denied",
        "usermod -aG edgeagent",
        "--config",
    )


@pytest.mark.parametrize("command", [["status"], ["config", "check"], ["run"]])
def test_unreadable_config_on_the_search_path_is_an_error_not_a_traceback(
    unreadable: Path, tmp_path: Path, command: list[str]
) -> None:
    """What a user outside the service group gets from ``edgeagent status``: the file
    the search path finds (./config/edgeagent.toml here) cannot be read."""
    (tmp_path / "config").mkdir()
    unreadable.rename(tmp_path / "config" / "edgeagent.toml")
    result = edgeagent(*command, cwd=tmp_path)
    assert result.returncode == 2
    assert_clean_failure(
        result, "Cannot read the config file config/edgeagent.toml: permission denied"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root may enter any directory")
def test_config_directory_this_user_cannot_enter(tmp_path: Path) -> None:
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    (config_dir / "edgeagent.toml").write_text("")
    config_dir.chmod(0)
    try:
        result = edgeagent("status", cwd=tmp_path)
    finally:
        config_dir.chmod(0o755)
    assert_clean_failure(result, "config/edgeagent.toml: permission denied")


@pytest.mark.parametrize("command", [["config", "check"], ["run"]])
def test_non_utf8_config_file(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "edgeagent.toml"
    path.write_bytes("[mqtt]\nhost = 'caf\xe9'\n".encode("latin-1"))
    result = edgeagent("--config", str(path), *command, cwd=tmp_path)
    assert result.returncode == 2
    assert_clean_failure(result, f"{path} is not UTF-8 text (byte 0xe9 on line 2)", "iconv")


def test_directory_given_through_the_environment(tmp_path: Path) -> None:
    result = edgeagent("config", "check", cwd=tmp_path, env={"EDGEAGENT_CONFIG": str(tmp_path)})
    assert result.returncode == 2
    assert_clean_failure(result, f"{tmp_path} is a directory", "edgeagent.toml")


# --- values that passed `config check` and then broke the daemon ---------------------------


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('device_id = "pi#1"', "mqtt.device_id = 'pi#1'"),
        ('base_topic = "edge/+/x"', "mqtt.base_topic = 'edge/+/x'"),
        ('base_topic = "$SYS/edge"', "mqtt.base_topic = '$SYS/edge'"),
    ],
)
@pytest.mark.parametrize("command", [["config", "check"], ["run"]])
def test_wildcard_topics_are_refused_before_connecting(
    short_dir: Path, line: str, key: str, command: list[str]
) -> None:
    path = daemon_config(short_dir, "")
    mqtt = f"[mqtt]\nenabled = true\nport = 1\n{line}\n"  # no broker: it would reconnect forever
    path.write_text(path.read_text().replace("[mqtt]\nenabled = false\n", mqtt))
    result = edgeagent("--config", str(path), *command, cwd=short_dir, timeout=30)
    assert result.returncode == 2
    assert_clean_failure(result, key, str(path))
    assert "reconnecting" not in result.stderr


@pytest.mark.parametrize(
    ("body", "key", "expected"),
    [
        ("[daemon]\nrequest_timeout_s = inf\n", "daemon.request_timeout_s = inf", "finite"),
        ('[mqtt.tls]\nenabled = "yes"\n', "mqtt.tls.enabled = 'yes'", "true or false"),
        ('[llm.http]\nbase_url = "not a url"\n', "llm.http.base_url", "http://127.0.0.1:8000"),
    ],
)
def test_values_accepted_silently_before_are_refused_by_config_check(
    short_dir: Path, body: str, key: str, expected: str
) -> None:
    path = daemon_config(short_dir, body)
    result = edgeagent("--config", str(path), "config", "check", cwd=short_dir)
    assert result.returncode == 2
    assert_clean_failure(result, key, expected)


def test_env_override_of_a_flag_still_works_through_the_cli(short_dir: Path) -> None:
    path = daemon_config(short_dir, "")
    env = {"EDGEAGENT_SOCKET__ENABLED": "false", "EDGEAGENT_MQTT__ENABLED": "true"}
    result = edgeagent("--config", str(path), "config", "show", "--json", cwd=short_dir, env=env)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["socket"]["enabled"] is False and shown["mqtt"]["enabled"] is True


# --- unknown plugin tables ---------------------------------------------------------------


@pytest.mark.parametrize(("command", "code"), [(["config", "check"], 2), (["run"], 1)])
def test_a_plugin_table_that_names_no_installed_plugin_is_refused(
    short_dir: Path, command: list[str], code: int
) -> None:
    path = daemon_config(short_dir, "[plugins.sevro]\nmin_angle = -45\n")
    result = edgeagent("--config", str(path), *command, cwd=short_dir)
    assert result.returncode == code
    assert_clean_failure(
        result,
        "[plugins.sevro] (did you mean [plugins.servo]?)",
        f"installed plugins: {INSTALLED_PLUGINS}",
    )
    assert not (short_dir / "ea.sock").exists()  # the daemon never started serving


# --- the socket path ---------------------------------------------------------------------


def test_socket_path_that_is_a_regular_file_is_refused_and_the_file_kept(
    short_dir: Path,
) -> None:
    victim = short_dir / "notes.txt"
    victim.write_text("keep me")
    path = daemon_config(short_dir, "", socket_path=victim)
    result = edgeagent("--config", str(path), "run", cwd=short_dir)
    assert result.returncode == 1
    assert_clean_failure(result, f"[socket] path = '{victim}' is a file;")
    assert victim.read_text() == "keep me"  # connect() is refused, as by a stale socket


def test_socket_path_that_is_a_directory_is_refused(short_dir: Path) -> None:
    (short_dir / "sockdir").mkdir()
    path = daemon_config(short_dir, "", socket_path=short_dir / "sockdir")
    result = edgeagent("--config", str(path), "run", cwd=short_dir)
    assert result.returncode == 1
    assert_clean_failure(result, "[socket] path = ", "is a directory")
    assert (short_dir / "sockdir").is_dir()


def test_socket_directory_that_cannot_be_created(short_dir: Path) -> None:
    (short_dir / "file").write_text("")
    sock = short_dir / "file" / "sub" / "ea.sock"
    path = daemon_config(short_dir, "", socket_path=sock)
    result = edgeagent("--config", str(path), "run", cwd=short_dir)
    assert result.returncode == 1
    assert_clean_failure(
        result, f"Cannot create the directory {sock.parent} for the socket ([socket] path"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any directory")
def test_socket_directory_that_is_not_writable(short_dir: Path) -> None:
    locked = short_dir / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    path = daemon_config(short_dir, "", socket_path=locked / "ea.sock")
    try:
        result = edgeagent("--config", str(path), "run", cwd=short_dir)
    finally:
        locked.chmod(0o755)
    assert result.returncode == 1
    assert_clean_failure(result, f"Cannot create the socket {locked / 'ea.sock'} ([socket] path)")


def test_socket_path_too_long_for_af_unix_is_a_config_error(short_dir: Path) -> None:
    sock = short_dir / ("s" * 120 + ".sock")
    path = daemon_config(short_dir, "", socket_path=sock)
    for command in (["config", "check"], ["run"]):
        result = edgeagent("--config", str(path), *command, cwd=short_dir)
        assert result.returncode == 2
        assert_clean_failure(result, "socket.path = ", "more than the 107")
