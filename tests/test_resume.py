"""Resuming run folders: torn lines, partial runs, rebuilt tasks and backends, foreign folders.

(The SIGKILL test over a real server is in ``test_faults.py``.)
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relreason.errors import DataError, UsageError
from relreason.models.baselines import BaselineBackend
from relreason.records import comparable, load_records, record_line
from relreason.run.runner import RunOptions, resume_run, run_task
from servers.fault_server import toy_task

OPTIONS = RunOptions(use_cache=False)


def snapshot(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def same(a: Path, b: Path) -> bool:
    ra, rb = load_records(a), load_records(b)
    return sorted(ra) == sorted(rb) and all(comparable(ra[i]) == comparable(rb[i]) for i in ra)


@pytest.fixture()
def reference(tmp_path: Path) -> Path:
    out = tmp_path / "reference"
    run_task(toy_task(30), BaselineBackend("random", seed=5), out, OPTIONS)
    return out


def test_a_torn_last_line_is_dropped_and_the_item_redone(tmp_path: Path, reference: Path) -> None:
    out = tmp_path / "run"
    run_task(toy_task(30), BaselineBackend("random", seed=5), out, OPTIONS)
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(lines[:12]) + lines[12][: len(lines[12]) // 2])
    assert sorted(load_records(out)) == list(range(12))
    resume_run(out, task=toy_task(30), backend=BaselineBackend("random", seed=5))
    assert same(out, reference)
    assert len((out / "records.jsonl").read_text().splitlines()) == 30


@given(st.integers(min_value=0, max_value=2000))
@settings(max_examples=40, deadline=None)
def test_any_cut_of_a_records_file_loads_its_whole_lines(cut: int) -> None:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="relreason-cut-") as name:
        folder = Path(name)
        lines = [record_line({"index": i, "status": "correct", "pad": "x" * i}) for i in range(40)]
        data = "".join(lines).encode()[:cut]
        (folder / "records.jsonl").write_bytes(data)
        whole = data.count(b"\n")
        assert sorted(load_records(folder, repair=True)) == list(range(whole))
        assert (folder / "records.jsonl").read_bytes() == "".join(lines[:whole]).encode()


def test_a_partial_run_resumes_sending_only_missing_items(tmp_path: Path, reference: Path) -> None:
    out = tmp_path / "run"
    run_task(toy_task(30), BaselineBackend("random", seed=5), out, RunOptions(limit=11))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["n_items"] == 11
    summary = resume_run(
        out,
        task=toy_task(30),
        backend=BaselineBackend("random", seed=5),
        options_override={"limit": None, "use_cache": False},
    )
    assert summary.n == 30 and summary.complete
    assert same(out, reference)
    assert len(json.loads((out / "manifest.json").read_text())["sessions"]) == 2


def test_resume_rebuilds_task_and_backend_from_the_manifest(
    tmp_path: Path, shared_data: Path
) -> None:
    from relreason.benchmarks import get
    from relreason.models.registry import load_backend

    convre = get("convre")
    task = convre.build_task(convre.params(task="re2text", setting=3, subset=True), shared_data)
    out, whole = tmp_path / "run", tmp_path / "whole"
    options = RunOptions(use_cache=False, limit=40)
    for folder in (whole, out):
        backend = load_backend("random:7")
        run_task(task, backend, folder, options, model_options={"seed": 7}, data_dir=shared_data)
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(lines[:15]))
    summary = resume_run(out, data_dir=shared_data)
    assert summary.n == 40 and same(out, whole)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["data_checksums"]["triple_subset.json"].startswith("f6fa9acd")


def test_a_folder_of_another_configuration_is_refused_untouched(
    tmp_path: Path, reference: Path
) -> None:
    before = snapshot(reference)
    with pytest.raises(UsageError, match="another configuration"):
        run_task(toy_task(30, name="other"), BaselineBackend("random", seed=5), reference, OPTIONS)
    with pytest.raises(UsageError, match="model"):
        resume_run(reference, task=toy_task(30), backend=BaselineBackend("first"))
    with pytest.raises(UsageError, match="scoring"):
        resume_run(
            reference,
            task=toy_task(30),
            backend=BaselineBackend("random", seed=5),
            options_override={"scoring": "logprob"},
        )
    assert snapshot(reference) == before


def test_resume_of_a_non_run_folder_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(UsageError, match="not a run folder"):
        resume_run(tmp_path)
    with pytest.raises(UsageError, match="not a run folder"):
        resume_run(tmp_path / "missing")
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_unknown_override_is_a_usage_error(reference: Path) -> None:
    with pytest.raises(UsageError, match="unknown run option"):
        resume_run(reference, task=toy_task(30), options_override={"speed": 3})


def test_corrupt_manifest_and_records_name_the_file(tmp_path: Path, reference: Path) -> None:
    lines = (reference / "records.jsonl").read_text().splitlines(keepends=True)
    (reference / "records.jsonl").write_text("".join(lines[:3]) + "{oops\n" + "".join(lines[3:]))
    with pytest.raises(DataError, match=r"records.jsonl, item line 4"):
        load_records(reference)
    (reference / "manifest.json").write_text("{not json")
    with pytest.raises(DataError, match=r"manifest\.json"):
        resume_run(reference, task=toy_task(30))
