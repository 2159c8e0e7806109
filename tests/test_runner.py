"""The runner: records, scoring modes, second stage, batching, concurrency, retries, rate limits.

Most tests use the real baseline backends. Where a test needs exact control over failures,
delays or batches, it uses ``ScriptedBackend`` below: a fake, because no real backend can be made
to fail on cue; the real API path (real server, real SDK) is covered in ``test_faults.py``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relreason.errors import UsageError
from relreason.models.base import Capabilities, ModelBackend, TransientError
from relreason.models.baselines import BaselineBackend
from relreason.records import RECORD_FIELDS, Record, load_records, summarize
from relreason.run.runner import RunOptions, run_task
from relreason.types import ChoiceRequest, GenerationParams, GenerationRequest, Response, Usage
from servers.fault_server import toy_task


class ScriptedBackend(ModelBackend):
    """A fake backend (see the module docstring): answers ``answer(prompt, attempt)``.

    ``answer`` may return a text, raise ``TransientError``, or sleep (``delay``). It counts calls
    per prompt, batch sizes and the largest number of calls in flight.
    """

    capabilities = Capabilities(logprobs=True)

    def __init__(
        self,
        answer: Callable[[GenerationRequest, int], str] | None = None,
        *,
        batch_size: int = 1,
        delay: float = 0.0,
        name: str = "scripted",
    ) -> None:
        self.answer = answer or (lambda request, attempt: request.reference or "A")
        self.batch_size = batch_size
        self.delay = delay
        self.spec = name
        self.calls: Counter[str] = Counter()
        self.batches: list[int] = []
        self.requests: list[GenerationRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0

    def describe(self) -> Mapping[str, Any]:
        return {"backend": "scripted", "name": self.spec, "batch_size": self.batch_size}

    async def generate(self, requests: Sequence[GenerationRequest]) -> list[Response]:
        self.batches.append(len(requests))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            out = []
            for request in requests:
                self.calls[request.prompt] += 1
                self.requests.append(request)
                text = self.answer(request, self.calls[request.prompt])
                out.append(Response(text=text, usage=Usage(len(request.prompt) // 4, 1)))
            return out
        finally:
            self.in_flight -= 1

    async def score_choices(self, requests: Sequence[ChoiceRequest]) -> list[Response]:
        raise NotImplementedError


def options(**kw: Any) -> RunOptions:
    base: dict[str, Any] = {
        "use_cache": False,
        "retry_initial_wait": 0.01,
        "retry_max_wait": 0.05,
        "request_timeout": 2.0,
    }
    return RunOptions(**{**base, **kw})


def test_oracle_run_writes_sorted_complete_records_manifest_and_summary(tmp_path: Path) -> None:
    task = toy_task(30)
    out = tmp_path / "run"
    summary = run_task(task, BaselineBackend("oracle"), out, options(concurrency=4))
    lines = (out / "records.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["index"] for r in records] == list(range(30))
    assert all(tuple(r) == RECORD_FIELDS for r in records)
    assert all(r["answer"] == r["gold"] and r["status"] == "correct" for r in records)
    assert summary.n == 30 and summary.accuracy == 1.0 and summary.failed == 0
    per_relation = Counter(item.labels["relation"] for item in task.items)
    assert {k: v["n"] for k, v in summary.by_label["relation"].items()} == per_relation
    assert summary.by_label["tags"]["x"]["n"] == 30  # a list label counts under each value
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["ended_at"]
    assert manifest["description"] == dict(task.description)
    assert manifest["model"]["spec"] == "oracle"
    assert json.loads((out / "summary.json").read_text())["accuracy"] == 1.0
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temp files left


def test_random_baseline_accuracy_matches_its_answers(tmp_path: Path) -> None:
    task = toy_task(50)
    summary = run_task(task, BaselineBackend("random", seed=3), tmp_path / "r", options())
    records = load_records(tmp_path / "r")
    right = sum(records[i.index]["answer"] == i.gold for i in task.items)
    assert summary.correct == right and summary.accuracy == right / 50


def test_logprob_scoring_records_choice_logprobs(tmp_path: Path) -> None:
    task = toy_task(20)
    summary = run_task(task, BaselineBackend("first"), tmp_path / "lp", options(scoring="logprob"))
    records = load_records(tmp_path / "lp")
    assert all(r["choice_logprobs"] == {"A": 0.0, "B": -100.0} for r in records.values())
    assert summary.correct == sum(item.gold == "A" for item in task.items)


def test_second_stage_sends_a_short_second_request_and_scores_it(tmp_path: Path) -> None:
    task = toy_task(12, second_stage=True)

    def answer(request: GenerationRequest, attempt: int) -> str:
        if request.prompt.endswith("Therefore the answer is"):
            return " " + (request.reference or "")
        return "Let me think about options A and B."

    backend = ScriptedBackend(answer)
    summary = run_task(task, backend, tmp_path / "zsc", options())
    records = load_records(tmp_path / "zsc")
    assert summary.accuracy == 1.0
    assert all(r["output"] == "Let me think about options A and B." for r in records.values())
    assert all(r["second_output"].strip() == r["gold"] for r in records.values())
    seconds = [r for r in backend.requests if r.prompt.endswith("is")]
    assert len(seconds) == 12 and {r.params.max_new_tokens for r in seconds} == {32}
    assert all(s.prompt.startswith(task.items[0].prompt[:9]) for s in seconds)


def test_batches_respect_batch_size_and_api_concurrency(tmp_path: Path) -> None:
    task = toy_task(23)
    local = ScriptedBackend(batch_size=5)
    run_task(task, local, tmp_path / "b", options(concurrency=1))
    assert sorted(local.batches) == [3, 5, 5, 5, 5]
    api = ScriptedBackend(delay=0.02)
    run_task(task, api, tmp_path / "c", options(concurrency=3))
    assert set(api.batches) == {1} and api.max_in_flight == 3


def test_transient_errors_are_retried_honouring_retry_after(tmp_path: Path) -> None:
    def answer(request: GenerationRequest, attempt: int) -> str:
        if attempt <= 2:
            raise TransientError("HTTP 429", retry_after=0.15)
        return request.reference or ""

    start = time.monotonic()
    summary = run_task(toy_task(6), ScriptedBackend(answer), tmp_path / "t", options())
    elapsed = time.monotonic() - start
    records = load_records(tmp_path / "t")
    assert summary.accuracy == 1.0
    assert {r["attempts"] for r in records.values()} == {3}
    assert elapsed >= 0.3  # two waits of Retry-After 0.15 s (the items run concurrently)


def test_timeouts_are_retried(tmp_path: Path) -> None:
    class SlowFirst(ScriptedBackend):
        async def generate(self, requests: Sequence[GenerationRequest]) -> list[Response]:
            if self.calls[requests[0].prompt] == 0:
                self.calls[requests[0].prompt] += 1
                await asyncio.sleep(5)
            return await super().generate(requests)

    summary = run_task(toy_task(4), SlowFirst(), tmp_path / "slow", options(request_timeout=0.1))
    assert summary.accuracy == 1.0
    assert {r["attempts"] for r in load_records(tmp_path / "slow").values()} == {2}


def test_exhausted_retries_are_recorded_failed_and_a_rerun_redoes_only_them(
    tmp_path: Path,
) -> None:
    task = toy_task(10)
    bad = {task.items[i].prompt for i in (2, 7)}

    def answer(request: GenerationRequest, attempt: int) -> str:
        if request.prompt in bad:
            raise TransientError("HTTP 503 from server")
        return request.reference or ""

    out = tmp_path / "f"
    summary = run_task(task, ScriptedBackend(answer), out, options(max_retries=2))
    records = load_records(out)
    assert summary.failed == 2 and summary.statuses["correct"] == 8 and summary.n == 10
    failed = [r for r in records.values() if r["status"] == "failed"]
    assert {r["index"] for r in failed} == {2, 7}
    assert all(r["attempts"] == 3 and "HTTP 503" in r["error"] for r in failed)
    healthy = ScriptedBackend(name="scripted")
    again = run_task(task, healthy, out, options(max_retries=2))
    assert set(healthy.calls) == bad and again.failed == 0 and again.accuracy == 1.0
    assert len((out / "records.jsonl").read_text().splitlines()) == 10


def test_requests_per_minute_limit_spaces_requests(tmp_path: Path) -> None:
    start = time.monotonic()
    run_task(toy_task(40), ScriptedBackend(), tmp_path / "rpm", options(requests_per_minute=1200))
    # 1200/min = 20/s with a one-second bucket: 20 at once, the other 20 over about a second
    assert time.monotonic() - start >= 0.8


def test_tokens_per_minute_limit_spaces_requests(tmp_path: Path) -> None:
    task = toy_task(20)
    per_request = len(task.items[0].prompt) // 4 + 2
    tpm = per_request * 10 * 60  # about 10 requests a second
    start = time.monotonic()
    run_task(task, ScriptedBackend(), tmp_path / "tpm", options(tokens_per_minute=tpm))
    assert time.monotonic() - start >= 0.7


def test_error_text_never_holds_a_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-test-PLANTED-runner-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", key)

    def answer(request: GenerationRequest, attempt: int) -> str:
        raise TransientError(f"401 for Authorization: Bearer {key}")

    run_task(toy_task(3), ScriptedBackend(answer), tmp_path / "k", options(max_retries=0))
    text = "".join(p.read_text() for p in (tmp_path / "k").iterdir())
    assert key not in text and "***" in text


def test_limit_runs_only_the_first_items(tmp_path: Path) -> None:
    backend = ScriptedBackend()
    summary = run_task(toy_task(20), backend, tmp_path / "l", options(limit=5))
    assert summary.n == 5 and len(backend.calls) == 5


@pytest.mark.parametrize(
    "bad",
    [
        {"concurrency": 0},
        {"max_retries": -1},
        {"request_timeout": 0},
        {"requests_per_minute": 0},
        {"params": GenerationParams(max_new_tokens=0)},
        {"max_connection_failures": 0},
        {"log_to": "neptune"},
    ],
)
def test_bad_options_are_usage_errors(tmp_path: Path, bad: dict[str, Any]) -> None:
    with pytest.raises(UsageError, match=next(iter(bad))):
        run_task(toy_task(2), ScriptedBackend(), tmp_path / "x", options(**bad))
    assert not (tmp_path / "x").exists()


def test_unwritable_output_folder_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(UsageError, match="cannot create output folder"):
        run_task(toy_task(2), ScriptedBackend(), blocker / "run", options())
    with pytest.raises(UsageError, match="is a file"):
        run_task(toy_task(2), ScriptedBackend(), blocker, options())
    assert blocker.read_text() == "not a folder"


def test_a_non_run_folder_that_is_not_empty_is_refused(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(UsageError, match="not a run folder"):
        run_task(toy_task(2), ScriptedBackend(), tmp_path, options())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]


record_strategy = st.fixed_dictionaries(
    {
        "status": st.sampled_from(["correct", "wrong", "unparseable", "no_answer", "failed"]),
        "labels": st.fixed_dictionaries({"relation": st.sampled_from(["a", "b", "c"])}),
        "usage": st.fixed_dictionaries(
            {"prompt_tokens": st.integers(0, 99), "completion_tokens": st.integers(0, 9)}
        ),
        "cached": st.booleans(),
    }
)


@given(st.lists(record_strategy, max_size=40))
@settings(max_examples=60, deadline=None)
def test_summary_counts_add_up(records: list[dict[str, Any]]) -> None:
    typed = [Record.from_json({"index": i, **r}) for i, r in enumerate(records)]
    s = summarize(typed, out_dir=Path("x"), task="t", model="m", cost_usd=None, complete=True)
    assert sum(s.statuses.values()) == s.n == len(records)
    assert s.correct == sum(r["status"] == "correct" for r in records)
    assert s.accuracy == (s.correct / s.n if s.n else 0.0)
    assert sum(int(c["n"]) for c in s.by_label.get("relation", {}).values()) == len(records)
    assert s.usage["prompt_tokens"] == sum(r["usage"]["prompt_tokens"] for r in records)
