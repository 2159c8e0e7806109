"""The command line's run, resume, sweep and report commands, end to end with baseline models.

Baselines (random, first, oracle) need no weights, so the whole pipeline — prompts, runner,
scoring, run folders — runs here on the official data in seconds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relreason.benchmarks.convre import prompts as convre
from relreason.benchmarks.mcr import prompts as mcr
from relreason.cli import main


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``relreason ARGS``; return (exit code, stdout, stderr)."""
    try:
        main(args)
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def records(folder: Path) -> list[dict[str, object]]:
    """The records of a run folder."""
    lines = (folder / "records.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_run_convre_first_baseline_matches_gold_share(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = ["run", "convre", "--task", "text2re", "--setting", "3", "--subset", "--model", "first"]
    code, stdout, _ = run_cli(
        [*args, "--out", str(out), "--no-progress", "--data-dir", str(shared_data)], capsys
    )
    assert code == 0
    golds = [i.gold for i in convre.build_items("text2re", 3, subset=True, data_dir=shared_data)]
    rows = records(out)
    assert [r["index"] for r in rows] == list(range(len(golds)))
    assert all(r["answer"] == "A" for r in rows)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accuracy"] == pytest.approx(golds.count("A") / len(golds))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["description"]["setting_id"] == 3 and manifest["status"] == "complete"
    assert manifest["model"]["spec"] == "first"
    assert f"{summary['accuracy']:.4f}" in stdout


def test_run_mcr_oracle_logprob_and_resume(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = ["run", "mcr", "--language", "ko", "--method", "fs-english", "--model", "oracle"]
    args += ["--scoring", "logprob", "--limit", "40", "--out", str(out), "--no-progress"]
    code, _, _ = run_cli([*args, "--data-dir", str(shared_data)], capsys)
    assert code == 0
    first = records(out)
    golds = [i.gold for i in mcr.build_items("ko", "fs-english", data_dir=shared_data)[:40]]
    assert [r["answer"] for r in first] == golds
    assert all(r["method"] == "choice_logprob" and r["choice_logprobs"] for r in first)
    code, _, _ = run_cli(["run", "--resume", str(out), "--data-dir", str(shared_data)], capsys)
    assert code == 0
    again = records(out)
    assert len(again) == 40
    assert [r["answer"] for r in again] == golds


def test_sweep_and_report(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        f"out: {tmp_path / 'sweep'}\n"
        "models: [oracle, first]\n"
        "runs:\n"
        "  - {benchmark: convre, task: [re2text], setting: [1, 9], subset: true}\n"
        "  - {benchmark: mcr, language: [en], method: [zs]}\n",
        encoding="utf-8",
    )
    code, stdout, _ = run_cli(
        ["sweep", str(sweep), "--no-progress", "--data-dir", str(shared_data)], capsys
    )
    assert code == 0
    code, stdout, _ = run_cli(
        ["report", str(tmp_path / "sweep"), "--json", "--compare", "first=gpt-4"], capsys
    )
    assert code == 0
    rows = [json.loads(line) for line in stdout.splitlines()]
    assert len(rows) == 6
    oracle = [r for r in rows if r["model"] == "oracle"]
    assert all(r["accuracy"] == 1.0 for r in oracle)
    first_convre = [r for r in rows if r["model"] == "first" and r["benchmark"] == "convre"]
    assert all(r["paper_model"] == "gpt-4" for r in first_convre)
    assert all(r["delta"] == pytest.approx(r["accuracy"] - r["paper"]) for r in first_convre)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "convre", "--task", "re2text", "--model", "gpt-4"], "openai:MODEL"),
        (["run", "mcr", "--language", "en", "--method", "zs", "--model", "hf:"], "hf:PATH_OR_NAME"),
        (["run", "--resume", "/nonexistent/run"], "/nonexistent/run"),
        (["report", "/nonexistent/runs"], "not a folder"),
        (["run", "mcr", "--language", "en", "--method", "zs", "--scoring", "vibes"], "generate"),
    ],
)
def test_bad_run_input_is_a_clear_error(
    args: list[str], message: str, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(
        [*args, "--data-dir", str(shared_data)] if args[0] == "run" else args, capsys
    )
    assert code == 2
    assert message in " ".join(err.split())
    assert "Traceback" not in err


def test_dry_run_sends_nothing(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "never"
    args = ["run", "convre", "--task", "re2text", "--setting", "9", "--model", "openai:gpt-4o"]
    code, stdout, _ = run_cli(
        [*args, "--dry-run", "--out", str(out), "--data-dir", str(shared_data)], capsys
    )
    assert code == 0
    assert "1240" in stdout
    assert not out.exists()


def test_a_run_folder_can_be_scored_again(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    data = ["--data-dir", str(shared_data)]
    args = ["run", "mcr", "--language", "fr", "--method", "zs", "--model", "random:2"]
    assert (
        run_cli([*args, "--limit", "30", "--out", str(out), "--no-progress", *data], capsys)[0] == 0
    )
    rescored = tmp_path / "rescored.jsonl"
    args = ["score", "mcr", "--language", "fr", "--method", "zs", "--mode", "paper"]
    args += ["--responses", str(out / "records.jsonl"), "--out", str(rescored), *data]
    assert run_cli(args, capsys)[0] == 0
    again = [json.loads(line) for line in rescored.read_text().splitlines()]
    assert [r["answer"] for r in again] == [r["answer"] for r in records(out)]


def test_sweep_dry_run_counts_every_request_and_runs_nothing(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sweep"
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        f"out: {out}\n"
        "models: [random, 'openai:gpt-4o']\n"
        "runs:\n"
        "  - {benchmark: convre, task: [text2re], setting: [2, 11], subset: true}\n"
        "  - {benchmark: mcr, language: [ja], method: [zsc]}\n",
        encoding="utf-8",
    )
    args = ["sweep", str(sweep), "--dry-run", "--data-dir", str(shared_data)]
    code, stdout, _ = run_cli(args, capsys)
    assert code == 0
    n_mcr = len(mcr.build_items("ja", "zsc", data_dir=shared_data))
    # two ConvRe runs of 328 items and one MCR zero-shot-CoT run (two requests an item), per model
    expected = 2 * (2 * 328 + 2 * n_mcr)
    assert f"total: {expected} requests" in stdout
    # each setting's own generation length: 32 tokens for a letter, 256 for chain of thought
    assert f"<= {328 * 32} output tokens" in stdout  # setting 2
    assert f"<= {328 * 256} output tokens" in stdout  # setting 11 (CoT)
    assert not out.exists()
