"""Both readings in every record, and the audit of the two in the summary (issue 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relreason.benchmarks import get
from relreason.cli import main


def cli(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as done:
        return int(done.code or 0)
    return 0


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_convre_score_reads_every_output_twice(shared_data: Path, tmp_path: Path) -> None:
    responses = tmp_path / "responses.jsonl"
    # index 0 of re2text setting 1 has gold A (see test_convre_prompts); 'It's A.' is a plain
    # answer a careful person reads as A, which the official gpt-chat rule does not accept
    outputs = ["It's A.", "A", "B", "The answer is B or A"]
    responses.write_text(
        "".join(json.dumps({"index": i, "output": o}) + "\n" for i, o in enumerate(outputs))
    )
    out = tmp_path / "scored.jsonl"
    assert (
        cli(
            [
                "score",
                "convre",
                "--task",
                "re2text",
                "--setting",
                "1",
                "--data-dir",
                str(shared_data),
                "--responses",
                str(responses),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    rows = records(out)
    assert [r["reader"] for r in rows] == ["sound"] * 4
    assert [r["alt"]["reader"] for r in rows] == ["official:gpt-chat"] * 4
    assert [r["answer"] for r in rows] == ["A", "A", "B", None]
    assert [r["alt"]["answer"] for r in rows] == [None, "A", "B", None]

    official = tmp_path / "official.jsonl"
    assert (
        cli(
            [
                "score",
                "convre",
                "--task",
                "re2text",
                "--setting",
                "1",
                "--data-dir",
                str(shared_data),
                "--responses",
                str(responses),
                "--out",
                str(official),
                "--reader",
                "official:claude",
            ]
        )
        == 0
    )
    rows = records(official)
    assert rows[1]["reader"] == "official:claude" and rows[1]["alt"]["reader"] == "sound"
    assert rows[1]["answer"] is None and rows[1]["alt"]["answer"] == "A"  # claude's rule wants ' A'


def test_run_summary_holds_the_reading_audit(shared_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert (
        cli(
            [
                "run",
                "mcr",
                "--language",
                "en",
                "--method",
                "zs",
                "--model",
                "first",
                "--limit",
                "30",
                "--out",
                str(out),
                "--no-progress",
                "--no-cache",
                "--data-dir",
                str(shared_data),
            ]
        )
        == 0
    )
    summary = json.loads((out / "summary.json").read_text())
    audit = summary["extra"]["reading_audit"]
    rows = records(out / "records.jsonl")
    assert audit["reader"] == "robust" and audit["alt_reader"] == "paper"
    assert audit["accuracy"] == sum(r["correct"] for r in rows) / 30
    assert audit["alt_accuracy"] == sum(r["alt"]["correct"] for r in rows) / 30
    assert audit["answers_differ"] == sum(r["answer"] != r["alt"]["answer"] for r in rows)


@pytest.mark.parametrize(
    ("spec", "api", "family"),
    [
        ("anthropic:claude-3-5-haiku", "chat", "claude"),
        ("hf:google/flan-t5-xl", "chat", "flan-t5"),
        ("openai:gpt-4o", "completions", "gpt-text"),
        ("random", "chat", None),
    ],
)
def test_official_family_follows_the_model(spec: str, api: str, family: str | None) -> None:
    convre = get("convre")
    params = convre.for_model(convre.params(task="re2text"), spec, api)
    assert params.family == family


@pytest.mark.server
def test_cleanup_model_completes_the_paper_reading(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the paper's rule finds no letter or several, --cleanup-model asks a second model
    the official clean-up question and reads its reply (a real local OpenAI-compatible server,
    which answers a letter chosen from the prompt; no faults)."""
    from servers.fault_server import FaultServer

    responses = tmp_path / "responses.jsonl"
    outputs = ["C", "no idea", "Between B and C, I pick B", "D"]
    responses.write_text(
        "".join(json.dumps({"index": i, "output": o}) + "\n" for i, o in enumerate(outputs))
    )
    plain, cleaned = tmp_path / "plain.jsonl", tmp_path / "cleaned.jsonl"
    base = [
        "score",
        "mcr",
        "--language",
        "en",
        "--method",
        "zs",
        "--mode",
        "paper",
        "--data-dir",
        str(shared_data),
        "--responses",
        str(responses),
    ]
    assert cli([*base, "--out", str(plain)]) == 0
    assert [r["method"] for r in records(plain)] == [
        "paper_rule",
        "paper_rule_cleanup",
        "paper_rule_cleanup",
        "paper_rule",
    ]
    with FaultServer(fault_rate=0.0) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-cleanup-000000")
        assert cli([*base, "--out", str(cleaned), "--cleanup-model", "openai:fake"]) == 0
        asked = sum(server.counts.values())
    rows = records(cleaned)
    assert asked == 2
    assert [r["method"] for r in rows] == [
        "paper_rule",
        "paper_rule_cleaned",
        "paper_rule_cleaned",
        "paper_rule",
    ]
    assert all(r["answer"] in ("A", "B") for r in rows[1:3])
    assert rows[0] == records(plain)[0]


@pytest.mark.model
@pytest.mark.server
def test_cleanup_model_completes_the_paper_reading_during_a_run(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run --cleanup-model``: the real SmolLM2 answers MCR questions, the paper's rule leaves
    some open, and the follow-up model (a real local OpenAI-compatible server) is asked about
    exactly those; the other records are the plain run's, and the file stays sorted."""
    from servers.fault_server import FaultServer

    base = ["run", "mcr", "--language", "en", "--method", "zs", "--mode", "paper"]
    base += ["--limit", "6", "--no-cache", "--data-dir", str(shared_data)]
    plain, cleaned = tmp_path / "plain", tmp_path / "cleaned"
    assert cli([*base, "--out", str(plain)]) == 0
    before = records(plain / "records.jsonl")
    open_ = [r["index"] for r in before if r["method"] == "paper_rule_cleanup"]
    assert open_, "SmolLM2 left no reading open: the test would check nothing"
    with FaultServer(fault_rate=0.0) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-cleanup-000000")
        assert cli([*base, "--out", str(cleaned), "--cleanup-model", "openai:fake"]) == 0
        asked = sum(server.counts.values())
    after = records(cleaned / "records.jsonl")
    assert asked == len(open_)
    assert [r["index"] for r in after] == sorted(r["index"] for r in after)
    for old, new in zip(before, after, strict=True):
        if old["index"] in open_:
            assert new["method"] == "paper_rule_cleaned" and new["answer"] is not None
        else:
            assert (new["answer"], new["method"]) == (old["answer"], old["method"])
