"""Every config key does something: each field of :class:`Config` is read by the code.

A key that nothing reads is a promise the program does not keep (``[llm.http]
native_tools`` did nothing for a whole release). This fails when a key is added and
never used, or when the code that used one is removed and the key is left behind.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from edgeagent.config import Config

ROOT = Path(__file__).resolve().parents[1]
CONFIG_MODULE = ROOT / "edgeagent" / "config.py"


def sources() -> str:
    """The code that may read config: the core (but not the config module, which only
    declares and validates), the first-party plugins and the simulators."""
    files = [
        p
        for folder in ("edgeagent", "plugins", "simulators")
        for p in (ROOT / folder).rglob("*.py")
        if p != CONFIG_MODULE
    ]
    return "\n".join(p.read_text(encoding="utf-8") for p in files)


def fields(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, str]]:
    for name, info in model.model_fields.items():
        if info.exclude:
            continue
        yield f"{prefix}{name}", name
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
            yield from fields(info.annotation, f"{prefix}{name}.")


CODE = sources()


def is_read(name: str) -> bool:
    """Read as an attribute (``config.mqtt.port``), by name (a dump), or as the keyword
    parameter a whole section is passed into (``HailoEngine(**[llm.hailo] fields)``)."""
    pattern = rf"\.{name}\b|[\"']{name}[\"']|^\s+{name}: [^=\n]+ = "
    return re.search(pattern, CODE, re.M) is not None


@pytest.mark.parametrize(("key", "name"), list(fields(Config)), ids=lambda v: str(v))
def test_every_config_key_is_read_somewhere(key: str, name: str) -> None:
    section = key.rpartition(".")[0] or "top level"
    assert is_read(name), f"[{section}] {name} is never read: wire it up or delete it"


def test_the_check_sees_a_key_nothing_reads() -> None:
    class Probe(BaseModel):
        never_read_by_anything_xyz: int = 0

    ((_, name),) = fields(Probe)
    assert not is_read(name)
