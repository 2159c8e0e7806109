"""The cache is keyed on what answers (servers, served model) and never stops a run: a cache
that cannot be opened, read or written is reported once and the run goes on without it.
``relreason cache info|clear`` show and empty it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from clihelp import run_cli
from relreason.models.baselines import BaselineBackend
from relreason.records import load_records
from relreason.run.cache import ResponseCache, cache_key, stable_identity
from relreason.run.runner import RunOptions, run_task
from relreason.types import Response
from servers.fault_server import FaultServer, toy_task


def test_the_servers_are_part_of_the_key() -> None:
    one = stable_identity({"backend": "openai", "model": "m", "base_urls": ["http://a/v1"]})
    two = stable_identity({"backend": "openai", "model": "m", "base_urls": ["http://b/v1"]})
    both = stable_identity(
        {"backend": "openai", "model": "m", "base_urls": ["http://b/v1", "http://a/v1"]}
    )
    same = stable_identity(
        {"backend": "openai", "model": "m", "base_urls": ["http://a/v1", "http://b/v1"]}
    )
    keys = {cache_key(x, "generate", "p", {}) for x in (one, two, both)}
    assert len(keys) == 3
    assert cache_key(both, "generate", "p", {}) == cache_key(same, "generate", "p", {})


def test_another_server_is_asked_not_answered_from_the_cache(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from relreason.models.openai.backend import OpenAIBackend

    options = RunOptions(cache_path=tmp_path / "c.sqlite3", max_retries=0)
    with FaultServer(fault_rate=0.0) as one, FaultServer(fault_rate=0.0) as two:
        run_task(toy_task(5), OpenAIBackend("m", base_urls=[one.url]), tmp_path / "a", options)
        run_task(toy_task(5), OpenAIBackend("m", base_urls=[two.url]), tmp_path / "b", options)
        assert sum(two.counts.values()) == 5
        run_task(toy_task(5), OpenAIBackend("m", base_urls=[one.url]), tmp_path / "c", options)
        assert sum(one.counts.values()) == 5  # the same server again: all from the cache


def test_hits_from_another_served_model_are_dropped(tmp_path: Path) -> None:
    from relreason.run.calls import CallPath

    cache = ResponseCache(tmp_path / "c.sqlite3")
    cache.put_many(
        [
            ("k1", Response(text="A", served_model="m-2024 fp_1")),
            ("k2", Response(text="B", served_model="m-2025 fp_9")),
            ("k3", Response(text="C")),
        ]
    )
    calls = CallPath(BaselineBackend("first"), RunOptions(), cache)
    calls.served = "m-2025 fp_9"
    assert sorted(calls.lookup(["k1", "k2", "k3"])) == ["k2", "k3"]


def damaged_cache(path: Path) -> Path:
    cache = ResponseCache(path)
    cache.put_many([(f"k{i}", Response(text="x" * 500)) for i in range(400)])
    cache.close()
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    data = bytearray(path.read_bytes())
    for offset in range(4096 * 2, len(data) - 4096, 4096):
        data[offset : offset + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("kind", ["garbage", "damaged pages", "folder is a file"])
def test_a_broken_cache_is_reported_once_and_the_run_goes_on(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.sqlite3"
    if kind == "garbage":
        path.write_bytes(b"this is not a database" * 100)
    elif kind == "damaged pages":
        damaged_cache(path)
    else:
        (tmp_path / "file").write_text("x")
        path = tmp_path / "file" / "c.sqlite3"
    out = tmp_path / "run"
    summary = run_task(
        toy_task(20), BaselineBackend("random", seed=3), out, RunOptions(cache_path=path)
    )
    assert summary.n == 20 and summary.failed == 0 and len(load_records(out)) == 20
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "goes on without" in err


@pytest.fixture()
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    yield tmp_path / "cache"


def test_cache_info_and_clear(
    cache_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(["cache", "info"], capsys)
    assert code == 0 and "not created yet" in out
    run_task(toy_task(7), BaselineBackend("random", seed=3), tmp_path / "run", RunOptions())
    code, out, _ = run_cli(["cache", "info"], capsys)
    assert code == 0 and "responses: 7" in out and str(cache_dir) in out
    code, out, _ = run_cli(["cache", "clear"], capsys)
    assert code == 0 and "removed 7" in out
    assert len(ResponseCache(cache_dir / "cache.sqlite3")) == 0


def test_cache_info_on_a_damaged_file_is_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"not a database" * 100)
    code, _, err = run_cli(["cache", "info", "--path", str(path)], capsys)
    assert code == 2 and "Traceback" not in err and str(path) in err
