"""``--epochs N``: each item asked N times under seed + epoch, each epoch cached apart; the
summary's per-epoch accuracy, its spread and the reducers (checked here by a computation of
their own from the records); resume asks only the missing (item, epoch) pairs; ``--epochs 1``
changes nothing. The model is a real OpenAI-compatible server on 127.0.0.1 whose answer is a
hash of the prompt and the request's seed (so it varies between epochs as sampling would)."""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.benchmarks.epochs import epoch_task, parse_epochs
from relreason.cli import main
from relreason.errors import UsageError
from relreason.records.epochs import pass_at_k, reduce_epochs
from servers.fault_server import FaultServer, toy_task


class SeededServer(FaultServer):
    """The fault server (no faults), answering a letter drawn from the prompt and the seed."""

    def _completion(self, path: str, body: dict[str, Any], prompt: str) -> dict[str, Any]:
        answer = super()._completion(path, body, prompt)
        digest = hashlib.sha256(f"{body.get('seed')}|{prompt}".encode()).digest()
        answer["choices"][0]["message"]["content"] = self.letters[digest[0] % len(self.letters)]
        return answer


@pytest.fixture(autouse=True)
def _private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-epochs-0000")


def _run(args: list[str]) -> None:
    try:
        main(args)
    except SystemExit as done:
        assert not done.code


def _records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]


def _reduce_by_hand(records: list[dict[str, Any]]) -> dict[str, Any]:
    items: dict[str, list[dict[str, Any]]] = {}
    for r in sorted(records, key=lambda r: r["labels"]["epoch"]):
        items.setdefault(r["labels"]["epoch_item"], []).append(r)
    n = len(next(iter(items.values())))
    mean = sum(sum(r["status"] == "correct" for r in rs) / n for rs in items.values())
    majority = 0
    for rs in items.values():
        counts = Counter(r["answer"] for r in rs if r["answer"] is not None)
        if counts:
            best = max(counts.values())
            first = next(r for r in rs if counts.get(r["answer"]) == best)
            majority += first["status"] == "correct"
    right = [sum(r["status"] == "correct" for r in rs) for rs in items.values()]
    at_n = sum(1 - math.comb(n - c, n) / math.comb(n, n) for c in right)
    return {
        "mean": round(mean / len(items), 4),
        "majority": round(majority / len(items), 4),
        "at_least_one": round(sum(c > 0 for c in right) / len(items), 4),
        f"pass@{n}": round(at_n / len(items), 4),
    }


@pytest.mark.server
def test_three_epochs_seeds_reducers_and_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    with SeededServer(fault_rate=0.0, letters="ABCD") as server:
        args = ["run", "compose", "--model", "openai:fake", "--base-url", server.url]
        args += ["--limit", "6", "--epochs", "3", "--temperature", "0.7", "--seed", "10"]
        _run([*args, "--no-progress", "--no-cache", "--out", str(out)])
        printed = capsys.readouterr().out
        records = _records(out)
        assert len(records) == 18 and len(server.bodies) == 18
        pairs = {(r["labels"]["epoch_item"], r["labels"]["epoch"]) for r in records}
        assert len(pairs) == 18 and {e for _, e in pairs} == {0, 1, 2}
        # each prompt went out once per epoch, with seeds 10, 11, 12
        seeds: dict[str, list[int]] = {}
        for body in server.bodies:
            seeds.setdefault(json.dumps(body["messages"]), []).append(body["seed"])
        assert len(seeds) == 6 and all(sorted(s) == [10, 11, 12] for s in seeds.values())
        summary = json.loads((out / "summary.json").read_text())
        epochs = summary["extra"]["epochs"]
        by_hand = _reduce_by_hand(records)
        assert {k: epochs[k] for k in ("mean", "majority", "at_least_one")} == {
            k: by_hand[k] for k in ("mean", "majority", "at_least_one")
        }
        assert epochs["pass_at_k"]["3"] == by_hand["pass@3"]
        assert epochs["pass_at_k"]["1"] == epochs["mean"]
        per = [
            sum(r["status"] == "correct" for r in records if r["labels"]["epoch"] == e) / 6
            for e in range(3)
        ]
        assert [epochs["per_epoch"][str(e)]["accuracy"] for e in range(3)] == [
            round(a, 4) for a in per
        ]
        mean = sum(per) / 3
        sd = math.sqrt(sum((a - mean) ** 2 for a in per) / 2)
        assert epochs["epoch_sd"] == round(sd, 4)
        low, high = epochs["mean_ci95"]
        assert low <= epochs["mean"] <= high
        assert "epochs: 3 x 6 items" in printed and "majority" in printed
        assert all(len(line) <= 80 for line in printed.splitlines() if "folder:" not in line)
        # an interrupted run (records cut short) resumes asking only the missing pairs
        kept = (out / "records.jsonl").read_text().splitlines()[:7]
        (out / "records.jsonl").write_text("".join(x + "\n" for x in kept))
        asked = len(server.bodies)
        _run(["run", "--resume", str(out)])
        again = _records(out)
        assert {(r["labels"]["epoch_item"], r["labels"]["epoch"]) for r in again} == pairs
        done = [json.loads(x) for x in kept]
        wanted = {(r["prompt"], 10 + r["labels"]["epoch"]) for r in records if r not in done}
        resent = [(b["messages"][-1]["content"], b["seed"]) for b in server.bodies[asked:]]
        assert len(resent) == 18 - 7 and set(resent) == wanted


def _cache_keys(folder: Path) -> list[str]:
    with sqlite3.connect(folder / "cache.sqlite3") as db:
        return sorted(row[0] for row in db.execute("SELECT key FROM responses"))


@pytest.mark.server
def test_one_epoch_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = {}
    with SeededServer(fault_rate=0.0, letters="ABCD") as server:
        for name, extra in (("plain", []), ("one", ["--epochs", "1"])):
            monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / name / "cache"))
            out = tmp_path / name / "run"
            args = ["run", "compose", "--model", "openai:fake", "--base-url", server.url]
            _run([*args, "--limit", "4", *extra, "--no-progress", "--out", str(out)])
            manifest = json.loads((out / "manifest.json").read_text())
            runs[name] = (
                {k: manifest[k] for k in ("task", "description", "config", "options", "seeds")},
                [{**r, "latency_s": None} for r in _records(out)],  # the one timing
                _cache_keys(tmp_path / name / "cache"),
            )
        assert server.bodies[:4] == server.bodies[4:]
    assert runs["plain"] == runs["one"]
    assert all("epoch" not in r["labels"] for r in runs["one"][1])


def test_epoch_task_and_bad_values() -> None:
    task = toy_task(5)
    assert epoch_task(task, 1) is task and epoch_task(task, None) is task
    three = epoch_task(task, 3)
    assert [i.index for i in three.items] == list(range(15))
    assert three.description["epochs"] == 3 and three.group_by[-1] == "epoch"
    assert [i.item_id for i in three.items[:3]] == ["toy/0#e0", "toy/0#e1", "toy/0#e2"]
    for bad in ("0", "-2", "x"):
        with pytest.raises(UsageError, match="--epochs"):
            parse_epochs(bad)


epochs_st = st.lists(st.sampled_from([None, "A", "B", "C"]), min_size=1, max_size=6)


@given(st.lists(epochs_st, min_size=1, max_size=12), st.sampled_from(["A", "B"]))
def test_reducer_properties(answers: list[list[str | None]], gold: str) -> None:
    n = min(len(a) for a in answers)
    items = [[(a, a == gold) for a in row[:n]] for row in answers]
    got = reduce_epochs(items)
    mean, top = got["mean"], got["pass_at_k"][str(n)]
    assert 0 <= mean <= 1 and got["mean_ci95"][0] <= mean <= got["mean_ci95"][1]
    ks = [got["pass_at_k"][str(k)] for k in range(1, n + 1)]
    assert ks[0] == mean and ks == sorted(ks)
    assert got["at_least_one"] == top >= mean
    assert 0 <= got["majority"] <= got["at_least_one"]
    if n == 1:
        assert got["majority"] == mean


@given(st.integers(1, 8), st.data())
def test_pass_at_k_bounds(n: int, data: st.DataObject) -> None:
    c = data.draw(st.integers(0, n))
    values = [pass_at_k(n, c, k) for k in range(1, n + 1)]
    assert math.isclose(values[0], c / n) and values == sorted(values)
    assert values[-1] == (1.0 if c else 0.0)


def test_a_sweep_takes_epochs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        f"out: {tmp_path / 'sweep'}\nmodels: [first]\n"
        "runs:\n  - {benchmark: compose, language: en, method: zs}\n"
        "options: {limit: 3, epochs: 2}\n"
    )
    _run(["sweep", str(sweep), "--no-progress"])
    (folder,) = [p.parent for p in (tmp_path / "sweep").rglob("records.jsonl")]
    records = _records(folder)
    assert sorted((r["labels"]["epoch_base"], r["labels"]["epoch"]) for r in records) == [
        (b, e) for b in range(3) for e in range(2)
    ]
    epochs = json.loads((folder / "summary.json").read_text())["extra"]["epochs"]
    # "first" answers alike in every epoch: no spread, every reducer equal
    assert epochs["epoch_sd"] == 0.0
    assert epochs["mean"] == epochs["majority"] == epochs["at_least_one"]
    capsys.readouterr()
    _run(["report", str(tmp_path / "sweep"), "--json"])
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["n"] == 6 and (row["epochs"], row["epoch_sd"]) == (2, 0.0)
    assert row["majority"] == row["pass_at_n"] == epochs["majority"]
    _run(["report", str(tmp_path / "sweep")])
    assert "epochs" in capsys.readouterr().out  # the set-up column of the runs table


def test_evaluate_takes_epochs(tmp_path: Path) -> None:
    import relreason

    result = relreason.evaluate("compose", "first", out=tmp_path / "run", limit=2, epochs=2)
    assert result.summary.n == 4 and result.summary.extra["epochs"]["items"] == 2
    with pytest.raises(UsageError, match="--epochs"):
        relreason.evaluate("compose", "first", out=tmp_path / "bad", limit=2, epochs=0)
