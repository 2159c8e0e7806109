"""A summary's context: chance, baselines on the same items, paper figures, answer habit, and the
breakdown table (sorted, 80 columns)."""

from __future__ import annotations

import csv
import random
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from relreason.models.baselines import BaselineBackend
from relreason.records import Record, format_summary, summarize
from relreason.records.context import (
    answer_habit,
    breakdown_lines,
    chance_level,
    label_sort_key,
    sorted_breakdown,
)
from relreason.run.context import baseline_accuracy, paper_figures_for, task_context
from relreason.run.runner import RunOptions, run_task
from relreason.types import EvalItem, Task
from servers.fault_server import toy_scorer, toy_task

REPO = Path(__file__).resolve().parents[1]


def _item(index: int, n_choices: int, gold: int = 0) -> EvalItem:
    letters = tuple("ABCDEFG"[:n_choices])
    return EvalItem(index, str(index), f"q{index}", letters[gold], letters, letters)


@given(st.lists(st.integers(min_value=2, max_value=7), min_size=1, max_size=40))
def test_chance_is_the_mean_of_one_over_the_number_of_choices(counts: list[int]) -> None:
    items = [_item(i, k) for i, k in enumerate(counts)]
    expected = sum(1 / k for k in counts) / len(counts)
    assert abs((chance_level(items) or 0) - expected) < 1e-12


def test_chance_of_no_items_is_unknown() -> None:
    assert chance_level([]) is None


def test_a_model_that_always_answers_one_letter_is_noted() -> None:
    records = [Record(i, str(i), "AB"[i % 2], "A") for i in range(30)]
    habit = answer_habit(records)
    assert habit == {
        "letter": "A",
        "count": 30,
        "answered": 30,
        "n": 30,
        "gold_count": 15,
        "habit": True,
    }


def test_mixed_answers_are_no_habit() -> None:
    records = [Record(i, str(i), "A", "AB"[i % 2]) for i in range(30)]
    records.append(Record(30, "30", "B", None))
    habit = answer_habit(records)
    assert habit is not None and habit["habit"] is False and habit["answered"] == 30
    assert habit["letter"] == "A" and habit["n"] == 31  # the tie goes to the first letter
    assert answer_habit([Record(0, "0", "A", None)]) is None


@given(st.lists(st.sampled_from(["10", "9", "2", "b", "B", "a", "1.5"]), unique=True, min_size=1))
def test_breakdown_order_is_stable_whatever_the_insertion_order(values: list[str]) -> None:
    cells = {v: {"n": 1, "correct": 1, "accuracy": 1.0} for v in values}
    shuffled = list(values)
    random.Random(len(values)).shuffle(shuffled)
    one = sorted_breakdown({"z": cells, "a": cells})
    two = sorted_breakdown({"a": {v: cells[v] for v in shuffled}, "z": cells})
    assert list(one) == ["a", "z"] and list(one["a"]) == list(two["a"])
    numbers = [v for v in one["a"] if label_sort_key(v)[0] == 0]
    assert numbers == sorted(numbers, key=float)  # "9" before "10"
    assert list(one["a"])[: len(numbers)] == numbers  # numbers first


def test_breakdown_table_shows_every_value_within_80_columns() -> None:
    cells = {f"relation number {i} with a long name, longer still": i for i in range(17)}
    by_label = {
        "relation": {
            k: {"n": 10, "correct": v % 10, "accuracy": v % 10 / 10} for k, v in cells.items()
        }
    }
    lines = breakdown_lines(by_label)
    assert len(lines) == 18 and all(len(line) <= 80 for line in lines)
    assert lines[0].split()[:2] == ["by", "relation"]


def test_baselines_in_the_context_are_what_baseline_runs_score(tmp_path: Path) -> None:
    task = toy_task(41)
    options = RunOptions(use_cache=False, show_progress=False)
    for kind in ("random", "first"):
        summary = run_task(task, BaselineBackend(kind), tmp_path / kind, options)
        assert summary.context["baselines"][kind] == summary.accuracy
        assert baseline_accuracy(task.items, kind) == summary.accuracy
    assert summary.context["chance"] == 0.5
    assert summary.context["paper"] is None  # the toy benchmark has no paper
    assert summary.context["answers"]["habit"] is True  # "first" always answers A
    text = format_summary(summary)
    assert "chance 0.500" in text and "note: the model answered 'A' to 41 of 41" in text
    assert all(len(line) <= 80 for line in text.splitlines() if "folder:" not in line)


def test_context_is_over_the_items_that_have_records() -> None:
    task = toy_task(20)
    records = [Record(i, str(i), task.items[i].gold, "B") for i in range(5)]
    context = task_context(task, records)
    firsts = sum(task.items[i].gold == "A" for i in range(5)) / 5
    assert context["baselines"]["first"] == firsts
    assert context["answers"]["n"] == 5


def test_paper_figures_are_those_of_the_same_cell() -> None:
    table = REPO / "src/relreason/benchmarks/convre/paper_table9.csv"
    rows = [r for r in csv.DictReader(table.open()) if r["accuracy"]]
    expected = {
        r["model"]: float(r["accuracy"])
        for r in rows
        if r["task"] == "text2re" and int(r["prompt"]) == 4
    }
    task = Task("convre", "t", {"task": "text2re", "setting_id": 4}, (), toy_scorer)
    paper = paper_figures_for(task)
    assert paper is not None and paper["figures"] == expected and paper["cell"] == "text2re, 4"
    unknown = Task("convre", "t", {"task": "text2re", "setting_id": None}, (), toy_scorer)
    assert paper_figures_for(unknown) is None


def test_summary_json_holds_the_context(tmp_path: Path) -> None:
    task = toy_task(12)
    run_task(
        task,
        BaselineBackend("first"),
        tmp_path / "r",
        RunOptions(show_progress=False, use_cache=False),
    )
    import json

    data = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert set(data["context"]) == {"chance", "baselines", "paper", "answers"}
    records = [
        Record(i, str(i), "A", "A", "correct", labels={"x": v})
        for i, v in enumerate(("10", "9", "2"))
    ]
    summary = summarize(
        records, out_dir=tmp_path, task="t", model="m", cost_usd=None, complete=True
    )
    assert list(summary.by_label["x"]) == ["2", "9", "10"]
