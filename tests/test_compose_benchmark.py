"""The compose benchmark: the generated sets run through prompts, run, score, resume and sweeps
like MCR, on the bundled default set (no download) or a generated file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relreason import benchmarks
from relreason.cli import main
from relreason.errors import UsageError
from relreason.generate import ComposeOptions, compose, write_items
from relreason.generate.compose import DOMAINS
from relreason.generate.default import default_path
from relreason.generate.exemplars import generated_exemplars
from relreason.run.plan import task_from_description


def cli(args: list[str]) -> None:
    """Run ``relreason ARGS``; fail the test unless it exits 0."""
    try:
        main(args)
    except SystemExit as done:
        assert not done.code, f"relreason {' '.join(args)} exited {done.code}"


def _mcr_prompt(raw: dict, suffix: str) -> str:
    """MCR's formula (the official ``main.py``), written out here independently of the package."""
    choices = "".join(f"{chr(65 + j)}) {o} " for j, o in enumerate(raw["options"]))
    return "Q: " + raw["question"].strip() + " Answer choices: " + choices + "\nA:" + suffix


def test_default_set_prompts_are_mcr_prompts() -> None:
    bench = benchmarks.get("compose")
    task = bench.build_task(bench.params(language="ko", method="zs"))
    raw = json.loads(default_path("ko").read_text("utf-8"))
    assert len(task.items) == len(raw) == 300
    for item, entry in zip(task.items, raw, strict=True):
        assert item.prompt == _mcr_prompt(entry, " Among options, the answer is")
        assert item.choice_texts[ord(item.gold) - 65] == entry["correct"]
        assert item.labels["hops"] == entry["hops"] and item.labels["domain"] == entry["domain"]
    assert {"domain", "hops"} <= set(task.group_by)
    assert {item.labels["domain"] for item in task.items} == set(DOMAINS)  # all six reported
    assert task.description["data_sha256"] and task.max_new_tokens == 32


def test_methods_and_modes() -> None:
    bench = benchmarks.get("compose")
    fs = bench.build_task(bench.params(language="french", method="fs"))
    assert fs.items[0].prompt.startswith(generated_exemplars()["french"] + "Q: ")
    zsc = bench.build_task(bench.params(language="en", method="zsc"))
    assert zsc.second_stage is not None and zsc.max_new_tokens == 256
    paper = bench.build_task(bench.params(language="en", method="zsc", mode="paper"))
    assert paper.second_stage is None
    cleaned = bench.build_task(bench.params(language="en", mode="paper", cleanup_model="oracle"))
    assert cleaned.follow_up is not None and cleaned.description["cleanup_model"] == "oracle"
    again = task_from_description(cleaned.description)
    assert again.follow_up is not None and again.follow_up.model == "oracle"
    with pytest.raises(UsageError, match="unknown MCR method"):
        bench.build_task(bench.params(language="en", method="cot"))


def test_a_generated_file_takes_its_own_language(tmp_path: Path) -> None:
    items = compose(ComposeOptions(language="ja", hops=(4,), n_options=5, seed=7, count=6))
    path = write_items(items, tmp_path / "mine.json")
    bench = benchmarks.get("compose")
    params = bench.params(file=path)
    task = bench.build_task(params)
    assert task.description["language"] == "ja" and len(task.items) == 6
    raw = json.loads(path.read_text("utf-8"))
    assert [i.labels["n_options"] for i in task.items] == [len(r["options"]) for r in raw]
    assert bench.run_name(params) == "compose-zs-mine"
    again = task_from_description(task.description)
    assert [i.prompt for i in again.items] == [i.prompt for i in task.items]
    older = {k: v for k, v in task.description.items() if k != "params"}  # before params
    assert [i.prompt for i in task_from_description(older).items] == [i.prompt for i in task.items]
    with pytest.raises(UsageError, match="lacks the field 'method'"):
        task_from_description({k: v for k, v in older.items() if k != "method"})


def test_cli_prompts_run_resume_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(["prompts", "compose", "--language", "zh", "--limit", "3"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 3 and rows[0]["prompt"].startswith("Q: ")

    out = tmp_path / "run"
    args = ["run", "compose", "--language", "en", "--model", "oracle", "--limit", "20"]
    cli([*args, "--out", str(out), "--no-progress"])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accuracy"] == 1.0 and "hops" in summary["by_label"]
    lines = (out / "records.jsonl").read_text().splitlines()
    (out / "records.jsonl").write_text("".join(x + "\n" for x in lines[:5]))
    cli(["run", "--resume", str(out)])
    resumed = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    original = [json.loads(x) for x in lines]
    key = ("index", "item_id", "gold", "answer", "status")
    assert [[r[k] for k in key] for r in resumed] == [[r[k] for k in key] for r in original]

    raw = json.loads(default_path("en").read_text("utf-8"))[0]
    gold = chr(65 + raw["options"].index(raw["correct"]))
    responses = tmp_path / "responses.jsonl"
    responses.write_text(f'{{"index": 0, "output": "The answer is {gold}."}}\n')
    scored = tmp_path / "scored.jsonl"
    cli(["score", "compose", "--responses", str(responses), "--out", str(scored)])
    first = json.loads(scored.read_text().splitlines()[0])
    assert first["answer"] == gold and first["status"] == "correct"


def test_sweep_spans_compose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        f"out: {tmp_path / 'sweep'}\nmodels: [first]\n"
        "runs:\n  - {benchmark: compose, language: [en, fr], method: zs}\n"
        "options: {limit: 8, permute: reverse}\n"
    )
    cli(["sweep", str(sweep), "--no-progress"])
    capsys.readouterr()
    cli(["report", str(tmp_path / "sweep"), "--json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted((r["task"], r["setting"], r["n"], r["permute"]) for r in rows) == [
        ("en", "zs", 8, "reverse"),
        ("fr", "zs", 8, "reverse"),
    ]


def test_an_mcr_format_file_in_another_language(tmp_path: Path) -> None:
    path = tmp_path / "de.json"
    rows = [{"question": "A ist Bs Sohn. Was ist B für A?", "options": ["Vater", "Sohn"],
             "correct": "Vater", "category": ["Personal"]}]  # fmt: skip
    path.write_text(json.dumps(rows), encoding="utf-8")
    bench = benchmarks.get("compose")
    task = bench.build_task(bench.params(file=path, language="de"))
    assert task.description["language"] == "de" and task.items[0].gold == "A"
    assert task.items[0].labels["domain"] == "Personal" and task.items[0].labels["hops"] == 0
    with pytest.raises(UsageError, match="fs-english"):
        bench.build_task(bench.params(file=path, language="de", method="fs"))
    english = bench.build_task(bench.params(file=path, language="de", method="fs-english"))
    assert english.items[0].prompt.startswith(generated_exemplars()["english"])


def test_compose_runs_are_never_set_beside_mcr_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs" / "first" / "compose"
    cli(["run", "compose", "--model", "first", "--limit", "4", "--out", str(out), "--no-progress"])
    capsys.readouterr()
    cli(["report", str(tmp_path / "runs"), "--compare", "first=GPT-4"])
    printed = capsys.readouterr().out
    assert (
        "Beside the papers: not possible" in printed
        or "compose" not in printed.split("Beside the papers")[1].split("\n\n")[0]
    )


def test_a_run_of_the_shipped_set_after_it_is_regenerated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run folder written on the shipped set, then the set regenerated (here: a temporary
    copy with one question changed): ``--resume`` asks exactly the items the folder keeps
    (``items.jsonl``); a folder without them (made before they were kept) is refused naming
    the items and ``--rerun-changed``, which runs it again on the new set; an edited copy is
    refused naming the file, item and field."""
    import shutil

    from relreason.generate import default

    shipped = tmp_path / "default"
    shutil.copytree(default.default_dir(), shipped)
    monkeypatch.setattr(default, "default_dir", lambda: shipped)
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))  # no earlier answers
    out = tmp_path / "run"
    args = ["run", "compose", "--language", "zh", "-m", "random", "--limit", "5", "--no-cache"]
    cli([*args, "--out", str(out), "--no-progress"])
    lines = (out / "records.jsonl").read_text().splitlines()
    kept = (out / "items.jsonl").read_text("utf-8")
    assert len(kept.splitlines()) == 300

    path = shipped / "compose_zh.json"
    items = json.loads(path.read_text("utf-8"))
    items[1]["question"] += " (v2)"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    (out / "records.jsonl").write_text(lines[0] + "\n")  # stopped after one item
    cli(["run", "--resume", str(out)])  # the old items, as kept
    records = (out / "records.jsonl").read_text().splitlines()
    assert records == lines and (out / "items.jsonl").read_text("utf-8") == kept

    edited = kept.replace('"gold": "A"', '"gold": "B"', 1)
    assert edited != kept
    (out / "items.jsonl").write_text(edited, "utf-8")
    with pytest.raises(SystemExit) as refused:
        main(["run", "--resume", str(out)])
    said = capsys.readouterr().err
    assert refused.value.code and "items.jsonl, item" in said and "field 'gold'" in said, said
    (out / "items.jsonl").write_text('{"index": "x"}\n', "utf-8")
    with pytest.raises(SystemExit):
        main(["run", "--resume", str(out)])
    said = capsys.readouterr().err
    assert "items.jsonl, item line 1, field 'index'" in said, said

    (out / "items.jsonl").unlink()  # a folder of an older relreason
    (out / "records.jsonl").write_text(lines[0] + "\n")
    with pytest.raises(SystemExit) as refused:
        main(["run", "--resume", str(out)])
    assert refused.value.code
    said = capsys.readouterr().err
    assert "another configuration" in said and "--rerun-changed" in said, said
    assert len((out / "records.jsonl").read_text().splitlines()) == 1  # nothing rewritten
    cli(["run", "--resume", str(out), "--rerun-changed"])
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert len(records) == 5 and "(v2)" in records[1]["prompt"]
    assert "(v2)" in (out / "items.jsonl").read_text("utf-8")  # the new items kept
