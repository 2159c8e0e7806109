"""Run folders written by relreason 0.1 (format version 1, no ``format_version`` field) still
load as typed values and resume. The fixture was made by that version (3 of 6 items done)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from relreason.records import load_manifest, load_typed_records
from relreason.run.runner import resume_run

FIXTURE = Path(__file__).parent / "fixtures" / "run-v1"


def test_v1_folder_loads_typed() -> None:
    manifest = load_manifest(FIXTURE)
    assert manifest.format_version == 1
    assert manifest.spec == "random:3"
    assert manifest.description["benchmark"] == "convre"
    records = list(load_typed_records(FIXTURE).values())
    assert [r.index for r in records] == [0, 1, 2]
    assert all(r.status in ("correct", "wrong") for r in records)


def test_v1_folder_resumes(tmp_path: Path, shared_data: Path) -> None:
    folder = tmp_path / "run"
    shutil.copytree(FIXTURE, folder)
    before = (FIXTURE / "records.jsonl").read_text().splitlines()
    summary = resume_run(folder, data_dir=shared_data)
    assert summary.n == 6 and summary.complete
    after = (folder / "records.jsonl").read_text().splitlines()
    assert after[:3] == before  # finished items are kept as they were
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["format_version"] == 2 and manifest["status"] == "complete"
