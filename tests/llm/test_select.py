"""Backend selection: what auto picks, and errors that say what to install."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from edgeagent.config import Config, HTTPConfig
from edgeagent.config_file import load_config
from edgeagent.errors import BackendUnavailableError, ConfigError, ModelNotFoundError
from edgeagent.llm import select
from edgeagent.llm.base import GenerateRequest
from edgeagent.llm.select import EngineSpec, create_engine, select_engine_spec


def config_with(tmp_path: Path, toml: str) -> Config:
    path = tmp_path / "edgeagent.toml"
    path.write_text(toml)
    return load_config(path, env={})


@pytest.fixture
def importable(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Pretend exactly these native modules are installed."""
    present: set[str] = set()
    monkeypatch.setattr(select, "_importable", lambda name: name in present)
    return present


def test_auto_prefers_the_hailo_when_installed_and_configured(
    tmp_path: Path, importable: set[str]
) -> None:
    importable.update({"hailo_platform", "llama_cpp"})
    config = config_with(tmp_path, '[llm.hailo]\nhef = "models/qwen.hef"\n')
    spec = select_engine_spec(config)
    assert spec.backend == "hailo"
    assert spec.options["config"]["hef"] == str(tmp_path / "models/qwen.hef")


def test_auto_uses_a_cached_gguf(tmp_path: Path, importable: set[str]) -> None:
    importable.add("llama_cpp")
    (tmp_path / "smollm2-135m-instruct-q4_1.gguf").write_bytes(b"GGUF")
    config = config_with(
        tmp_path,
        f'[llm]\nmodel = "smollm2"\nmodels_dir = "{tmp_path}"\n[llm.llamacpp]\nn_ctx = 2048\n',
    )
    spec = select_engine_spec(config)
    assert spec == EngineSpec(
        "llamacpp",
        {
            "model_path": str(tmp_path / "smollm2-135m-instruct-q4_1.gguf"),
            "n_ctx": 2048,
            "n_threads": None,
            "plain_markers": True,
            "state_cache_dir": str(Path("~/.cache/edgeagent/llamacpp").expanduser()),
            "state_cache_max_mb": 256,
        },
    )


def test_auto_without_any_backend_says_what_to_do(tmp_path: Path, importable: set[str]) -> None:
    importable.add("llama_cpp")  # installed, but no model fetched
    config = config_with(tmp_path, f'[llm]\nmodels_dir = "{tmp_path}"\n')
    with pytest.raises(BackendUnavailableError) as info:
        select_engine_spec(config)
    message = str(info.value)
    assert "no [llm.hailo] hef is configured" in message
    assert "`edgeagent model fetch qwen-coder-1.5b`" in message
    assert "scripted" not in message  # never a silent fallback to the script

    importable.clear()
    with pytest.raises(BackendUnavailableError, match=re.escape("scripts/build-llama-wheel.sh")):
        select_engine_spec(config)


def test_explicit_backends(tmp_path: Path, importable: set[str]) -> None:
    with pytest.raises(BackendUnavailableError, match="llama-cpp-python is not installed"):
        select_engine_spec(config_with(tmp_path, '[llm]\nbackend = "llamacpp"\n'))
    importable.add("llama_cpp")
    with pytest.raises(ModelNotFoundError, match="model fetch"):
        select_engine_spec(
            config_with(tmp_path, f'[llm]\nbackend = "llamacpp"\nmodels_dir = "{tmp_path}"\n')
        )
    with pytest.raises(ConfigError, match="hef"):
        select_engine_spec(config_with(tmp_path, '[llm]\nbackend = "hailo"\n'))
    with pytest.raises(ConfigError, match=r"\[llm\] script"):
        select_engine_spec(config_with(tmp_path, '[llm]\nbackend = "scripted"\n'))
    http = select_engine_spec(
        config_with(tmp_path, '[llm]\nbackend = "http"\n[llm.http]\nbase_url = "http://pi:9"\n')
    )
    assert http.backend == "http"
    assert HTTPConfig.model_validate(http.options["config"]).base_url == "http://pi:9"
    engine = create_engine(http)  # builds without connecting
    try:
        assert engine.status().backend == "http"
    finally:
        engine.close()


def test_scripted_spec_builds_the_scripted_engine(tmp_path: Path) -> None:
    (tmp_path / "script.json").write_text(json.dumps({"default": "scripted hello"}))
    config = config_with(tmp_path, '[llm]\nbackend = "scripted"\nscript = "script.json"\n')
    spec = select_engine_spec(config)
    assert spec.options["script"] == str(tmp_path / "script.json")
    engine = create_engine(spec)
    request = GenerateRequest(messages=[{"role": "user", "content": "hi"}])
    out = "".join(engine.generate(request, cancelled=lambda: False))
    assert out == "scripted hello"


def test_unknown_backend_in_a_spec() -> None:
    with pytest.raises(ConfigError, match="Unknown LLM backend 'tpu'"):
        create_engine(EngineSpec("tpu"))


@pytest.mark.model
def test_llamacpp_spec_builds_a_working_engine(tmp_path: Path, smollm2_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    config = config_with(
        tmp_path,
        f'[llm]\nbackend = "llamacpp"\nmodel = "{smollm2_path}"\n[llm.llamacpp]\nn_ctx = 1024\n',
    )
    engine = create_engine(select_engine_spec(config))
    try:
        status = engine.status()
        assert (status.backend, status.model, status.context_window) == (
            "llamacpp",
            smollm2_path.name,
            1024,
        )
    finally:
        engine.close()
        engine.close()
