"""Nothing a server sends can kill a run: invalid Unicode is recorded replaced (and the record
says so), a body field of the wrong type makes a failed item with a clear error, and a cache row
of the wrong shape is ignored with one warning and asked again. A resume always gets past them.

The bad bytes come from a real HTTP server on 127.0.0.1 (``tests/servers/fault_server.py``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from relreason.records import load_manifest, load_records
from relreason.run.runner import RunOptions, resume_run, run_task
from servers.fault_server import FaultServer, answer_letter, toy_task

pytestmark = pytest.mark.server
openai = pytest.importorskip("openai")

from relreason.models.openai.backend import OpenAIBackend  # noqa: E402

BAD = "Question 3 "  # the prompt of item 3 gets the bad answer


def _lone_surrogate(prompt: str) -> str:
    # json.dumps writes a lone surrogate as the escape "\ud800": valid JSON, invalid Unicode
    return answer_letter(prompt) + ("\ud800 \udfff" if prompt.startswith(BAD) else "")


def test_a_lone_surrogate_is_recorded_replaced_and_the_run_ends_well(tmp_path: Path) -> None:
    out = tmp_path / "run"
    options = RunOptions(cache_path=tmp_path / "c.sqlite3", max_retries=0)
    with FaultServer(fault_rate=0.0, reply=_lone_surrogate) as server:
        summary = run_task(toy_task(8), OpenAIBackend("m", base_urls=[server.url]), out, options)
        assert summary.complete and summary.n == 8
        assert load_manifest(out).status == "complete"
        record = load_records(out)[3]
        assert record["output"] == record["output"].encode("utf-8").decode("utf-8")
        assert "\ufffd \ufffd" in record["output"] and record["status"] == "unparseable"
        assert "2 invalid code point(s)" in record["note"]
        assert all(r["note"] is None for i, r in load_records(out).items() if i != 3)
        # the cache kept the replaced text: a second run reads it back without asking
        asked = sum(server.counts.values())
        run_task(toy_task(8), OpenAIBackend("m", base_urls=[server.url]), tmp_path / "b", options)
        assert sum(server.counts.values()) == asked
        assert load_records(tmp_path / "b")[3]["output"] == record["output"]


def _content_of_wrong_type(prompt: str, body: dict[str, Any]) -> dict[str, Any]:
    if prompt.startswith(BAD):
        body["choices"][0]["message"]["content"] = {"text": 5}
    if prompt.startswith("Question 5 "):
        body["usage"] = {"prompt_tokens": "many", "completion_tokens": [1]}
    return body


def test_wrong_types_in_a_body_make_a_failed_item_with_a_clear_error(tmp_path: Path) -> None:
    out = tmp_path / "run"
    options = RunOptions(use_cache=False, max_retries=1, retry_initial_wait=0.01)
    with FaultServer(fault_rate=0.0, mutate=_content_of_wrong_type) as server:
        summary = run_task(toy_task(8), OpenAIBackend("m", base_urls=[server.url]), out, options)
        records = load_records(out)
        assert summary.n == 8 and summary.failed == 1
        assert records[3]["status"] == "failed"
        assert "message.content" in records[3]["error"] and "dict" in records[3]["error"]
        # usage of the wrong type is not worth failing the answer over: counted as zero
        assert records[5]["status"] != "failed" and records[5]["usage"]["prompt_tokens"] == 0
        assert load_manifest(out).status == "complete"
        server.mutate = None  # the server mends its ways; the resume gets past the item
        again = resume_run(
            out, task=toy_task(8), backend=OpenAIBackend("m", base_urls=[server.url])
        )
    assert again.failed == 0 and load_records(out)[3]["status"] != "failed"


@pytest.mark.parametrize("bad", ['{"text": 5}', '{"text": null}', '{"text": "A", "usage": 3}'])
def test_a_cache_row_of_the_wrong_shape_is_ignored_and_asked_again(
    tmp_path: Path, bad: str, capfd: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "c.sqlite3"
    options = RunOptions(cache_path=cache, max_retries=0)
    with FaultServer(fault_rate=0.0) as server:
        run_task(toy_task(6), OpenAIBackend("m", base_urls=[server.url]), tmp_path / "a", options)
        with sqlite3.connect(cache) as db:
            db.execute("UPDATE responses SET value = ?", (bad,))
        capfd.readouterr()
        before = sum(server.counts.values())
        out = tmp_path / "b"
        summary = run_task(toy_task(6), OpenAIBackend("m", base_urls=[server.url]), out, options)
        assert sum(server.counts.values()) == before + 6  # every item asked again
    err = capfd.readouterr().err
    assert err.count("warning:") == 1 and "ignored 6 cache row(s)" in err
    assert summary.complete and summary.statuses.get("no_answer", 0) == 0
    assert [r["output"] for r in load_records(out).values()] == [
        answer_letter(item.prompt) for item in toy_task(6).items
    ]
    # the good answers replaced the bad rows
    with sqlite3.connect(cache) as db:
        values = [json.loads(v) for (v,) in db.execute("SELECT value FROM responses")]
    assert all(isinstance(v["text"], str) for v in values)
