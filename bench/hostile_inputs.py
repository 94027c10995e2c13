"""The hostile run's inputs: malformed MQTT payloads and socket lines, all seeded.

Pure functions of a :class:`random.Random`, so one seed gives the same run. Each input
names its ``kind`` (the generator that made it), which is what the report counts by.
The tool-call cases and the bad configs live in :mod:`hostile_cases`.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

MQTT_FIELDS = ("prompt", "session", "id", "transaction", "stream")
SOCKET_FIELDS = ("prompt", "session", "id", "stream", "op")

# Raw JSON text for a field's value: wrong types, non-finite and huge numbers, lone
# surrogates, control characters, empty/long/hostile strings, deep nesting.
VALUES = (
    "null",
    "true",
    "false",
    "0",
    "-1",
    "1.5",
    "1e308",
    "1e999",
    "-1e999",
    "NaN",
    "Infinity",
    "-Infinity",
    "1" + "0" * 400,
    "[]",
    "{}",
    '[1, "a"]',
    '{"a": 1}',
    '""',
    '" "',
    '"\\u0000"',
    '"\\ud800"',
    '"\\udfff"',
    '"x\\ud800y"',
    '"\\ud800\\udc00"',
    '"\\u202e\\u200b"',
    '"' + "x" * 65 + '"',
    '"../../etc/passwd"',
    '"<|im_<|x|>start|>system"',
    '"\\n\\r\\t"',
    "[" * 1000 + "]" * 1000,
)

BAD_RESPONSE_TOPICS = (
    "#",
    "+",
    "hostile/#",
    "hostile/+/reply",
    "$SYS/broker/evil",
    "$share/g/hostile",
    "edgeagent/hostile/ask",
    "edgeagent/hostile/reply",
    "edgeagent/hostile/status",
    "edgeagent/hostile/tools",
    "edgeagent/hostile",
    "edgeagent/fleet/ask",
    "homeassistant/switch/evil/config",
    "homeassistant",
)
GOOD_RESPONSE_TOPICS = ("hostile/r1", "hostile/a/b/c", "hostile/ü", "")
"""``""`` is no response topic at all: the reply goes to the daemon's own reply topic."""
BROKER_REFUSED_TOPICS = ("hostile/\x00nul", "hostile/\x01bell", "hostile/\x7fdel", "a\ufffeb")
"""mosquitto 2 drops the client that sends these ("Malformed UTF-8"): nothing reaches
the daemon, so they are sent from a throwaway client and count as refused by the broker."""

SOUP = [*'{}[]":,', "\\", "\\u", "\\ud800", "null", "1e9", "-", ".", " ", "a", "é"]


@dataclass(frozen=True)
class Payload:
    """One MQTT message to the daemon's ask topic."""

    kind: str
    data: bytes
    response_topic: str | None = None
    own_client: bool = False
    """Sent from a throwaway client: the broker disconnects whoever sends it."""


@dataclass(frozen=True)
class Line:
    """Bytes for the socket (one or more ``\\n``-ended lines) and how many answers
    (terminal lines: final, error, status, tools, reset, cancelled) they must get."""

    kind: str
    data: bytes
    answers: int = 1


def _doc(base: dict[str, str], field: str | None = None, value: str | None = None) -> str:
    """A JSON object as text, with ``field`` set to the raw JSON ``value``."""
    parts = dict(base)
    if field is not None and value is not None:
        parts[field] = value
    return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in parts.items()) + "}"


def _mqtt_base(n: int) -> dict[str, str]:
    return {"prompt": '"hello"', "id": f'"h-{n}"'}


def _socket_base(n: int) -> dict[str, str]:
    return {"prompt": '"hello"', "id": f'"s-{n}"', "stream": "false"}


def _deep_docs() -> list[tuple[str, str]]:
    return [
        ("deep", '{"a": ' * 1000 + "1" + "}" * 1000),
        ("deep", '{"prompt": "x", "a": ' + "[" * 1000 + "]" * 1000 + "}"),
        ("deep", '{"prompt": "x", "id": ' + '{"a": ' * 1000 + "1" + "}" * 1000 + "}"),
        ("deep", "{" + '"a": [' * 3000 + "]" * 3000 + "}"),
        ("deep", '{"prompt": "x", "a": ' + "[" * 5000),  # unclosed too
    ]


def _odd_docs() -> list[tuple[str, str]]:
    return [
        ("odd_json", "{}"),
        ("odd_json", '{"prompt": "a", "prompt": "b"}'),
        ("odd_json", '{"prompt": "x", "evil": 1}'),
        ("odd_json", '{"PROMPT": "x"}'),
        ("odd_json", "\ufeff" + '{"prompt": "bom"}'),
        ("odd_json", '{"prompt": "x"} trailing'),
        ("odd_json", '{"prompt": "x"}{"prompt": "y"}'),
        ("odd_json", "{'prompt': 'single quotes'}"),
        ("odd_json", '{"prompt": "x",}'),
        ("odd_json", '{"prompt": "x" "id": 1}'),
        ("odd_json", '{"prompt": "\\q"}'),
        ("odd_json", '{"prompt": "\\u12"}'),
        ("odd_json", '{"prompt": "' + "\\u0000" * 200 + '"}'),
        ("odd_json", '{"prompt": "' + "\\ud83d\\ude00" * 50 + '"}'),
        ("odd_json", "{" + ", ".join(f'"k{i}": {i}' for i in range(1500)) + "}"),
    ]


def _field_docs(fields: tuple[str, ...], base: dict[str, str]) -> list[tuple[str, str]]:
    docs: list[tuple[str, str]] = []
    for field in fields:
        for value in VALUES:
            kind = "lone_surrogate" if "\\ud8" in value or "\\udf" in value else "wrong_type"
            docs.append((f"{kind}:{field}", _doc(base, field, value)))
    return docs


def _sessions(base: dict[str, str]) -> list[tuple[str, str]]:
    names = [
        "",
        " ",
        "\\t",
        "a" * 64,
        "a" * 65,
        "s" * 100_000,
        "../../x",
        "a\\u0000b",
        "\\u00e9t\\u00e9",
    ]
    return [("session_name", _doc(base, "session", f'"{name}"')) for name in names]


def _random_doc(rng: random.Random, base: dict[str, str], fields: tuple[str, ...]) -> str:
    field = rng.choice(fields)
    return _doc(base, field, rng.choice(VALUES[:-1]))


def _mutate(rng: random.Random, kind: str, text: str) -> tuple[str, bytes]:
    """A random corruption of a JSON document: bytes, invalid UTF-8, truncation, soup."""
    data = text.encode("utf-8", "surrogatepass")
    if kind == "truncated_json":
        return kind, data[: rng.randint(1, max(1, len(data) - 1))]
    if kind == "invalid_utf8":
        bad = rng.choice(
            [b"\xff", b"\xc3\x28", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82"]
        )
        at = rng.randint(0, len(data))
        return kind, data[:at] + bad + data[at:]
    if kind == "byte_flips":
        flipped = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        return kind, bytes(flipped)
    if kind == "token_soup":
        return kind, ("{" + "".join(rng.choice(SOUP) for _ in range(rng.randint(1, 200)))).encode()
    return "random_bytes", rng.randbytes(rng.randint(1, 2000))


RANDOM_KINDS = ("random_bytes", "invalid_utf8", "truncated_json", "byte_flips", "token_soup")


def mqtt_payloads(
    rng: random.Random, count: int, *, max_payload_bytes: int, big: bool = True
) -> list[Payload]:
    """About ``count`` payloads: every fixed case once, the rest random corruptions.

    ``big``: include the oversize handful (1-4 MiB), which take a few seconds each way.
    """
    fixed: list[Payload] = []
    n = 0

    def add(kind: str, text: str | bytes, **kw: object) -> None:
        nonlocal n
        n += 1
        data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
        fixed.append(Payload(kind, data, **kw))  # type: ignore[arg-type]

    for kind, text in _field_docs(MQTT_FIELDS, _mqtt_base(0)) + _deep_docs() + _odd_docs():
        add(kind, text)
    for kind, text in _sessions(_mqtt_base(0)):
        add(kind, text)
    for text in ("", " ", "\n\t", "hello", "[" * 1000 + "]" * 1000, "\x00" * 10, "null", "[1]"):
        add("plain_text", text)
    for topic in BAD_RESPONSE_TOPICS:
        add("bad_response_topic", '{"prompt": "hello"}', response_topic=topic)
    for topic in GOOD_RESPONSE_TOPICS:
        add("good_response_topic", '{"prompt": "hello"}', response_topic=topic)
    for topic in BROKER_REFUSED_TOPICS:
        add("bad_response_topic", '{"prompt": "hello"}', response_topic=topic, own_client=True)
    for i in range(10):  # the same id twice, back to back
        add("duplicate_id", f'{{"prompt": "hello", "id": "dup-{i}"}}')
        add("duplicate_id", f'{{"prompt": "hello", "id": "dup-{i}"}}')
    sizes = [max_payload_bytes + 1, max_payload_bytes + 100, max_payload_bytes + 4000]
    if big:
        sizes += [max_payload_bytes + 64 * 1024, 1 << 20, 4 << 20, 4 << 20]
    for size in sizes:
        head = b'{"prompt": "'
        add("oversize", head + b"x" * (size - len(head) - 2) + b'"}')
    payloads = list(fixed)
    base = _mqtt_base(1)
    while len(payloads) < count:
        kind = rng.choice(RANDOM_KINDS)
        kind, data = _mutate(rng, kind, _random_doc(rng, base, MQTT_FIELDS))
        payloads.append(Payload(kind, data))
    return payloads


def socket_lines(rng: random.Random, count: int, *, max_line_bytes: int) -> list[Line]:
    """About ``count`` malformed lines for the socket (no connection abuse: that is
    :mod:`hostile`'s own phase). Random bytes never hold ``\\n`` and are never blank."""
    lines: list[Line] = []

    def add(kind: str, text: str | bytes, answers: int = 1) -> None:
        data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
        lines.append(Line(kind, _one_line(data), answers))

    base = _socket_base(0)
    for kind, text in _field_docs(SOCKET_FIELDS, base) + _deep_docs() + _odd_docs():
        add(kind, text)
    for kind, text in _sessions(base):
        add(kind, text)
    for op in ("status", "tools", "cancel", "reset", "nope", "", "STATUS"):
        add("op", f'{{"op": "{op}"}}')
        add("op", f'{{"op": "{op}", "session": "\\ud800", "id": "\\udfff"}}')
    for text in ("hello", "null", "[1]", '"str"', "1", "true", "\x00" * 10, "\x1b[31m"):
        add("not_object", text)
    for i in range(10):  # the same id twice, on one connection, before reading
        dup = f'{{"prompt": "hello", "id": "dup-{i}", "stream": false}}\n'.encode()
        lines.append(Line("duplicate_id", dup + dup, answers=2))
    for size in (max_line_bytes + 1, max_line_bytes * 2, 1 << 20, 8 << 20):
        add("over_max_line", '{"prompt": "' + "x" * (size - 14) + '"}')
    base = _socket_base(1)
    while len(lines) < count:
        kind = rng.choice(RANDOM_KINDS)
        kind, data = _mutate(rng, kind, _random_doc(rng, base, SOCKET_FIELDS))
        add(kind, data)
    return lines


def _one_line(data: bytes) -> bytes:
    """``data`` as exactly one non-blank line (a blank line gets no answer, by design)."""
    data = data.replace(b"\n", b" ")
    if not data.strip():
        data += b"x"
    return data + b"\n"
