"""Options are never silently reinterpreted (issue 31, parts 4 and 5): each case is the real
command line in a subprocess. ``--reader official`` without a family it can infer is refused
and says which rule it applied; the export names the reader of each reading; ``--sample`` above
the task's size, a compose file of several languages, a compose sweep entry without a method,
``--resume`` with ``--limit``, chars/4 token estimates and a key given as the model name are
each refused or said."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from relreason.benchmarks.convre.official import FAMILIES
from relreason.generate import ComposeOptions, compose, write_items

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _unwrapped(done: subprocess.CompletedProcess[str]) -> str:
    """stderr with its 80-column line wrapping undone."""
    return " ".join(done.stderr.split())


def relreason(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``python -m relreason ARGS`` (this checkout's sources first) in ``cwd``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "relreason", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )


def _responses(path: Path) -> Path:
    """Outputs as the official repository's models give them: a leading space (llama2,
    gpt-text), ``<pad> ... </s>`` (flan-t5), a bare letter."""
    rows = [{"index": 0, "output": " A"}, {"index": 1, "output": "<pad> B</s>"}]
    rows += [{"index": 2, "output": "A"}, {"index": 3, "output": " B"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_reader_official_on_a_responses_file_needs_the_family(
    tmp_path: Path, shared_data: Path
) -> None:
    responses = _responses(tmp_path / "responses.jsonl")
    args = ["score", "convre", "--task", "re2text", "--responses", responses]
    args += ["--out", tmp_path / "scored.jsonl", "--data-dir", shared_data]
    refused = relreason(*args, "--reader", "official", cwd=tmp_path)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    message = " ".join(refused.stderr.split())
    assert "--family" in message and all(family in message for family in FAMILIES)
    assert not (tmp_path / "scored.jsonl").exists()
    read = relreason(*args, "--reader", "official", "--family", "llama2", cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    assert "reading: answers read by official:llama2 (the family given)" in _unwrapped(read)
    assert "reading audit: official:llama2" in " ".join(read.stdout.split())
    records = [json.loads(line) for line in (tmp_path / "scored.jsonl").read_text().splitlines()]
    assert {r["reader"] for r in records} == {"official:llama2"}
    assert [r["answer"] for r in records] == ["A", None, None, "B"]  # llama2's own rule


def test_run_reader_official_infers_the_family_or_refuses(
    tmp_path: Path, shared_data: Path
) -> None:
    args = ["run", "convre", "--task", "re2text", "--dry-run", "--data-dir", shared_data]
    refused = relreason(*args, "--model", "random", "--reader", "official", cwd=tmp_path)
    assert refused.returncode == 2 and "--family" in refused.stderr
    given = relreason(*args, "--reader", "official", "--family", "qwen", cwd=tmp_path)
    assert given.returncode == 0, given.stderr
    assert "answers read by official:qwen (the family given)" in given.stderr
    inferred = relreason(
        *args, "--model", "openai:gpt-4o", "--reader", "official", "--limit", "2", cwd=tmp_path
    )
    assert inferred.returncode == 0, inferred.stderr
    assert "official:gpt-chat (the family inferred from the model's name)" in _unwrapped(inferred)
    sound = relreason(*args, "--model", "random", "--limit", "2", cwd=tmp_path)
    assert "official:gpt-chat (the model's family is not known" in _unwrapped(sound)


def test_the_export_names_the_reader_of_each_reading(tmp_path: Path, shared_data: Path) -> None:
    out = tmp_path / "runs" / "official"
    ran = relreason(
        "run", "convre", "--task", "re2text", "--model", "random", "--limit", "6",
        "--reader", "official:qwen", "--out", out, "--data-dir", shared_data, "--no-progress",
        cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["description"]["reading"].startswith("answers read by official:qwen")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["extra"]["reading"] == manifest["description"]["reading"]
    exported = relreason("export", tmp_path / "runs", "--out", tmp_path / "items.csv", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    with (tmp_path / "items.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 6
    for row in rows:
        assert (row["reader"], row["reader_official"], row["reader_sound"]) == (
            "official:qwen",
            "official:qwen",
            "sound",
        )
        assert (row["answer_official"], row["status_official"]) == (row["answer"], row["status"])


def test_sample_above_the_task_size_says_what_it_runs(tmp_path: Path, shared_data: Path) -> None:
    done = relreason(
        "run", "convre", "--task", "re2text", "--subset", "--model", "random", "--sample",
        "5000", "--dry-run", "--data-dir", shared_data, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "--sample 5000 is more than the 328 items: running all 328" in done.stderr
    assert "328 requests" in done.stdout


@pytest.fixture()
def mixed_file(tmp_path: Path) -> Path:
    """A compose file of English and Japanese questions (the README's example)."""
    en = compose(ComposeOptions(language="en", hops=(2,), n_options=3, seed=1, count=4))
    ja = compose(ComposeOptions(language="ja", hops=(2,), n_options=3, seed=2, count=3))
    return write_items([*en, *ja], tmp_path / "mixed.json")


def test_a_compose_file_of_several_languages_runs_one_language_at_a_time(
    tmp_path: Path, mixed_file: Path
) -> None:
    args = ["run", "compose", "--file", mixed_file, "--model", "random", "--dry-run"]
    refused = relreason(*args, cwd=tmp_path)
    assert refused.returncode == 2
    message = " ".join(refused.stderr.split())
    assert "en (4 questions), ja (3 questions)" in message and "--language" in message
    japanese = relreason(*args, "--language", "ja", cwd=tmp_path)
    assert japanese.returncode == 0, japanese.stderr
    assert "compose/ja/zs on random: 3 requests" in japanese.stdout


def test_a_compose_sweep_entry_without_a_method_names_the_methods(
    tmp_path: Path, mixed_file: Path
) -> None:
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        f"out: {tmp_path / 'out'}\nmodels: [random]\n"
        f"runs:\n  - {{benchmark: compose, file: {mixed_file}, language: [en, ja]}}\n",
        encoding="utf-8",
    )
    done = relreason("sweep", sweep, "--dry-run", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    warned = " ".join(done.stderr.split())
    assert "runs[0] (compose) names no method: it runs each of zs, fs, zsc (3 runs)" in warned
    assert done.stdout.count("dry run: compose/") == 6  # 2 languages x 3 methods, as said


def test_resume_with_a_limit_is_a_clear_refusal(tmp_path: Path, shared_data: Path) -> None:
    out = tmp_path / "run"
    ran = relreason(
        "run", "convre", "--task", "re2text", "--model", "random", "--limit", "3", "--out",
        out, "--data-dir", shared_data, "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    again = relreason("run", "--resume", out, "--limit", "5", cwd=tmp_path)
    assert again.returncode == 2
    assert "No such option" not in again.stderr
    assert "--limit cannot change on resume: the run's selection is fixed" in again.stderr


def test_chars_over_4_estimates_say_they_are_approximate(tmp_path: Path) -> None:
    done = relreason(
        "run", "compose", "--language", "zh", "--model", "anthropic:claude-3-5-haiku",
        "--limit", "5", "--dry-run", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "note: token counts are approximate" in text
    assert "Chinese, Japanese and Korean text is undercounted" in text


def test_a_key_given_as_the_model_name_is_never_shown_or_written(
    tmp_path: Path, shared_data: Path
) -> None:
    key = "sk-proj-" + "x7" * 12
    for extra in (["--dry-run"], ["--out", str(tmp_path / "run")]):
        done = relreason(
            "run", "convre", "--task", "re2text", "--model", f"openai:{key}", "--limit", "1",
            "--base-url", "http://127.0.0.1:9/v1", "--data-dir", shared_data, *extra,
            cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 2, done.stdout + done.stderr
        assert key not in done.stdout + done.stderr
        assert "looks like an API key" in done.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert all(key not in p.read_text(errors="replace") for p in written)
    assert all(key not in str(p) for p in tmp_path.rglob("*"))
