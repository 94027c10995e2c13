"""Reading a config: the file, its ``EDGEAGENT_...`` overrides, and errors naming keys.

``EDGEAGENT_MQTT__PORT=1884`` overrides ``[mqtt] port`` (sections and keys joined by a
double underscore); a value is read as JSON (``true``, ``1884``), except that where text
is expected the variable's own text is kept (``EDGEAGENT_MQTT__PASSWORD=123456``). An
invalid config (or a file that cannot be read) fails with a :class:`ConfigError` naming
the file, the key, the bad value and what is allowed; ``edgeagent config check`` reports
the same without starting anything. The schema itself is :mod:`edgeagent.config`.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import reprlib
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from edgeagent.config import Config
from edgeagent.errors import ConfigError

ENV_PREFIX = "EDGEAGENT_"
SEARCH_PATHS = (Path("config/edgeagent.toml"), Path("/etc/edgeagent/edgeagent.toml"))
MAX_CONFIG_BYTES = 1 << 20
"""A config file is a few kilobytes; more is a wrong path (``/dev/zero``, a log file)."""
MAX_DEPTH = 16
"""Tables and lists nested deeper than this are a mistake (or an attack), not a config."""


def find_config(
    explicit: Path | None = None, *, env: Mapping[str, str] | None = None
) -> Path | None:
    """The config file to use: ``--config``, ``$EDGEAGENT_CONFIG``, then the search paths."""
    env = os.environ if env is None else env
    if explicit is not None:
        return explicit
    if env.get("EDGEAGENT_CONFIG"):
        return Path(env["EDGEAGENT_CONFIG"])
    for path in SEARCH_PATHS:
        try:
            if path.is_file():
                return path
        except PermissionError:
            # A directory this user may not enter (/etc/edgeagent is the service group's):
            # the file is probably there, and load_config says why it cannot be read.
            return path
        except OSError:
            continue
    return None


def _parse_env_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return raw


def _apply_env(data: dict[str, Any], env: Mapping[str, str]) -> dict[str, str]:
    """Apply ``EDGEAGENT_SECTION__KEY`` overrides in place; return key -> variable name."""
    origins: dict[str, str] = {}
    for var, raw in sorted(env.items()):
        if not var.startswith(ENV_PREFIX) or "__" not in var:
            continue
        parts = [p.lower() for p in var[len(ENV_PREFIX) :].split("__")]
        node = data
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ConfigError(f"{var} overrides {'.'.join(parts)}, but {part} is not a table")
            node = child
        node[parts[-1]] = _parse_env_value(raw)
        origins[".".join(parts)] = var
    return origins


def read_config_file(path: Path) -> dict[str, Any]:
    """The TOML tables of ``path``; every way it can be unreadable is a :class:`ConfigError`."""
    with contextlib.suppress(OSError):  # what stat cannot see, open reports below
        if path.exists() and not path.is_file() and not path.is_dir():
            raise ConfigError(
                f"Config file {path} is not a regular file (a pipe, socket or device would "
                f"block or never end); pass a TOML file"
            )
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(
            f"Config file {path} does not exist; copy config/edgeagent.toml (laptop) "
            f"or config/edgeagent.pi.toml (Pi) there, or pass --config"
        ) from None
    except IsADirectoryError:
        raise ConfigError(
            f"Config file {path} is a directory; pass the file in it, e.g. "
            f"--config {path / 'edgeagent.toml'}"
        ) from None
    except PermissionError:
        raise ConfigError(
            f"Cannot read the config file {path}: permission denied; run as a member of "
            f"the group that owns it (the service's group, e.g. `sudo usermod -aG edgeagent "
            f"$USER`, then log in again), or pass --config with a file you can read"
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"Cannot read the config file {path}: {exc.strerror or exc}; check the path "
            f"or pass --config"
        ) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"Config file {path} is larger than {MAX_CONFIG_BYTES // 1024} KiB, so it is "
            f"not an edgeagent config; check the path or pass --config"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"Config file {path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} on line "
            f"{line}); TOML files must be UTF-8: save it as UTF-8 (for a Latin-1 file: "
            f"`iconv -f latin1 -t utf-8 {path.name} > fixed.toml`)"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: arrays or tables nested too deeply") from None


def load_config(path: Path | None = None, *, env: Mapping[str, str] | None = None) -> Config:
    """Read, override from the environment, and validate. Raise :class:`ConfigError`."""
    env = os.environ if env is None else env
    data = read_config_file(path) if path is not None else {}
    origins = _apply_env(data, env)
    problems = list(_value_problems(data))
    if problems:
        raise ConfigError(format_problems(problems, path, origins))
    try:
        try:
            config = Config.model_validate(data)
        except ValidationError as exc:
            if not _overrides_as_text(exc, data, origins, env):
                raise
            config = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, path, origins)) from None
    config.source = path.resolve() if path is not None else None
    return config


_TEXT_ERRORS = frozenset({"string_type", "literal_error"})


def _overrides_as_text(
    exc: ValidationError, data: dict[str, Any], origins: Mapping[str, str], env: Mapping[str, str]
) -> bool:
    """Put back the raw text of overrides that JSON made a number or boolean where text
    is expected (``EDGEAGENT_MQTT__PASSWORD=123456``, ``EDGEAGENT_MQTT__PROTOCOL=5``);
    whether any was put back."""
    retried = False
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        if err["type"] in _TEXT_ERRORS and key in origins and not isinstance(err["input"], str):
            *tables, last = key.split(".")
            node = data
            for table in tables:
                node = node[table]
            node[last] = env[origins[key]]
            retried = True
    return retried


def _value_problems(data: Mapping[str, Any]) -> Iterator[tuple[str, Any, str]]:
    """``(key, value, why)`` for every inf or nan and for nesting past ``MAX_DEPTH``, in
    plugin tables too (pydantic sees those as ``Any``). Iterative, so no depth can
    overflow the stack here."""
    stack: list[tuple[str, int, Any]] = [(str(k), 1, v) for k, v in reversed(list(data.items()))]
    while stack:
        key, depth, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            yield key, value, "must be a finite number (not inf or nan)"
        elif depth >= MAX_DEPTH and isinstance(value, Mapping | list) and value:
            yield key, value, f"tables and lists may nest at most {MAX_DEPTH} levels deep"
        elif isinstance(value, Mapping):
            stack.extend((f"{key}.{k}", depth + 1, v) for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            items = reversed(list(enumerate(value)))
            stack.extend((f"{key}.{i}", depth + 1, v) for i, v in items)


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 200
_SHORT.maxlevel = 3
"""Values in messages: a 5,000-level table or a megabyte string must not flood a terminal."""

_MESSAGES = {
    "extra_forbidden": "unknown key; check its spelling against config/edgeagent.toml",
    "bool_type": "must be true or false (a TOML boolean, without quotes)",
    "int_type": "must be a whole number (without quotes)",
    "float_type": "must be a number (without quotes)",
    "finite_number": "must be a finite number (not inf or nan)",
    "string_type": "must be text (in quotes)",
    "list_type": 'must be a list, e.g. ["a", "b"]',
    "tuple_type": 'must be a list, e.g. ["a", "b"]',
    "dict_type": "must be a table",
    "model_type": "must be a table",
}
"""Pydantic's wording where a TOML user needs another: theirs names Python types."""


def format_validation_error(
    exc: ValidationError, path: Path | None, origins: Mapping[str, str] | None = None
) -> str:
    problems = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        msg = _MESSAGES.get(err["type"], err["msg"])
        if err["type"] == "value_error" and "error" in err.get("ctx", {}):
            msg = str(err["ctx"]["error"])  # our own checks' words, without "Value error, "
        problems.append((key, err.get("input"), msg))
    return format_problems(problems, path, origins)


def format_problems(
    problems: list[tuple[str, Any, str]], path: Path | None, origins: Mapping[str, str] | None
) -> str:
    """One line per ``(key, value, why)``, each naming the variable that set it, if any."""
    where = str(path) if path else "the default config"
    lines = [f"Invalid configuration in {where}:"]
    for key, value, why in problems:
        via = f" (from {origins[key]})" if origins and key in origins else ""
        lines.append(f"  {key} = {_SHORT.repr(value)}{via}: {why}")
    return "\n".join(lines)
