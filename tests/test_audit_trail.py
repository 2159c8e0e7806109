"""What the model saw, for audits: each record holds the exact prompts sent; the manifest (and
each session) holds the command line and the versions of relreason, Python and the libraries."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from relreason.models.baselines import BaselineBackend
from relreason.records import load_records
from relreason.run.runner import RunOptions, resume_run, run_task
from servers.fault_server import toy_task
from test_runner import ScriptedBackend


def test_records_hold_the_prompts_sent(tmp_path: Path) -> None:
    task = toy_task(6, second_stage=True)
    run_task(
        task,
        ScriptedBackend(lambda r, a: "thinking... A"),
        tmp_path / "r",
        RunOptions(use_cache=False),
    )
    records = load_records(tmp_path / "r")
    for item in task.items:
        record = records[item.index]
        assert record["prompt"] == item.prompt
        assert record["second_prompt"] == task.second_stage(item, "thinking... A")  # type: ignore[misc]


def test_manifest_holds_command_line_and_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["relreason", "run", "toy", "--limit", "3"])
    out = tmp_path / "r"
    run_task(toy_task(6), BaselineBackend("first"), out, RunOptions(use_cache=False, limit=3))
    monkeypatch.setattr(sys, "argv", ["relreason", "run", "--resume", str(out)])
    resume_run(
        out, task=toy_task(6), backend=BaselineBackend("first"), options_override={"limit": None}
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["command"] == ["relreason", "run", "toy", "--limit", "3"]
    assert [s["command"][-1] for s in manifest["sessions"]] == ["3", str(out)]
    versions = manifest["versions"]
    assert versions["python"] == sys.version.split()[0]
    assert {"relreason", "torch", "transformers", "openai", "anthropic"} <= set(versions)
