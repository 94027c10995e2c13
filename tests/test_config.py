"""``load_config`` against hostile files and overrides: every bad input is a ConfigError
that names the key (or the file), never another exception and never silently accepted."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from edgeagent.config import Config
from edgeagent.config_file import find_config, load_config
from edgeagent.errors import ConfigError

# (id, file contents, what the message must name). Each was accepted silently, or
# raised something other than ConfigError, somewhere in the hostile run of issue 9.
BAD_CONFIGS: list[tuple[str, str | bytes, str]] = [
    # wrong types
    ("port-string", '[mqtt]\nport = "1883"\n', "mqtt.port"),
    ("port-bool", "[mqtt]\nport = true\n", "mqtt.port"),
    ("port-float", "[mqtt]\nport = 1883.5\n", "mqtt.port"),
    ("port-float-whole", "[mqtt]\nport = 1883.0\n", "mqtt.port"),
    ("port-array", "[mqtt]\nport = [1883]\n", "mqtt.port"),
    ("enabled-yes", '[mqtt]\nenabled = "yes"\n', "mqtt.enabled"),
    ("enabled-true-string", '[socket]\nenabled = "true"\n', "socket.enabled"),
    ("enabled-one", "[mqtt]\nenabled = 1\n", "mqtt.enabled"),
    ("tls-enabled-on", '[mqtt.tls]\nenabled = "on"\n', "mqtt.tls.enabled"),
    ("primer-no", '[agent]\nprimer = "no"\n', "agent.primer"),
    ("grammar-int", "[llm.llamacpp]\ngrammar = 0\n", "llm.llamacpp.grammar"),
    ("safe-state-string", '[daemon]\nsafe_state_on_exit = "false"\n', "daemon.safe_state_on_exit"),
    ("timeout-string", '[daemon]\nrequest_timeout_s = "120"\n', "daemon.request_timeout_s"),
    ("timeout-bool", "[daemon]\nrequest_timeout_s = true\n", "daemon.request_timeout_s"),
    ("max-tokens-word", '[llm]\nmax_tokens = "many"\n', "llm.max_tokens"),
    ("host-int", "[mqtt]\nhost = 5\n", "mqtt.host"),
    ("section-scalar", "llm = 5\n", "llm"),
    ("section-array", "mqtt = [1, 2]\n", "mqtt"),
    ("enabled-tools-string", '[tools]\nenabled = "led"\n', "tools.enabled"),
    ("plugin-table-scalar", "[plugins]\nled = 5\n", "plugins.led"),
    ("date-for-port", "[mqtt]\nport = 1979-05-27\n", "mqtt.port"),
    # out of range
    ("port-zero", "[mqtt]\nport = 0\n", "mqtt.port"),
    ("port-high", "[mqtt]\nport = 70000\n", "mqtt.port"),
    ("negative-timeout", "[daemon]\nrequest_timeout_s = -1\n", "daemon.request_timeout_s"),
    ("zero-timeout", "[daemon]\nrequest_timeout_s = 0\n", "daemon.request_timeout_s"),
    ("negative-queue", "[daemon]\nqueue_size = -5\n", "daemon.queue_size"),
    ("negative-grace", "[daemon]\nshutdown_grace_s = -0.5\n", "daemon.shutdown_grace_s"),
    ("negative-max-steps", "[agent]\nmax_steps = -1\n", "agent.max_steps"),
    ("huge-max-steps", "[agent]\nmax_steps = 100000\n", "agent.max_steps"),
    ("zero-calls-per-step", "[agent]\nmax_calls_per_step = 0\n", "agent.max_calls_per_step"),
    ("tiny-line-limit", "[socket]\nmax_line_bytes = 1\n", "socket.max_line_bytes"),
    ("zero-connections", "[socket]\nmax_connections = 0\n", "socket.max_connections"),
    ("temperature-high", "[llm]\ntemperature = 9.5\n", "llm.temperature"),
    ("huge-int", "[llm]\nmax_tokens = 9223372036854775807\n", "llm.max_tokens"),
    ("tiny-ctx", "[llm.llamacpp]\nn_ctx = 1\n", "llm.llamacpp.n_ctx"),
    # not finite
    ("timeout-inf", "[daemon]\nrequest_timeout_s = inf\n", "daemon.request_timeout_s"),
    ("timeout-nan", "[daemon]\nrequest_timeout_s = nan\n", "daemon.request_timeout_s"),
    ("idle-neg-inf", "[socket]\nidle_timeout_s = -inf\n", "socket.idle_timeout_s"),
    ("threshold-nan", "[agent]\ncontext_threshold = nan\n", "agent.context_threshold"),
    ("temperature-inf", "[llm]\ntemperature = +inf\n", "llm.temperature"),
    ("hailo-top-p-nan", "[llm.hailo]\ntop_p = nan\n", "llm.hailo.top_p"),
    ("http-timeout-inf", "[llm.http]\nread_timeout_s = inf\n", "llm.http.read_timeout_s"),
    ("plugin-option-inf", "[plugins.servo]\nspeed = inf\n", "plugins.servo.speed"),
    ("plugin-nested-nan", "[plugins.led]\nlevels = [1.0, nan]\n", "plugins.led.levels.1"),
    # bad choices
    ("backend-gpu", '[llm]\nbackend = "gpu"\n', "llm.backend"),
    ("protocol-4", '[mqtt]\nprotocol = "4"\n', "mqtt.protocol"),
    ("log-level-lower", '[daemon]\nlog_level = "debug"\n', "daemon.log_level"),
    ("manifest-format", '[agent]\nmanifest_format = "yaml"\n', "agent.manifest_format"),
    ("call-format", '[agent]\ncall_format = "python"\n', "agent.call_format"),
    ("http-api", '[llm.http]\napi = "grpc"\n', "llm.http.api"),
    # unknown keys and tables
    ("unknown-key", "[agent]\nmax_step = 3\n", "agent.max_step"),
    ("unknown-section", "[mqqt]\nport = 1883\n", "mqqt"),
    ("unknown-top-key", "debug = true\n", "debug"),
    ("unknown-nested", "[mqtt.tls]\nverify = false\n", "mqtt.tls.verify"),
    ("deep-unknown-tables", "[a.b.c.d.e.f.g.h.i.j]\nk = 1\n", "a"),
    ("deep-known-then-unknown", "[llm.http.x.y.z]\nk = 1\n", "llm.http.x"),
    # URLs
    ("url-not-a-url", '[llm.http]\nbase_url = "not a url"\n', "llm.http.base_url"),
    ("url-no-scheme", '[llm.http]\nbase_url = "127.0.0.1:8000"\n', "llm.http.base_url"),
    ("url-ftp", '[llm.http]\nbase_url = "ftp://host/"\n', "llm.http.base_url"),
    ("url-no-host", '[llm.http]\nbase_url = "http://"\n', "llm.http.base_url"),
    ("url-bad-port", '[llm.http]\nbase_url = "http://host:port"\n', "llm.http.base_url"),
    ("url-empty", '[llm.http]\nbase_url = ""\n', "llm.http.base_url"),
    ("url-space", '[llm.http]\nbase_url = "http://exa mple.com"\n', "llm.http.base_url"),
    # MQTT topics the daemon would publish to or subscribe under
    ("device-hash", '[mqtt]\ndevice_id = "pi#1"\n', "mqtt.device_id"),
    ("device-plus", '[mqtt]\ndevice_id = "+"\n', "mqtt.device_id"),
    ("device-empty", '[mqtt]\ndevice_id = ""\n', "mqtt.device_id"),
    ("device-dollar", '[mqtt]\ndevice_id = "$SYS"\n', "mqtt.device_id"),
    ("device-nul", '[mqtt]\ndevice_id = "pi\\u0000"\n', "mqtt.device_id"),
    ("device-slash", '[mqtt]\ndevice_id = "kitchen/pi"\n', "mqtt.device_id"),
    ("device-newline", '[mqtt]\ndevice_id = "pi\\n"\n', "mqtt.device_id"),
    ("base-hash", '[mqtt]\nbase_topic = "edge/#"\n', "mqtt.base_topic"),
    ("base-plus", '[mqtt]\nbase_topic = "edge/+/pi"\n', "mqtt.base_topic"),
    ("base-empty", '[mqtt]\nbase_topic = ""\n', "mqtt.base_topic"),
    ("base-dollar", '[mqtt]\nbase_topic = "$SYS/edge"\n', "mqtt.base_topic"),
    ("base-leading-slash", '[mqtt]\nbase_topic = "/edge"\n', "mqtt.base_topic"),
    ("base-double-slash", '[mqtt]\nbase_topic = "edge//pi"\n', "mqtt.base_topic"),
    ("base-only-slash", '[mqtt]\nbase_topic = "/"\n', "mqtt.base_topic"),
    ("ha-prefix-hash", '[mqtt]\nhomeassistant_prefix = "#"\n', "mqtt.homeassistant_prefix"),
    ("ha-prefix-empty", '[mqtt]\nhomeassistant_prefix = ""\n', "mqtt.homeassistant_prefix"),
    ("group-plus", '[mqtt]\nshared_group = "a+b"\n', "mqtt.shared_group"),
    ("group-slash", '[mqtt]\nshared_group = "a/b"\n', "mqtt.shared_group"),
    ("group-empty", '[mqtt]\nshared_group = ""\n', "mqtt.shared_group"),
    # the socket path
    ("socket-too-long", f'[socket]\npath = "/tmp/{"s" * 120}.sock"\n', "socket.path"),
    ("socket-nul", '[socket]\npath = "/tmp/a\\u0000b"\n', "socket.path"),
    ("socket-empty", '[socket]\npath = ""\n', "socket.path"),
    ("socket-dot", '[socket]\npath = "."\n', "socket.path"),
    # secrets and replies
    (
        "two-passwords",
        '[mqtt]\nusername = "u"\npassword = "x"\npassword_file = "p"\n',
        "mqtt.password_file",
    ),
    ("password-file-no-user", '[mqtt]\npassword_file = "p"\n', "mqtt.password_file"),
    ("reply-prefix-wildcard", '[mqtt]\nresponse_topic_prefixes = ["ha/#"]\n', "mqtt.response"),
]

# (id, file bytes): files that are not TOML at all; the message names the file.
BROKEN_FILES: list[tuple[str, bytes]] = [
    ("latin-1", "[mqtt]\nhost = 'caf\xe9'\n".encode("latin-1")),
    ("utf-16", "[mqtt]\nport = 1883\n".encode("utf-16")),
    ("binary-junk", bytes(range(256)) * 4),
    ("elf-header", b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64),
    ("nul-bytes", b"[mqtt]\nport = 1883\x00\n"),
    ("duplicate-key", b"[mqtt]\nport = 1883\nport = 1884\n"),
    ("duplicate-table", b"[mqtt]\nport = 1883\n[mqtt]\nhost = 'x'\n"),
    ("unclosed-string", b'[mqtt]\nhost = "broker\n'),
    ("unclosed-table", b"[mqtt\nport = 1\n"),
    ("bare-words", b"this is not toml\n"),
    ("json", b'{"mqtt": {"port": 1883}}'),
    ("yaml", b"mqtt:\n  port: 1883\n"),
    ("deep-arrays", b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n"),
    ("deep-inline-tables", b"a = " + b"{b = " * 5000 + b"1" + b"}" * 5000 + b"\n"),
    ("bad-date", b"[mqtt]\nport = 1979-13-45\n"),
    ("bad-offset", b"x = 1979-05-27T07:32:00+25:00\n"),
    ("lone-surrogate-escape", b'[mqtt]\nhost = "\\uD800"\n'),
    ("too-big", b"# " + b"x" * (2 << 20) + b"\n"),
]


def write(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "edgeagent.toml"
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    ("content", "key"), [c[1:] for c in BAD_CONFIGS], ids=[c[0] for c in BAD_CONFIGS]
)
def test_bad_value_is_a_config_error_naming_key_and_file(
    tmp_path: Path, content: str, key: str
) -> None:
    path = write(tmp_path, content)
    with pytest.raises(ConfigError) as raised:
        load_config(path, env={})
    message = str(raised.value)
    assert str(path) in message
    assert f"  {key}" in message, message
    assert "Input should be a valid" not in message  # pydantic's Python words, not TOML's


@pytest.mark.parametrize("content", [c[1] for c in BROKEN_FILES], ids=[c[0] for c in BROKEN_FILES])
def test_broken_file_is_a_config_error_naming_the_file(tmp_path: Path, content: bytes) -> None:
    path = write(tmp_path, content)
    with pytest.raises(ConfigError) as raised:
        load_config(path, env={})
    assert str(path) in str(raised.value)


def test_messages_say_what_is_expected(tmp_path: Path) -> None:
    def message(content: str) -> str:
        with pytest.raises(ConfigError) as raised:
            load_config(write(tmp_path, content), env={})
        return str(raised.value)

    assert "must be true or false" in message('[mqtt]\nenabled = "yes"\n')
    assert "must be a finite number" in message("[daemon]\nrequest_timeout_s = inf\n")
    assert "http://127.0.0.1:8000" in message('[llm.http]\nbase_url = "not a url"\n')
    wildcard = message('[mqtt]\ndevice_id = "pi#1"\n')
    assert "mqtt.device_id = 'pi#1'" in wildcard and "wildcards are not allowed" in wildcard
    assert "'$'" in message('[mqtt]\nbase_topic = "$SYS/x"\n')
    assert "107" in message(f'[socket]\npath = "/tmp/{"s" * 120}"\n')


def test_non_utf8_file_names_the_line_and_the_fix(tmp_path: Path) -> None:
    path = write(tmp_path, "# ok\n[mqtt]\nhost = 'caf\xe9'\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(byte 0xe9 on line 3\)"):
        load_config(path, env={})


def test_directory_as_config_file_says_to_pass_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory; pass the file in it"):
        load_config(tmp_path, env={})


def test_empty_file_means_the_defaults(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, b""), env={}).model_dump() == Config().model_dump()


def test_good_values_still_load(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            "[mqtt]\nenabled = true\nport = 1884\ndevice_id = 'pi-1_kitchen'\n"
            "base_topic = 'home/edge/'\nshared_group = 'fleet'\n"
            "[llm.http]\nbase_url = 'https://ollama.lan:11434/api'\n"
            "[daemon]\nrequest_timeout_s = 30\n"  # an integer is a fine number of seconds
            "[plugins.servo]\nspeed = 0.5\n",
        ),
        env={},
    )
    assert config.mqtt.enabled is True
    assert config.mqtt.base_topic == "home/edge"
    assert config.daemon.request_timeout_s == 30.0
    assert config.plugins["servo"]["speed"] == 0.5


# --- environment overrides ---------------------------------------------------------------


def test_env_overrides_are_json_so_booleans_and_numbers_keep_working() -> None:
    config = load_config(
        None,
        env={
            "EDGEAGENT_MQTT__ENABLED": "true",
            "EDGEAGENT_SOCKET__ENABLED": "false",
            "EDGEAGENT_MQTT__PORT": "1884",
            "EDGEAGENT_DAEMON__REQUEST_TIMEOUT_S": "2.5",
        },
    )
    assert config.mqtt.enabled is True and config.socket.enabled is False
    assert config.mqtt.port == 1884 and config.daemon.request_timeout_s == 2.5


def test_env_override_that_looks_like_a_number_stays_text_where_text_is_expected() -> None:
    config = load_config(
        None,
        env={
            "EDGEAGENT_MQTT__PASSWORD": "123456",
            "EDGEAGENT_MQTT__DEVICE_ID": "42",
            "EDGEAGENT_MQTT__PROTOCOL": "5",
        },
    )
    assert config.mqtt.password == "123456"
    assert config.mqtt.device_id == "42"
    assert config.mqtt.protocol == "5"


@pytest.mark.parametrize(
    ("var", "value", "key"),
    [
        ("EDGEAGENT_MQTT__ENABLED", "yes", "mqtt.enabled"),
        ("EDGEAGENT_MQTT__ENABLED", "1", "mqtt.enabled"),
        ("EDGEAGENT_DAEMON__REQUEST_TIMEOUT_S", "Infinity", "daemon.request_timeout_s"),
        ("EDGEAGENT_DAEMON__REQUEST_TIMEOUT_S", "NaN", "daemon.request_timeout_s"),
        ("EDGEAGENT_DAEMON__REQUEST_TIMEOUT_S", "1e999", "daemon.request_timeout_s"),
        ("EDGEAGENT_PLUGINS__SERVO__SPEED", "-Infinity", "plugins.servo.speed"),
        ("EDGEAGENT_MQTT__DEVICE_ID", "pi/#", "mqtt.device_id"),
        ("EDGEAGENT_LLM__HTTP__BASE_URL", "localhost", "llm.http.base_url"),
        ("EDGEAGENT_LLM__BACKEND", "5", "llm.backend"),
        ("EDGEAGENT_PLUGINS__LED", "[" * 3000 + "]" * 3000, "plugins.led"),
    ],
)
def test_bad_env_override_names_key_and_variable(var: str, value: str, key: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(None, env={var: value})
    assert f"{key} = " in str(raised.value) and f"(from {var})" in str(raised.value)


def test_env_override_into_a_scalar_names_the_variable(tmp_path: Path) -> None:
    path = write(tmp_path, "[mqtt]\nport = 1883\n")
    with pytest.raises(ConfigError, match=r"EDGEAGENT_MQTT__PORT__X overrides mqtt\.port\.x"):
        load_config(path, env={"EDGEAGENT_MQTT__PORT__X": "1"})


def test_constructed_configs_refuse_non_finite_numbers_too() -> None:
    from pydantic import ValidationError

    from edgeagent.config import DaemonConfig

    with pytest.raises(ValidationError):
        DaemonConfig(request_timeout_s=math.inf)


# --- finding the file ----------------------------------------------------------------------


def test_search_path_in_a_directory_this_user_cannot_enter_is_reported_not_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a user outside the service group meets: /etc/edgeagent is 0750, so even
    asking whether the file exists is refused. That must become a clear error, not a
    traceback and not a silent fall-back to the defaults (a socket path the daemon does
    not use)."""

    class Unenterable(type(Path())):  # type: ignore[misc]
        def is_file(self) -> bool:
            raise PermissionError(13, "Permission denied", str(self))

        def open(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
            raise PermissionError(13, "Permission denied", str(self))

    target = Unenterable("/etc/edgeagent/edgeagent.toml")
    monkeypatch.setattr("edgeagent.config_file.SEARCH_PATHS", (Path("/nonexistent/x.toml"), target))
    found = find_config(None, env={})
    assert found == target
    with pytest.raises(ConfigError) as raised:
        load_config(found, env={})
    message = str(raised.value)
    assert "Cannot read the config file /etc/edgeagent/edgeagent.toml: permission denied" in (
        message
    )
    assert "edgeagent" in message and "--config" in message


def test_tables_nested_past_the_limit_are_refused_with_a_short_message(tmp_path: Path) -> None:
    """Dotted keys nest without recursion in the TOML parser, so 5,000 levels load; the
    config must refuse them (``config show`` could not print them) in a readable line."""
    path = write(tmp_path, "[plugins." + ".".join(["a"] * 5000) + "]\nk = 1\n")
    with pytest.raises(ConfigError) as raised:
        load_config(path, env={})
    message = str(raised.value)
    assert "plugins.a.a" in message and "at most 16 levels deep" in message
    assert len(message) < 1000


def test_a_named_pipe_as_config_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "edgeagent.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config(fifo, env={})  # reading it would block until a writer came
