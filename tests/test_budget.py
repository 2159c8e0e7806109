"""``--max-cost`` and ``--max-tokens-total``: a run stops cleanly at its session's budget,
priced from the usage a real local OpenAI-compatible server reports, says why in its manifest,
and resumes; the dry run says where it would stop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from relreason.cli import main
from relreason.errors import InterruptedRunError, UsageError
from relreason.models.openai.backend import OpenAIBackend
from relreason.run.budget import Budget, BudgetReachedError
from relreason.run.cost import Price, dry_run
from relreason.run.options import RunOptions
from relreason.run.runner import resume_run, run_task
from relreason.types import Usage
from servers.fault_server import FaultServer, toy_task

PRICE = Price(input=1000.0, output=4000.0)  # USD per million tokens: a few cents per run


@pytest.fixture(autouse=True)
def _private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-budget-0000")
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"fake": {"input": PRICE.input, "output": PRICE.output}}))
    monkeypatch.setenv("RELREASON_PRICES", str(prices))
    return prices


def _records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]


def _spent(records: list[dict[str, Any]]) -> tuple[int, float]:
    prompt = sum(r["usage"]["prompt_tokens"] for r in records)
    completion = sum(r["usage"]["completion_tokens"] for r in records)
    return prompt + completion, PRICE.cost(prompt, completion)


def _manifest(folder: Path) -> dict[str, Any]:
    return dict(json.loads((folder / "manifest.json").read_text()))


@pytest.mark.server
@pytest.mark.parametrize("concurrency", [1, 4])
def test_the_run_stops_at_its_cost_and_resumes(tmp_path: Path, concurrency: int) -> None:
    task = toy_task(40)
    out = tmp_path / "run"
    budget = 0.05
    with FaultServer(fault_rate=0.0) as server:
        backend = OpenAIBackend("fake", base_urls=[server.url])
        options = RunOptions(use_cache=False, concurrency=concurrency, max_cost=budget)
        with pytest.raises(BudgetReachedError) as stopped:
            run_task(task, backend, out, options)
        records = _records(out)
        assert 0 < len(records) < len(task.items)
        assert all(r["status"] != "failed" for r in records)  # in flight: finished, recorded
        cost = _spent(records)[1]
        assert cost >= budget
        # no request started once the budget was spent: only those in flight went over
        in_flight = 2 * concurrency
        assert _spent(sorted(records, key=lambda r: r["index"])[:-in_flight])[1] < budget
        message = str(stopped.value)
        assert "--max-cost 0.05 reached" in message and f"relreason run --resume {out}" in message
        assert isinstance(stopped.value, InterruptedRunError) and stopped.value.exit_code == 130
        manifest = _manifest(out)
        assert manifest["status"] == "interrupted"
        assert "--max-cost" in manifest["sessions"][-1]["stopped"]
        assert manifest["cost_usd"] == pytest.approx(cost)
        again = OpenAIBackend("fake", base_urls=[server.url])
        summary = resume_run(out, task=task, backend=again, options_override={"max_cost": None})
    assert summary.n == len(task.items) and summary.complete
    assert _manifest(out)["status"] == "complete"
    assert _manifest(out)["sessions"][-1]["stopped"] is None
    assert len({r["index"] for r in _records(out)}) == len(task.items)


@pytest.mark.server
def test_the_run_stops_at_its_tokens(tmp_path: Path) -> None:
    task = toy_task(30)
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0) as server:
        backend = OpenAIBackend("fake", base_urls=[server.url])
        options = RunOptions(use_cache=False, concurrency=1, max_tokens_total=40)
        with pytest.raises(BudgetReachedError, match="--max-tokens-total 40 reached"):
            run_task(task, backend, out, options)
    records = sorted(_records(out), key=lambda r: r["index"])
    assert _spent(records)[0] >= 40 > _spent(records[:-2])[0]


def test_an_unpriced_model_with_max_cost_is_refused_before_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RELREASON_PRICES")
    backend = OpenAIBackend("no-such-priced-model", base_urls=["http://127.0.0.1:9/v1"])
    with pytest.raises(UsageError, match="price"):
        run_task(toy_task(3), backend, tmp_path / "x", RunOptions(max_cost=1.0))
    assert not (tmp_path / "x").exists()


def test_a_budget_counts_what_it_is_given() -> None:
    budget = Budget(None, 100, Price(0.0, 0.0))
    budget.spend([Usage(60, 30)])
    assert budget.reached() is None
    budget.spend([Usage(9, 1)])
    assert budget.reached() is not None
    with pytest.raises(BudgetReachedError):
        budget.check()


def test_the_dry_run_says_where_it_would_stop() -> None:
    task = toy_task(40)
    whole = dry_run(task, "openai:fake", RunOptions())
    assert whole.stops_after is None and "budget" not in whole.format()
    half = whole.cost_usd / 2  # type: ignore[operator]
    report = dry_run(task, "openai:fake", RunOptions(max_cost=half))
    assert report.stops_after is not None and 15 <= report.stops_after <= 25
    assert f"stop after about {report.stops_after} of 40 items" in report.format()
    tokens = dry_run(task, "openai:fake", RunOptions(max_tokens_total=1))
    assert tokens.stops_after == 1


@pytest.mark.server
def test_the_command_line_exits_130_with_the_resume_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0) as server:
        args = ["run", "compose", "--model", "openai:fake", "--base-url", server.url]
        args += ["--limit", "20", "--concurrency", "1", "--no-progress", "--out", str(out)]
        with pytest.raises(SystemExit) as done:
            main([*args, "--max-tokens-total", "300"])
    assert done.value.code == 130
    err = capsys.readouterr().err
    assert "--max-tokens-total 300 reached" in err and "--resume" in err
    assert "Traceback" not in err
    with pytest.raises(SystemExit) as done:
        main([*args, "--max-tokens-total", "300", "--dry-run"])
    assert done.value.code in (0, None)
    assert "would stop after about" in capsys.readouterr().out
