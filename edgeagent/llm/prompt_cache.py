"""Primed prompt states on disk: the KV state of the start every conversation shares.

Every conversation starts with the same messages (the system prompt with the tool
manifest, and the primer), and evaluating them is most of a cold first turn. An engine
that can save its context (llama.cpp) stores that state here once, under a key that
hashes everything the state depends on (:func:`state_key`), and restores it when it
starts again. A changed tool set, prompt, template or model gives a new key, so an old
state is never used for a prompt it does not hold.

A file is written atomically (a temporary file renamed into place) with a small
header: the key, the token count, the body's length and its SHA-256. A truncated or
corrupt file, or one that holds another key, is logged, deleted and reported as a
miss, so the engine rebuilds it. The directory is bounded: after each store the least
recently used files (by modification time, which a load refreshes) go first.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import struct
import time
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

FORMAT = 1
"""The file layout's version; part of every key, so a new layout never reads an old file."""
MAGIC = b"EDGEAGENT-STATE\n"
SUFFIX = ".state"
_LENGTH = struct.Struct("<I")
_MAX_HEADER = 4096
_STALE_TMP_S = 3600.0
"""A temporary file this old was left by a process that died while writing it."""


def state_key(*parts: str | int | Sequence[int]) -> str:
    """A hex digest of everything a saved state depends on (model, template, tokens)."""
    digest = hashlib.sha256(str(FORMAT).encode())
    for part in parts:
        if isinstance(part, str | int):
            encoded = json.dumps(part).encode()
        else:
            encoded = array("i", part).tobytes()
        digest.update(_LENGTH.pack(len(encoded)))
        digest.update(encoded)
    return digest.hexdigest()


@dataclass(frozen=True)
class StoredState:
    """What a state file holds: the tokens it covers and the engine's opaque state."""

    tokens: list[int]
    payload: bytes


class PromptStateCache:
    """A directory of state files, at most ``max_bytes`` in all (least recently used go)."""

    def __init__(self, directory: Path, *, max_bytes: int) -> None:
        self.directory = Path(directory).expanduser()
        self.max_bytes = max_bytes

    def path(self, key: str) -> Path:
        return self.directory / f"{key}{SUFFIX}"

    # --- reading ------------------------------------------------------------------------

    def load(self, key: str) -> StoredState | None:
        """The state stored under ``key``; ``None`` when there is none or it is unusable
        (then the file is deleted and the reason logged)."""
        path = self.path(key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("cannot read the cached prompt state %s (%s); rebuilding it", path, exc)
            return None
        try:
            state = _decode(data, key)
        except ValueError as exc:
            log.warning("discarding the cached prompt state %s: %s; rebuilding it", path, exc)
            self.discard(key)
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: the last to be evicted
        return state

    def discard(self, key: str) -> None:
        try:
            self.path(key).unlink(missing_ok=True)
        except OSError as exc:
            log.warning("cannot delete the cached prompt state %s: %s", self.path(key), exc)

    # --- writing ------------------------------------------------------------------------

    def store(self, key: str, tokens: Sequence[int], payload: bytes) -> Path | None:
        """Write the state atomically, then trim the directory to its bound.

        ``None`` when it was not written: larger than the whole bound, or the directory
        is not writable (then every start evaluates the prompt, as without a cache).
        """
        data = _encode(key, tokens, payload)
        path = self.path(key)
        if len(data) > self.max_bytes:
            log.warning(
                "the prompt state for %d tokens takes %.1f MB, more than [llm.llamacpp] "
                "state_cache_max_mb allows (%.1f MB); not caching it. Raise the bound to "
                "make restarts fast again",
                len(tokens), len(data) / 1e6, self.max_bytes / 1e6,
            )  # fmt: skip
            return None
        tmp = self.directory / f".{key}.{os.getpid()}.tmp"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(data)
            os.replace(tmp, path)
        except OSError as exc:
            log.warning("cannot cache the prompt state in %s: %s", self.directory, exc)
            _unlink(tmp)
            return None
        self.evict(keep=path)
        return path

    def evict(self, *, keep: Path | None = None) -> list[Path]:
        """Delete the least recently used files until the directory fits its bound."""
        entries: list[tuple[float, int, Path]] = []
        removed: list[Path] = []
        now = time.time()
        try:
            listing = list(self.directory.iterdir())
        except OSError:
            return removed
        for file in listing:
            try:
                info = file.stat()
            except OSError:
                continue  # another process evicted it meanwhile
            if file.name.endswith(".tmp"):
                if now - info.st_mtime <= _STALE_TMP_S:
                    entries.append((float("inf"), info.st_size, file))  # being written
                elif _unlink(file):
                    removed.append(file)
                continue
            if file.suffix == SUFFIX:
                entries.append((info.st_mtime, info.st_size, file))
        total = sum(size for _, size, _ in entries)
        for mtime, size, file in sorted(entries, key=lambda e: e[0]):
            if total <= self.max_bytes:
                break
            if file == keep or mtime == float("inf"):
                continue
            if _unlink(file):
                removed.append(file)
                total -= size
        if removed:
            log.info("prompt state cache over its bound: removed %s", [f.name for f in removed])
        return removed

    def size(self) -> int:
        """Bytes the directory's state and temporary files take now."""
        try:
            return sum(f.stat().st_size for f in self.directory.iterdir() if f.is_file())
        except OSError:
            return 0


def _unlink(file: Path) -> bool:
    try:
        file.unlink()
    except OSError:
        return False
    return True


def _encode(key: str, tokens: Sequence[int], payload: bytes) -> bytes:
    body = array("i", tokens).tobytes() + payload
    header = json.dumps(
        {
            "format": FORMAT,
            "key": key,
            "tokens": len(tokens),
            "body": len(body),
            "sha256": hashlib.sha256(body).hexdigest(),
        }
    ).encode()
    return MAGIC + _LENGTH.pack(len(header)) + header + body


def _decode(data: bytes, key: str) -> StoredState:
    """The stored state, or ValueError naming what is wrong with the file."""
    if not data.startswith(MAGIC):
        raise ValueError("not a prompt state file (wrong magic)")
    start = len(MAGIC) + _LENGTH.size
    if len(data) < start:
        raise ValueError("truncated inside the header")
    (length,) = _LENGTH.unpack_from(data, len(MAGIC))
    if length > _MAX_HEADER or len(data) < start + length:
        raise ValueError("truncated or damaged header")
    try:
        header = json.loads(data[start : start + length])
        n_tokens, n_body, checksum = int(header["tokens"]), int(header["body"]), header["sha256"]
        fmt, stored_key = header["format"], header["key"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"unreadable header ({exc})") from None
    if fmt != FORMAT or stored_key != key:
        raise ValueError(f"it holds key {str(stored_key)[:12]}... (format {fmt}), not this one")
    body = data[start + length :]
    if len(body) != n_body:
        raise ValueError(f"truncated: {len(body)} of {n_body} bytes")
    if hashlib.sha256(body).hexdigest() != checksum:
        raise ValueError("checksum mismatch (the file is damaged)")
    if n_tokens * 4 > n_body:
        raise ValueError(f"{n_tokens} tokens do not fit into {n_body} bytes")
    tokens = array("i")
    tokens.frombytes(body[: n_tokens * 4])
    return StoredState(tokens=tokens.tolist(), payload=body[n_tokens * 4 :])
