"""The prompt state cache on its own (no model): keys, files, damage, the bound."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest

from edgeagent.llm.prompt_cache import MAGIC, PromptStateCache, state_key

TOKENS = [1, 2, 3, 50000, 7]
PAYLOAD = bytes(range(256)) * 40


def test_the_key_changes_with_every_part_and_only_then() -> None:
    base = state_key("model.gguf", 1234, "0.3.36", "template", TOKENS)
    assert base == state_key("model.gguf", 1234, "0.3.36", "template", list(TOKENS))
    changed = [
        state_key("other.gguf", 1234, "0.3.36", "template", TOKENS),
        state_key("model.gguf", 1235, "0.3.36", "template", TOKENS),
        state_key("model.gguf", 1234, "0.3.37", "template", TOKENS),
        state_key("model.gguf", 1234, "0.3.36", "template!", TOKENS),
        state_key("model.gguf", 1234, "0.3.36", "template", [*TOKENS, 8]),
        state_key("model.gguf", 1234, "0.3.36", "template", TOKENS[::-1]),
        # Parts are framed: moving text from one part to the next is another key.
        state_key("model.ggu", 1234, "0.3.36", "ftemplate", TOKENS),
    ]
    assert base not in changed
    assert len(set(changed)) == len(changed)


def test_a_stored_state_loads_back_and_no_temporary_file_is_left(tmp_path: Path) -> None:
    cache = PromptStateCache(tmp_path / "states", max_bytes=10 * 2**20)
    key = state_key("a", TOKENS)
    assert cache.load(key) is None  # nothing yet: a plain miss
    path = cache.store(key, TOKENS, PAYLOAD)
    assert path == cache.path(key)
    assert path.read_bytes().startswith(MAGIC)
    assert [p.name for p in (tmp_path / "states").iterdir()] == [path.name]
    stored = cache.load(key)
    assert stored is not None
    assert stored.tokens == TOKENS
    assert stored.payload == PAYLOAD


def _damage_truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-100])


def _damage_flipped(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-500] ^= 0xFF
    path.write_bytes(bytes(data))


def _damage_header(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(MAGIC) + 10])


def _damage_not_a_state(path: Path) -> None:
    path.write_bytes(b"GGUF" + bytes(1000))


def _damage_empty(path: Path) -> None:
    path.write_bytes(b"")


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (_damage_truncated, "truncated"),
        (_damage_flipped, "checksum mismatch"),
        (_damage_header, "truncated or damaged header"),
        (_damage_not_a_state, "not a prompt state file"),
        (_damage_empty, "not a prompt state file"),
    ],
)
def test_a_damaged_file_is_logged_deleted_and_a_miss(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: object, reason: str
) -> None:
    cache = PromptStateCache(tmp_path, max_bytes=10 * 2**20)
    key = state_key("a", TOKENS)
    path = cache.store(key, TOKENS, PAYLOAD)
    assert path is not None
    assert callable(damage)
    damage(path)
    with caplog.at_level(logging.WARNING, logger="edgeagent.llm.prompt_cache"):
        assert cache.load(key) is None
    assert not path.exists()
    assert reason in caplog.text
    assert str(path) in caplog.text
    # Rebuilt: the next store is a good file again.
    cache.store(key, TOKENS, PAYLOAD)
    assert cache.load(key) is not None


def test_a_file_of_another_key_is_never_trusted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = PromptStateCache(tmp_path, max_bytes=10 * 2**20)
    mine, theirs = state_key("mine", TOKENS), state_key("theirs", TOKENS)
    path = cache.store(theirs, TOKENS, PAYLOAD)
    assert path is not None
    os.replace(path, cache.path(mine))  # a renamed (or colliding) file
    with caplog.at_level(logging.WARNING, logger="edgeagent.llm.prompt_cache"):
        assert cache.load(mine) is None
    assert f"it holds key {theirs[:12]}" in caplog.text
    assert not cache.path(mine).exists()


def test_the_directory_stays_under_its_bound_least_recently_used_first(tmp_path: Path) -> None:
    one = len(PAYLOAD) + 4 * len(TOKENS) + 300  # a file with its header, roughly
    cache = PromptStateCache(tmp_path, max_bytes=3 * one)
    keys = [state_key("prompt", i) for i in range(5)]
    for index, key in enumerate(keys[:3]):
        cache.store(key, TOKENS, PAYLOAD)
        os.utime(cache.path(key), (1000.0 + index, 1000.0 + index))  # a clear order
    assert cache.load(keys[0]) is not None  # used again: now the most recent
    cache.store(keys[3], TOKENS, PAYLOAD)
    cache.store(keys[4], TOKENS, PAYLOAD)
    assert cache.size() <= cache.max_bytes
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {cache.path(k).name for k in (keys[0], keys[3], keys[4])}


def test_a_state_larger_than_the_bound_is_not_written(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = PromptStateCache(tmp_path, max_bytes=len(PAYLOAD) // 2)
    with caplog.at_level(logging.WARNING, logger="edgeagent.llm.prompt_cache"):
        assert cache.store(state_key("big"), TOKENS, PAYLOAD) is None
    assert "state_cache_max_mb" in caplog.text
    assert list(tmp_path.iterdir()) == []


def test_a_stale_temporary_file_is_cleared_and_a_fresh_one_kept(tmp_path: Path) -> None:
    cache = PromptStateCache(tmp_path, max_bytes=10 * 2**20)
    stale, fresh = tmp_path / ".dead.123.tmp", tmp_path / ".writing.456.tmp"
    stale.write_bytes(b"x" * 100)
    fresh.write_bytes(b"x" * 100)
    old = time.time() - 2 * 3600
    os.utime(stale, (old, old))
    cache.store(state_key("a"), TOKENS, PAYLOAD)
    assert not stale.exists()
    assert fresh.exists()


def test_an_unwritable_directory_costs_a_log_line_not_a_failure(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the directory should be")
    cache = PromptStateCache(blocker / "states", max_bytes=10 * 2**20)
    with caplog.at_level(logging.WARNING, logger="edgeagent.llm.prompt_cache"):
        assert cache.store(state_key("a"), TOKENS, PAYLOAD) is None
        assert cache.load(state_key("a")) is None
    assert "cannot cache the prompt state" in caplog.text
