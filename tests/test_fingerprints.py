"""Fingerprints and refusals: a resume or sweep whose items, reader, model, servers or
parameters changed is refused naming what changed (or rerun with ``rerun_changed``); partial
runs (``limit``, the seeded stratified ``sample``) are marked partial everywhere."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clihelp import run_cli, tiny_args, tiny_registered
from relreason.errors import UsageError
from relreason.models.baselines import BaselineBackend
from relreason.records import load_records
from relreason.run.runner import RunOptions, resume_run, run_task
from relreason.run.runs_table import collect, format_rows
from relreason.run.selection import select_items, stratified_sample
from relreason.types import Extraction
from servers.fault_server import toy_task
from test_tiny_benchmark import Tiny

OPTIONS = RunOptions(use_cache=False)


def first_run(tmp_path: Path, n: int = 12) -> Path:
    out = tmp_path / "run"
    run_task(toy_task(n), BaselineBackend("random", seed=1), out, OPTIONS)
    return out


def with_prompt_changed(n: int, index: int) -> object:
    task = toy_task(n)
    items = list(task.items)
    items[index] = dataclasses.replace(items[index], prompt=items[index].prompt + " (v2)")
    return dataclasses.replace(task, items=tuple(items))


def test_changed_items_are_refused_naming_them_and_rerun_on_request(tmp_path: Path) -> None:
    out = first_run(tmp_path)
    before = (out / "records.jsonl").read_bytes()
    changed = with_prompt_changed(12, 4)
    backend = BaselineBackend("random", seed=1)
    with pytest.raises(UsageError, match=r"differs in: items\).*--rerun-changed"):
        resume_run(out, task=changed, backend=backend)  # type: ignore[arg-type]
    assert (out / "records.jsonl").read_bytes() == before
    summary = resume_run(out, task=changed, backend=backend, rerun_changed=True)  # type: ignore[arg-type]
    assert summary.n == 12 and summary.complete
    assert load_records(out)[4]["prompt"].endswith("(v2)")
    assert list(out.glob("records.replaced-*.jsonl"))  # the old records were set aside, kept


def test_gold_and_option_order_are_in_the_fingerprint(tmp_path: Path) -> None:
    out = first_run(tmp_path)
    task = toy_task(12)
    item = task.items[0]
    swapped = dataclasses.replace(item, choice_texts=tuple(reversed(item.choice_texts)))
    regold = dataclasses.replace(item, gold="B" if item.gold == "A" else "A")
    for new in (swapped, regold):
        other = dataclasses.replace(task, items=(new, *task.items[1:]))
        with pytest.raises(UsageError, match="items"):
            run_task(other, BaselineBackend("random", seed=1), out, OPTIONS)


def test_another_reader_is_refused(tmp_path: Path) -> None:
    out = first_run(tmp_path)

    def other_reader(item: object, response: object) -> Extraction:
        return Extraction(None, "unparseable", "none")

    # readers are told apart by their declared name (and options), not by their function
    task = dataclasses.replace(toy_task(12), scorer=other_reader, reader="other")
    with pytest.raises(UsageError, match="reader"):
        resume_run(out, task=task, backend=BaselineBackend("random", seed=1))


def test_another_server_is_refused_before_any_request(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from relreason.models.openai.backend import OpenAIBackend
    from servers.fault_server import FaultServer

    out = tmp_path / "run"
    options = RunOptions(use_cache=False, max_retries=0)
    with FaultServer(fault_rate=0.0) as one, FaultServer(fault_rate=0.0) as two:
        run_task(toy_task(6), OpenAIBackend("fault-model", base_urls=[one.url]), out, options)
        with pytest.raises(UsageError, match="servers"):
            backend = OpenAIBackend("fault-model", base_urls=[two.url])
            run_task(toy_task(6), backend, out, options)
        assert sum(two.counts.values()) == 0


def test_sample_is_seeded_and_stratified() -> None:
    task = toy_task(90)  # relation rel0/rel1/rel2, 30 each
    a = stratified_sample(dataclasses.replace(task, group_by=("relation",)), 30, seed=4)
    b = stratified_sample(dataclasses.replace(task, group_by=("relation",)), 30, seed=4)
    c = stratified_sample(dataclasses.replace(task, group_by=("relation",)), 30, seed=5)
    assert [i.index for i in a] == [i.index for i in b] != [i.index for i in c]
    assert Counter(i.labels["relation"] for i in a) == {"rel0": 10, "rel1": 10, "rel2": 10}


@settings(max_examples=60)
@given(n_items=st.integers(1, 60), n=st.integers(1, 80), seed=st.integers(0, 5))
def test_sample_size_and_shares(n_items: int, n: int, seed: int) -> None:
    task = dataclasses.replace(toy_task(n_items), group_by=("relation",))
    chosen = stratified_sample(task, n, seed)
    assert len(chosen) == min(n, n_items)
    assert len({i.index for i in chosen}) == len(chosen)
    total = Counter(i.labels["relation"] for i in task.items)
    got = Counter(i.labels["relation"] for i in chosen)
    for label, count in total.items():  # each stratum within one of its exact share
        assert abs(got[label] - len(chosen) * count / n_items) < 1 + 1e-9


def test_partial_runs_are_marked_in_summary_and_report(tmp_path: Path) -> None:
    out = tmp_path / "sweep" / "run"
    options = RunOptions(use_cache=False, sample=6)
    summary = run_task(toy_task(30), BaselineBackend("random", seed=1), out, options)
    assert summary.partial and summary.n == 6 and summary.n_task == 30
    assert "[partial: 6 of 30 items]" in str(summary)
    data = json.loads((out / "summary.json").read_text())
    assert data["partial"] is True and data["n_task"] == 30
    assert sorted(load_records(out)) == [i.index for i in select_items(toy_task(30), options)]
    rows = collect(tmp_path / "sweep")
    assert rows[0]["partial"] and "partial (6 of 30 items)" in format_rows(rows)
    full = run_task(toy_task(30), BaselineBackend("random", seed=1), tmp_path / "full", OPTIONS)
    assert not full.partial and "[partial" not in str(full)


@pytest.fixture()
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Tiny]:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    yield from tiny_registered()


SWEEP = """\
out: {out}
models: [oracle]
runs:
  - {{benchmark: tiny, n: 4}}
options: {{max_new_tokens: {tokens}, use_cache: false}}
"""


def test_a_sweep_refuses_finished_cells_whose_options_changed(
    tiny: Tiny, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sweep.yaml"
    out = tmp_path / "out"
    path.write_text(SWEEP.format(out=out, tokens=4))
    assert run_cli(["sweep", str(path), "--no-progress"], capsys)[0] == 0
    path.write_text(SWEEP.format(out=out, tokens=8))
    code, _, err = run_cli(["sweep", str(path), "--no-progress"], capsys)
    assert code == 2 and "params" in err and "--rerun-changed" in err
    code, _, _ = run_cli(["sweep", str(path), "--no-progress", "--rerun-changed"], capsys)
    assert code == 0
    manifest = json.loads(next(out.rglob("manifest.json")).read_text())
    assert manifest["options"]["params"]["max_new_tokens"] == 8


def test_cli_sample_and_limit_mark_the_run_partial(
    tiny: Tiny, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(
        tiny_args(tmp_path / "a", 20, "--model", "oracle", "--sample", "5"), capsys
    )
    assert code == 0 and "[partial: 5 of 20 items]" in out
    code, out, _ = run_cli(
        tiny_args(tmp_path / "b", 20, "--model", "oracle", "--limit", "3"), capsys
    )
    assert code == 0 and "[partial: 3 of 20 items]" in out
