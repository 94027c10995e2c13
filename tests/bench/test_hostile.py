"""bench/hostile.py: seeded inputs, the tally and its doc section, one small real category."""

from __future__ import annotations

import json
import random
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_cases import config_cases, prompt_for, script, tool_cases
from hostile_inputs import mqtt_payloads, socket_lines
from hostile_net import run_socket_lines
from hostile_report import END, START, TITLE, Row, section, write_section
from hostile_rig import Daemon, write_daemon_config

from edgeagent.llm.scripted import ScriptedEngine


def test_the_same_seed_gives_the_same_inputs_and_every_kind_is_there() -> None:
    first = mqtt_payloads(random.Random(9), 400, max_payload_bytes=16384, big=False)
    again = mqtt_payloads(random.Random(9), 400, max_payload_bytes=16384, big=False)
    other = mqtt_payloads(random.Random(10), 400, max_payload_bytes=16384, big=False)
    assert first == again and first != other
    kinds = {p.kind.split(":")[0] for p in first}
    wanted = [
        "wrong_type",
        "lone_surrogate",
        "deep",
        "session_name",
        "bad_response_topic",
        "duplicate_id",
        "oversize",
        "random_bytes",
        "truncated_json",
        "invalid_utf8",
    ]
    assert set(wanted) <= kinds, set(wanted) - kinds
    assert any(p.kind == "wrong_type:stream" for p in first)


def test_socket_lines_are_single_non_blank_lines() -> None:
    lines = socket_lines(random.Random(9), 600, max_line_bytes=65536)
    assert len(lines) >= 600
    for line in lines:
        assert line.data.endswith(b"\n")
        parts = line.data.split(b"\n")[:-1]
        assert len(parts) == line.answers and all(p.strip() for p in parts)


def test_each_hostile_prompt_gets_its_own_scripted_reply(tmp_path: Path) -> None:
    cases = tool_cases()
    assert len(cases) >= 160
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script(cases)))
    engine = ScriptedEngine.from_file(path)
    for i, case in enumerate(cases):
        said = engine.reply_for([{"role": "user", "content": prompt_for(i)}])
        assert said == case.reply, (i, case.group)


def test_bad_configs_are_many_and_named() -> None:
    cases = config_cases()
    assert len(cases) >= 78
    assert len({c.name for c in cases}) == len(cases)


def test_the_tally_and_the_section_it_writes(tmp_path: Path) -> None:
    row = Row("2. socket")
    row.record("deep", True)
    row.record("deep", False, example="[[[[")
    row.record("oversize", False, refused=True)
    row.breach("the answer holds the secret 'x'")
    assert (row.inputs, row.answered, row.refused, row.unanswered) == (3, 1, 1, 1)
    text = section(["header line"], [row])
    assert "| 2. socket | 3 | 1 | 1 | 1 | 0 | 0 | 1 |" in text
    assert "1 unanswered `deep`, e.g. `[[[[`" in text

    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\n## Someone else's\n\nkeep me\n")
    write_section(doc, text)
    write_section(doc, text.replace("header line", "second run"))
    written = doc.read_text()
    assert written.count(TITLE) == 1 and written.count(START) == 1 and written.count(END) == 1
    assert "keep me" in written and "second run" in written and "header line" not in written


@pytest.fixture
def silent_socket(tmp_path: Path) -> Iterator[Path]:
    """A Unix socket that reads everything and never answers."""
    path = Path("/tmp") / f"ea-silent-{tmp_path.name[-20:]}.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield path
    finally:
        server.close()
        for conn in held:
            conn.close()
        path.unlink(missing_ok=True)


def test_a_server_that_never_answers_is_tallied_unanswered(silent_socket: Path) -> None:
    row = Row("socket")
    lines = socket_lines(random.Random(1), 3, max_line_bytes=65536)[:3]
    run_socket_lines(silent_socket, lines, row, timeout_s=0.2)
    assert (row.inputs, row.answered, row.unanswered) == (3, 0, 3)


def test_malformed_lines_against_the_real_daemon_are_all_answered(tmp_path: Path) -> None:
    work = Path("/tmp") / f"ea-h-{tmp_path.name[-12:]}"  # socket paths must stay short
    config, sock = write_daemon_config(work, script={"rules": [], "default": "ok"})
    daemon = Daemon(config, socket_path=sock)
    daemon.start()
    try:
        lines = socket_lines(random.Random(9), 0, max_line_bytes=65536)
        chosen = [line for line in lines if line.kind != "over_max_line"][::8]
        row = Row("socket")
        run_socket_lines(sock, chosen, row)
        assert row.unanswered == 0, row.examples
        assert daemon.alive()
    finally:
        daemon.stop()
        log = daemon.log()
        shutil.rmtree(work, ignore_errors=True)
    assert row.inputs == len(chosen) > 20, len(chosen)
    assert "Traceback" not in log, log[-3000:]
