"""Run folders written before the options were declared once (the code of commit 3337f77, whose
manifests store the benchmark's params in the task description) still resume, with every
parameter they were run with: ConvRe ``--mode strict --reader official`` and MCR
``--mode paper``. The fixtures were made by that code (3 of 6 items kept)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from clihelp import run_cli
from relreason.records import load_manifest
from relreason.run.folder import resume_task

FIXTURES = Path(__file__).parent / "fixtures" / "run-v2"


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("convre-strict", {"mode": "strict", "reader": "official", "setting": 9}),
        ("mcr-paper", {"mode": "paper", "language": "ja", "method": "fs"}),
    ],
)
def test_a_folder_of_the_previous_version_resumes_with_its_params(
    name: str,
    params: dict[str, object],
    tmp_path: Path,
    shared_data: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / name
    shutil.copytree(FIXTURES / name, folder)
    before = (folder / "records.jsonl").read_text().splitlines()
    task = resume_task(load_manifest(folder), shared_data)
    stored = load_manifest(folder).description["params"]
    assert {k: stored[k] for k in params} == params
    assert task.strict == (params["mode"] == "strict")
    code, _, err = run_cli(["run", "--resume", str(folder), "--data-dir", str(shared_data)], capsys)
    assert code == 0, err
    after = (folder / "records.jsonl").read_text().splitlines()
    assert len(after) == 6 and after[:3] == before
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["description"]["params"] == stored  # validated back as they were
