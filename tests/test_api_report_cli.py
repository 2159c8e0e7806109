"""The notebook API (relreason.evaluate, relreason.load_runs) and the report/export commands."""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path

import pytest

import relreason
from relreason.cli import main


def cli(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as done:
        return int(done.code or 0)
    return 0


def test_evaluate_returns_a_result_with_a_frame(shared_data: Path, tmp_path: Path) -> None:
    result = relreason.evaluate(
        "convre",
        "oracle",
        task="re2text",
        setting=3,
        subset=True,
        limit=7,
        data_dir=shared_data,
        out=tmp_path / "run",
        use_cache=False,
    )
    assert result.accuracy == 1.0 and result.summary.n == 7
    frame = result.to_pandas()
    assert list(frame["index"]) == list(range(7)) and set(frame["status"]) == {"correct"}
    assert "label_relation" in frame.columns


def test_evaluate_inside_a_running_event_loop(shared_data: Path, tmp_path: Path) -> None:
    """Jupyter runs cells inside an event loop; evaluate must still work there."""

    async def cell() -> float:
        result = relreason.evaluate(
            "mcr",
            "first",
            language="en",
            method="zs",
            limit=5,
            data_dir=shared_data,
            out=tmp_path / "nb",
            use_cache=False,
        )
        return result.accuracy

    accuracy = asyncio.run(cell())
    runs = relreason.load_runs(tmp_path)
    assert len(runs.runs) == 1 and len(runs.items) == 5
    assert accuracy == runs.items["correct"].mean()


def test_evaluate_rejects_unknown_options() -> None:
    with pytest.raises(relreason.errors.UsageError, match="colour"):
        relreason.evaluate("convre", "oracle", task="re2text", colour="red")


def test_report_formats_html_export(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        f"out: {tmp_path / 'runs'}\nmodels: [first, oracle]\n"
        "runs:\n  - {benchmark: convre, task: re2text, setting: [1, 3], subset: true}\n"
        "options: {limit: 12, use_cache: false}\n"
    )
    assert cli(["sweep", str(sweep), "--no-progress", "--data-dir", str(shared_data)]) == 0
    capsys.readouterr()
    assert cli(["report", str(tmp_path / "runs"), "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    assert "|" in text and "oracle" in text
    page = tmp_path / "report.html"
    assert (
        cli(["report", str(tmp_path / "runs"), "--html", str(page), "--data-dir", str(shared_data)])
        == 0
    )
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") or html.lower().startswith("<!doctype html>")
    assert "<svg" in html and "http://" not in html.split("<body", 1)[0].replace(
        "http://www.w3.org", ""
    )
    capsys.readouterr()
    assert cli(["report", str(tmp_path / "runs"), "--compare", "first=gpt-5"]) == 2
    assert "gpt-4" in capsys.readouterr().err
    out = tmp_path / "items.csv"
    assert cli(["export", str(tmp_path / "runs"), "--out", str(out)]) == 0
    with out.open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4 * 12
