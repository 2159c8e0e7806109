"""Option-order probes (``--permute``): the orders, the reordered prompts (MCR/compose rewrite
their answer choices, ConvRe swaps its A/B texts), the expanded tasks, the summary figures, and
run + resume through the command line."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason import benchmarks
from relreason.benchmarks.convre.reorder import reorder_ab
from relreason.benchmarks.mcr.prompts import build_task as build_mcr
from relreason.benchmarks.mcr.reorder import reorder_lettered
from relreason.benchmarks.permute import orders, parse_permute, permute_task
from relreason.benchmarks.registry import permuted
from relreason.cli import main
from relreason.errors import UsageError
from relreason.records.permutation import permutation_stats
from relreason.records.record import Record
from relreason.types import EvalItem, Task

QUESTIONS = [
    {"question": "A is B's son. What is B to A? ", "options": ["Father", "Son", "Uncle"],
     "correct": "Father", "category": ["Personal"]},
    {"question": "X is east of Y.", "options": ["East", "West", "North", "South", "Uncertain"],
     "correct": "West", "category": ["Positional"]},
]  # fmt: skip


def _mcr_dir(root: Path, questions: list[dict]) -> Path:
    (root / "mcr").mkdir(parents=True, exist_ok=True)
    text = json.dumps(questions, ensure_ascii=False)
    (root / "mcr" / "composition_english.json").write_text(text, encoding="utf-8")
    return root


@given(st.integers(1, 6), st.sampled_from(["cyclic", "reverse", "all", "2", "5", "30"]))
def test_orders_are_distinct_permutations_starting_with_the_original(n: int, how: str) -> None:
    if how == "all" and math.factorial(n) > 120:
        with pytest.raises(UsageError):
            orders(n, how)
        return
    named = orders(n, how, key="item/1")
    perms = [p for _, p in named]
    assert perms[0] == tuple(range(n))
    assert all(sorted(p) == list(range(n)) for p in perms)
    assert len(set(perms)) == len(perms) == len({name for name, _ in named})
    expected = {"cyclic": n, "reverse": min(2, n), "all": math.factorial(n)}
    wanted = expected[how] if how in expected else min(int(how), math.factorial(n))
    assert len(perms) == wanted
    assert named == orders(n, how, key="item/1")  # seeded by the item: the same on resume


def test_parse_permute() -> None:
    assert parse_permute(" Cyclic ") == "cyclic" and parse_permute("04") == "4"
    for bad in ("1", "rotate", "-3", ""):
        with pytest.raises(UsageError, match="cyclic"):
            parse_permute(bad)


@given(st.integers(0, 1), st.data())
def test_mcr_reorder_equals_the_prompt_built_from_reordered_options(
    which: int, data: st.DataObject
) -> None:
    import tempfile

    question = QUESTIONS[which]
    order = tuple(data.draw(st.permutations(range(len(question["options"])))))
    with tempfile.TemporaryDirectory() as folder:
        base = build_mcr(
            "en",
            "fs",
            data_dir=_mcr_dir(Path(folder), QUESTIONS),
            exemplars={"english": "\nQ:e? Answer choices: A) x B) y\nA:A) x\n"},
        )
        moved = dict(question, options=[question["options"][i] for i in order])
        shown = build_mcr(
            "en",
            "fs",
            data_dir=_mcr_dir(Path(folder) / "b", [moved]),
            exemplars={"english": "\nQ:e? Answer choices: A) x B) y\nA:A) x\n"},
        )
    reordered = reorder_lettered(base.items[which], order)
    assert reordered.prompt == shown.items[0].prompt
    assert reordered.gold == shown.items[0].gold
    assert reordered.choice_texts == shown.items[0].choice_texts


def _convre_item(a: str, b: str, gold: str) -> EvalItem:
    prompt = (
        "Read the instruction and then answer the question using A or B.\n\nA: ex1\nB: ex2\n"
        "Instruction: (x, has part, y) means y has a part x.\nQuestion: (?, has part, car)"
        f"\nA: {a}\nB: {b}\nTo convert the question into a semantically equivalent natural "
        "language sentence, which choice is correct? \nAnswer:"
    )
    return EvalItem(0, "has part/0", prompt, gold, ("A", "B"), (a, b))


def test_convre_reorder_swaps_the_answer_texts_only() -> None:
    item = _convre_item("What has a part car?", "What is a part of car?", "B")
    swapped = reorder_ab(item, (1, 0))
    assert (
        swapped.prompt == _convre_item("What is a part of car?", "What has a part car?", "A").prompt
    )
    assert swapped.gold == "A" and swapped.prompt.count("\nA: ex1\nB: ex2\n") == 1
    assert reorder_ab(item, (0, 1)) == item
    with pytest.raises(ValueError):
        reorder_ab(item, (0, 0))


def _task(items: tuple[EvalItem, ...]) -> Task:
    return Task("mcr", "mcr/en/zs", {"benchmark": "mcr"}, items, lambda i, r: None,  # type: ignore[arg-type,return-value]
                group_by=("categories",))  # fmt: skip


def test_permute_task_keeps_each_option_with_its_text(tmp_path: Path) -> None:
    base = build_mcr("en", "zs", data_dir=_mcr_dir(tmp_path, QUESTIONS))
    task = permute_task(base, "cyclic", reorder_lettered)
    assert len(task.items) == 3 + 5 and [i.index for i in task.items] == list(range(8))
    assert task.description["permute"] == "cyclic" and task.group_by[-1] == "order"
    for item in task.items:
        original = base.items[item.labels["base_index"]]
        option_of = item.labels["option_of"]
        assert list(option_of) == list(item.choices)
        for letter, text in zip(item.choices, item.choice_texts, strict=True):
            assert original.choice_texts[option_of[letter]] == text
        assert (
            item.choice_texts[item.choices.index(item.gold)]
            == original.choice_texts[original.choices.index(original.gold)]
        )
        assert item.item_id == f"{original.item_id}@{item.labels['order']}"


def test_a_benchmark_without_reorder_refuses() -> None:
    class NoReorder(type(benchmarks.get("mcr"))):  # type: ignore[misc]
        name = "noreorder"

    benchmarks.register(NoReorder())
    try:
        NoReorder.reorder = benchmarks.base.Benchmark.reorder  # type: ignore[method-assign]
        item = EvalItem(0, "a", "p", "A", ("A", "B"), ("x", "y"))
        task = Task("noreorder", "n", {}, (item,), lambda i, r: None)  # type: ignore[arg-type,return-value]
        with pytest.raises(UsageError, match="cannot show its options"):
            permuted(task, "reverse")
    finally:
        benchmarks.unregister("noreorder")


def _records(answer_of: dict[str, str], golds: dict[str, str]) -> list[Record]:
    """Records of two 3-option items under the cyclic orders, answered by ``answer_of``."""
    out = []
    for base in ("q1", "q2"):
        for k, (name, order) in enumerate(orders(3, "cyclic")):
            letters = ("A", "B", "C")
            option_of = dict(zip(letters, order, strict=True))
            gold = letters[order.index(int(golds[base]))]
            answer = answer_of.get(f"{base}{k}")
            if answer is not None and answer.isdigit():  # "the option with this base index"
                answer = letters[order.index(int(answer))]
            labels = {"order": name, "base_item_id": base, "option_of": option_of}
            status = "correct" if answer == gold else "wrong"
            index = len(out)
            out.append(Record(index, f"{base}{k}", gold, answer, status, labels=labels))
    return out


def test_stats_of_a_position_habit_and_of_a_consistent_reader() -> None:
    golds = {"q1": "0", "q2": "2"}
    always_a = permutation_stats(
        _records({f"q{i}{k}": "A" for i in (1, 2) for k in range(3)}, golds)
    )
    assert always_a is not None
    assert always_a["consistency"] == 0 and always_a["chosen_position"] == {"1": 1.0}
    assert always_a["gold_position"] == {"1": 0.3333, "2": 0.3333, "3": 0.3333}
    assert always_a["all_orders_correct"] == 0
    steady = {f"q1{k}": "0" for k in range(3)} | {f"q2{k}": "1" for k in range(3)}
    stats = permutation_stats(_records(steady, golds))
    assert stats is not None and stats["consistency"] == 1 and stats["all_orders_correct"] == 0.5
    assert stats["orders"]["rot0"] == {"n": 2, "accuracy": 0.5}
    assert permutation_stats([Record(0, "q", "A", "A", "correct")]) is None


def test_run_with_permute_then_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    args = ["run", "compose", "--model", "first", "--permute", "cyclic", "--limit", "12"]
    try:
        main([*args, "--out", str(out), "--no-progress"])
    except SystemExit as done:
        assert not done.code
    printed = capsys.readouterr().out
    assert "position chosen {1: 1.00}" in printed
    assert all(len(line) <= 80 for line in printed.splitlines() if "folder:" not in line)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["extra"]["permutation"]["consistency"] == 0.0
    assert set(summary["by_label"]["order"]) == {"rot0", "rot1", "rot2", "rot3"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["description"]["permute"] == "cyclic"
    lines = (out / "records.jsonl").read_text().splitlines()
    (out / "records.jsonl").write_text("".join(x + "\n" for x in lines[:3]))
    try:
        main(["run", "--resume", str(out)])
    except SystemExit as done:
        assert not done.code
    again = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert [r["item_id"] for r in again] == [json.loads(x)["item_id"] for x in lines]
    assert [r["gold"] for r in again] == [json.loads(x)["gold"] for x in lines]
    capsys.readouterr()
    try:
        main(["report", str(tmp_path), "--json"])
    except SystemExit as done:
        assert not done.code
    (row,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert (row["permute"], row["consistency"], row["top_position"]) == ("cyclic", 0.0, 1.0)


def test_every_cyclic_order_is_asked_once() -> None:
    bench = benchmarks.get("compose")
    base = bench.build_task(bench.params(language="en"))
    task = permuted(base, "cyclic")
    pairs = {(i.labels["base_item_id"], i.labels["order"]) for i in task.items}
    assert len(pairs) == len(task.items) == len(base.items) * 4
    golds = [i.gold for i in task.items if i.labels["base_index"] == 0]
    assert sorted(golds) == ["A", "B", "C", "D"]
    assert list(itertools.islice((i.labels["order"] for i in task.items), 4)) == [
        "rot0", "rot1", "rot2", "rot3"
    ]  # fmt: skip


def test_evaluate_takes_permute(tmp_path: Path) -> None:
    import relreason

    result = relreason.evaluate(
        "compose", "first", out=tmp_path / "run", language="ko", permute="reverse", limit=6
    )
    assert result.accuracy == pytest.approx(sum(r.correct for r in result.records()) / 6)
    assert {r.labels["order"] for r in result.records()} == {"orig", "rev"}
