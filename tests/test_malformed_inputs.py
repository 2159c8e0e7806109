"""Malformed inputs end in one clear message (exit 2), never a traceback: damaged manifests,
records and summaries, huge or deeply nested JSON, foreign record indices, YAML alias bombs and
duplicate keys. JSON lines are split on "\\n" only, so outputs holding U+2028/U+2029/U+0085
score again as they are."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from clihelp import run_cli, tiny_args, tiny_registered
from relreason.errors import DataError
from relreason.run.sweep import load_sweep
from test_tiny_benchmark import Tiny


@pytest.fixture()
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Tiny]:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    yield from tiny_registered()


@pytest.fixture()
def run_folder(tiny: Tiny, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "base"
    assert run_cli(tiny_args(out, 4, "--model", "oracle"), capsys)[0] == 0
    return out


def edit_manifest(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        data = json.loads((folder / "manifest.json").read_text())
        change(data)
        (folder / "manifest.json").write_text(json.dumps(data))

    return apply


def write(name: str, text: str) -> Callable[[Path], None]:
    return lambda folder: (folder / name).write_text(text)


CASES: dict[str, Callable[[Path], None]] = {
    "option of the wrong type": edit_manifest(lambda d: d["options"].update(concurrency="x")),
    "parameter of the wrong type": edit_manifest(
        lambda d: d["options"]["params"].update(max_new_tokens="x")
    ),
    "model options not a mapping": edit_manifest(lambda d: d["model"].update(options=[1])),
    "options not a mapping": edit_manifest(lambda d: d.update(options=[1])),
    "sessions of junk": edit_manifest(lambda d: d.update(sessions=[1])),
    "manifest a list": write("manifest.json", "[1, 2]"),
    "manifest nested deeply": write("manifest.json", "[" * 100_000 + "]" * 100_000),
    "manifest not JSON": write("manifest.json", "{oops"),
    "index of 5000 digits": write("records.jsonl", '{"index": ' + "9" * 5000 + "}\n{}\n"),
    "record nested deeply": write("records.jsonl", "[" * 100_000 + "]" * 100_000 + "\n{}\n"),
    "index outside the task": write("records.jsonl", '{"index": 77, "status": "correct"}\n'),
    "negative index": write("records.jsonl", '{"index": -1, "status": "correct"}\n'),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_damaged_run_folder_is_one_clear_message(
    case: str, run_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "case"
    shutil.copytree(run_folder, folder)
    CASES[case](folder)
    code, _, err = run_cli(["run", "--resume", str(folder)], capsys)
    assert code == 2, err
    assert "Traceback" not in err, err
    assert str(folder) in err or "bad run options" in err, err


def test_foreign_indices_are_an_error_not_counted(
    run_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (run_folder / "records.jsonl").open("a") as handle:
        handle.write('{"index": 12, "status": "correct", "correct": true}\n')
    code, _, err = run_cli(["run", "--resume", str(run_folder)], capsys)
    assert code == 2 and "not in task tiny/n4" in err


def test_a_corrupt_summary_under_report_is_one_message(
    run_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (run_folder / "summary.json").write_text("{broken")
    code, _, err = run_cli(["report", str(run_folder.parent)], capsys)
    assert code == 2 and "summary.json" in err and "Traceback" not in err


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085", "\x0c", "\x1c"])
def test_outputs_with_unicode_line_separators_score_again_as_they_are(
    separator: str, tiny: Tiny, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    responses = tmp_path / "responses.jsonl"
    rows = [{"index": i, "output": f"A{separator}because{separator}"} for i in range(4)]
    responses.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    out = tmp_path / "scored.jsonl"
    code, _, err = run_cli(
        ["score", "tiny", "--n", "4", "--responses", str(responses), "--out", str(out)], capsys
    )
    assert code == 0, err
    again = tmp_path / "again.jsonl"
    code, _, err = run_cli(
        ["score", "tiny", "--n", "4", "--responses", str(out), "--out", str(again)], capsys
    )
    assert code == 0, err
    assert [json.loads(x)["output"] for x in again.read_text("utf-8").split("\n") if x] == [
        r["output"] for r in rows
    ]


def test_a_run_folders_own_records_score_again(
    run_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scored.jsonl"
    records = run_folder / "records.jsonl"
    code, _, err = run_cli(
        ["score", "tiny", "--n", "4", "--responses", str(records), "--out", str(out)], capsys
    )
    assert code == 0, err


def test_a_yaml_alias_bomb_is_refused_at_once(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        refs = ", ".join([f"*a{level - 1}"] * 10)
        lines.append(f"a{level}: &a{level} [{refs}]")
    lines += ["out: o", "models: [oracle]", "runs: [{benchmark: convre}]", "bomb: *a8"]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    start = time.monotonic()
    with pytest.raises(DataError, match="aliases are expanded"):
        load_sweep(path)
    assert time.monotonic() - start < 2


def test_duplicate_yaml_keys_are_refused_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text("out: o\nmodels: [oracle]\nruns: [{benchmark: convre}]\nout: p\n")
    with pytest.raises(DataError, match=r"line 4.*duplicate key 'out' \(first on line 1\)"):
        load_sweep(path)
