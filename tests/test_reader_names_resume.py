"""Run folders written by relreason 0.2 before readers were fingerprinted by name (their
manifest's ``config.reader`` is ``"paper: relreason.benchmarks.mcr.scoring.score_mcr"``, the
rule and the function's ``module.qualname``) still resume, and a reader's function moving to
another module changes no fingerprint.

The fixture was made by that code (commit 1143304): ``relreason run mcr --language en
--method fs --mode paper -m random:3 --limit 6 --no-cache``, then its last 3 records removed,
as a run stopped half-way leaves them."""

from __future__ import annotations

import dataclasses
import functools
import json
import shutil
from pathlib import Path

import pytest

from relreason.benchmarks.mcr.scoring import score_mcr
from relreason.errors import UsageError
from relreason.records import load_manifest
from relreason.run.runner import resume_run, resume_task
from relreason.run.selection import reader_name, readers_match

FIXTURE = Path(__file__).parent / "fixtures" / "run-v2-mcr"


def test_v2_folder_records_the_old_reader_form() -> None:
    manifest = load_manifest(FIXTURE)
    assert manifest.format_version == 2
    assert manifest.config["reader"] == "paper: relreason.benchmarks.mcr.scoring.score_mcr"


def test_v2_folder_resumes(tmp_path: Path, shared_data: Path) -> None:
    folder = tmp_path / "run"
    shutil.copytree(FIXTURE, folder)
    before = (FIXTURE / "records.jsonl").read_text().splitlines()
    summary = resume_run(folder, data_dir=shared_data)
    assert summary.n == 6 and summary.complete
    after = (folder / "records.jsonl").read_text().splitlines()
    assert after[:3] == before  # finished items are kept as they were
    assert json.loads((folder / "manifest.json").read_text())["status"] == "complete"


def test_another_reader_name_is_refused_on_resume(tmp_path: Path, shared_data: Path) -> None:
    folder = tmp_path / "run"
    shutil.copytree(FIXTURE, folder)
    task = resume_task(load_manifest(folder), shared_data)
    other = dataclasses.replace(task, reader="robust")
    with pytest.raises(UsageError, match="reader"):
        resume_run(folder, data_dir=shared_data, task=other)


def moved_score_mcr(*args: object, **kwargs: object) -> object:
    """``score_mcr`` as if it had moved to another module (a function of this test file)."""
    return score_mcr(*args, **kwargs)  # type: ignore[arg-type]


def test_the_fingerprint_is_the_name_and_options_not_the_function(shared_data: Path) -> None:
    task = resume_task(load_manifest(FIXTURE), shared_data)
    assert isinstance(task.scorer, functools.partial)
    moved = dataclasses.replace(
        task, scorer=functools.partial(moved_score_mcr, **task.scorer.keywords)
    )
    assert reader_name(moved) == reader_name(task)
    assert reader_name(task).startswith("paper (")
    other_options = dataclasses.replace(
        task, scorer=functools.partial(score_mcr, **{**task.scorer.keywords, "few_shot": False})
    )
    assert reader_name(other_options) != reader_name(task)


def test_an_old_reader_matches_its_rule_only() -> None:
    old = "paper: relreason.benchmarks.mcr.scoring.score_mcr"
    assert readers_match(old, "paper (few_shot=True, mode='paper')")
    assert not readers_match(old, "robust (few_shot=True, mode='robust')")
    assert readers_match("official:gpt-chat: relreason.x.y", "official:gpt-chat")
    assert not readers_match("sound (cot=True)", "sound (cot=False)")
