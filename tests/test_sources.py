"""Locating, loading and verifying the official data files (relreason.data.sources)."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import platformdirs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from datafiles import pinned_files, verify
from relreason.data import sources
from relreason.data.sources import (
    data_file,
    file_checksums,
    load_json,
    resolve_data_dir,
)
from relreason.errors import DataError, UsageError

README_SUMS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "README.md"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RELREASON_DATA_DIR", "RELREASON_CACHE_DIR", "RELREASON_MIRROR"):
        monkeypatch.delenv(name, raising=False)


# --- pins -------------------------------------------------------------------------------------


def test_pins_cover_every_official_file(shared_data: Path) -> None:
    """The 12 pinned names are exactly the files of the official folder, with their hashes."""
    on_disk = {
        (p.parent.name, p.name): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in shared_data.glob("*/*.json")
    }
    pinned = {(b, n): h for b in ("convre", "mcr") for n, h in pinned_files(b).items()}
    assert len(pinned) == 12
    assert pinned == on_disk


# --- resolve_data_dir -------------------------------------------------------------------------


def test_resolve_order_flag_then_env_then_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    default = Path(platformdirs.user_cache_dir("relreason")) / "data"
    assert resolve_data_dir() == default
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    assert resolve_data_dir() == tmp_path / "cache" / "data"
    monkeypatch.setenv("RELREASON_DATA_DIR", str(tmp_path / "env"))
    assert resolve_data_dir() == tmp_path / "env"
    assert resolve_data_dir(tmp_path / "flag") == tmp_path / "flag"
    assert resolve_data_dir(str(tmp_path / "flag")) == tmp_path / "flag"


def test_resolve_expands_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_data_dir("~/d") == tmp_path / "d"


# --- data_file --------------------------------------------------------------------------------


def test_data_file_finds_official_file(shared_data: Path) -> None:
    path = data_file("mcr", "composition_english.json", shared_data)
    assert path == shared_data / "mcr" / "composition_english.json"
    assert path.is_file()


def test_data_file_uses_env(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELREASON_DATA_DIR", str(shared_data))
    assert data_file("convre", "triple_dataset.json").is_file()


def test_missing_file_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path))
    with pytest.raises(DataError) as info:
        data_file("convre", "triple_subset.json")
    message = str(info.value)
    assert str(tmp_path / "data" / "convre" / "triple_subset.json") in message
    assert "relreason download convre" in message
    assert "--data-dir" in message and "RELREASON_DATA_DIR" in message
    assert "default user cache" in message


def test_missing_file_names_the_flag(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="given by --data-dir"):
        data_file("mcr", "composition_korean.json", tmp_path)


@pytest.mark.parametrize("name", ["../x.json", "a/b.json", "", ".."])
def test_data_file_rejects_paths(name: str, tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        data_file("mcr", name, tmp_path)


def test_unknown_benchmark(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="convre, mcr"):
        verify("bogus", tmp_path)
    with pytest.raises(DataError, match="not found"):
        data_file("bogus", "x.json", tmp_path)


# --- load_json --------------------------------------------------------------------------------


def test_bad_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "a": 1,\n  "b": \n}\n', encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_json(path)
    assert str(path) in str(info.value)
    assert "line 4, column 1" in str(info.value)


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"a": "caf\xe9"}')
    with pytest.raises(DataError, match=r"not UTF-8 text \(bad byte at offset 10\)") as info:
        load_json(path)
    assert str(path) in str(info.value)


def test_missing_and_folder(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="file not found"):
        load_json(tmp_path / "nope.json")
    with pytest.raises(DataError, match="is a folder"):
        load_json(tmp_path)


def test_load_json_caches_and_notices_changes(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"a": [1, 2]}', encoding="utf-8")
    first = load_json(path)
    assert first == {"a": [1, 2]}
    assert load_json(path) is first
    # replaced atomically (new inode), same size: must be re-read
    tmp = tmp_path / "x.tmp"
    tmp.write_text('{"a": [3, 4]}', encoding="utf-8")
    os.replace(tmp, path)
    assert load_json(path) == {"a": [3, 4]}
    # rewritten in place with a different size and mtime
    path.write_text('{"a": [5]}', encoding="utf-8")
    os.utime(path, ns=(1, 1))
    assert load_json(path) == {"a": [5]}


def test_load_json_repeated_is_free(shared_data: Path) -> None:
    """A second load of a 700 kB file returns the cached object without parsing again."""
    path = shared_data / "mcr" / "composition_english.json"
    first = load_json(path)
    calls = 0
    real_loads = json.loads

    def counting_loads(text: str) -> Any:
        nonlocal calls
        calls += 1
        return real_loads(text)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sources.json, "loads", counting_loads)
        for _ in range(50):
            assert load_json(path) is first
    assert calls == 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None)
@given(value=json_values, indent=st.sampled_from([None, 0, 2]), ascii_only=st.booleans())
def test_load_json_round_trips(value: Any, indent: int | None, ascii_only: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "v.json"
        path.write_text(json.dumps(value, indent=indent, ensure_ascii=ascii_only), "utf-8")
        assert load_json(path) == value


@settings(max_examples=80, deadline=None)
@given(text=st.text(max_size=40))
def test_load_json_bad_text_is_a_data_error(text: str) -> None:
    """Any text: either the same value as json.loads, or a DataError naming the file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.json"
        path.write_text(text, "utf-8")
        try:
            expected = json.loads(text.removeprefix("\ufeff"))
        except json.JSONDecodeError as exc:
            with pytest.raises(DataError) as info:
                load_json(path)
            assert str(path) in str(info.value)
            assert f"line {exc.lineno}, column {exc.colno}" in str(info.value)
        else:
            # compared as JSON text: NaN (which JSON allows here) is not equal to itself
            assert json.dumps(load_json(path)) == json.dumps(expected)


# --- checksums and verify ---------------------------------------------------------------------


def test_official_data_verifies(shared_data: Path) -> None:
    from relreason.benchmarks import get

    for benchmark in ("convre", "mcr"):
        assert verify(benchmark, shared_data) == []
        files = get(benchmark).files
        assert files is not None
        assert file_checksums(files, shared_data) == files.pinned()


def test_verify_reports_changed_and_missing(data_copy: Path) -> None:
    changed = data_copy / "convre" / "triple_subset.json"
    changed.write_bytes(changed.read_bytes() + b"\n")
    (data_copy / "convre" / "re2text_examples.json").unlink()
    problems = verify("convre", data_copy)
    assert len(problems) == 2
    missing = [p for p in problems if p.endswith("missing")]
    assert missing == [f"{data_copy / 'convre' / 're2text_examples.json'}: missing"]
    new_hash = hashlib.sha256(changed.read_bytes()).hexdigest()
    differs = next(p for p in problems if "triple_subset.json" in p)
    assert new_hash in differs and pinned_files("convre")["triple_subset.json"] in differs
    from relreason.benchmarks import get

    files = get("convre").files
    assert files is not None
    sums = file_checksums(files, data_copy)
    assert "re2text_examples.json" not in sums
    assert sums["triple_subset.json"] == new_hash
    assert verify("mcr", data_copy) == []


def test_checksums_computed_once(data_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from relreason.benchmarks import get

    files = get("mcr").files
    assert files is not None
    file_checksums(files, data_copy)
    calls = 0
    real = hashlib.sha256

    def counting(data: bytes = b"") -> Any:
        nonlocal calls
        calls += 1
        return real(data)

    monkeypatch.setattr(sources.hashlib, "sha256", counting)
    for _ in range(20):
        file_checksums(files, data_copy)
    assert calls == 0
    english = data_copy / "mcr" / "composition_english.json"
    english.write_bytes(english.read_bytes() + b" ")
    assert verify("mcr", data_copy) != []
    assert calls == 1
