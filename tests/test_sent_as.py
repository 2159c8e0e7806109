"""Records say what the model was actually given: the chat messages of a chat API, nothing
extra for a completions API or a baseline (a real local OpenAI-compatible server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relreason.models.baselines import BaselineBackend
from relreason.models.openai.backend import OpenAIBackend
from relreason.run.runner import RunOptions, run_task
from servers.fault_server import FaultServer, toy_task


def _records(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]


@pytest.mark.server
@pytest.mark.parametrize("api", ["chat", "completions"])
def test_records_hold_what_was_sent(
    tmp_path: Path, api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-sent-as-0000")
    task = toy_task(5)
    with FaultServer(fault_rate=0.0) as server:
        backend = OpenAIBackend("fake", base_urls=[server.url], api=api)  # type: ignore[arg-type]
        run_task(task, backend, tmp_path / api, RunOptions(use_cache=False))
    for record, item in zip(_records(tmp_path / api), task.items, strict=True):
        assert record["prompt"] == item.prompt
        expected = [{"role": "user", "content": item.prompt}] if api == "chat" else None
        assert record["sent_as"] == expected


def test_a_baseline_sends_the_bare_prompt(tmp_path: Path) -> None:
    task = toy_task(3)
    run_task(task, BaselineBackend("first"), tmp_path / "b", RunOptions(use_cache=False))
    assert [r["sent_as"] for r in _records(tmp_path / "b")] == [None, None, None]
