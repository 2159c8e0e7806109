"""The whole report: --compare validation, partial runs marked, text formats, exports."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from analysis_runs import answers, convre_description, mcr_description, write_run
from relreason.analysis import export_items, format_table
from relreason.errors import UsageError
from relreason.report import build_report


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    write_run(
        tmp_path / "runs",
        "m/s1",
        "openai:gpt-4",
        convre_description("re2text", 1),
        answers("ABAB", "ABAB", relation="hypernym"),
        limit=4,
        n_items=1240,
    )
    write_run(
        tmp_path / "runs",
        "m/mcr",
        "openai:gpt-4",
        mcr_description("en", "zs"),
        answers("ABCD", "ABCA", categories=["Other"], n_options=4),
    )
    return tmp_path / "runs"


def test_unknown_compare_names_list_the_valid_ones(folder: Path) -> None:
    with pytest.raises(UsageError, match=r"unknown paper model 'gpt-5'.*gpt-4"):
        build_report(folder, {"openai:gpt-4": "gpt-5"}, texts=False)
    with pytest.raises(
        UsageError, match=r"unknown model spec 'gpt4' in --compare; the runs hold: openai:gpt-4"
    ):
        build_report(folder, {"gpt4": "gpt-4"}, texts=False)


def test_partial_run_is_marked_beside_the_paper(folder: Path) -> None:
    report = build_report(folder, {"openai:gpt-4": "GPT-4"}, texts=False)
    assert report.compare == {"openai:gpt-4": "GPT-4"}
    # GPT-4 is spelt "gpt-4" in ConvRe's table and "GPT-4" in MCR's: case-insensitive match
    report = build_report(folder, {"openai:gpt-4": "gpt-4"}, texts=False)
    table = next(t for t in report.tables() if t.key == "paper_compare").data.set_index("task")
    assert table.loc["re2text", "paper"] == 0.987  # Table 9, gpt-4, re2text 1#
    assert table.loc["re2text", "partial"]
    assert "PARTIAL (4 items, limit 4)" in table.loc["re2text", "mark"]
    assert table.loc["en", "paper"] == pytest.approx(0.612)  # Table 4, GPT-4, EN, ZS
    assert table.loc["en", "delta"] == pytest.approx(0.75 - 0.612)
    shown = next(t for t in report.tables() if t.key == "convre_table9").shown
    assert shown.iloc[0]["1#"].endswith("*")


def test_every_section_is_a_table_or_a_reason(folder: Path) -> None:
    report = build_report(folder, texts=False)
    titles = [s.title for s in report.sections]
    assert "ConvRe Table 9" in titles and "MCR Table 4" in titles
    for section in report.sections:
        assert (section.table is None) != (section.reason is None)
    reasons = {s.title: s.reason for s in report.sections if s.reason}
    assert "Table 7" in reasons["ConvRe Table 7"]
    assert "not available" in reasons["Reader audit"]


def test_formats(folder: Path) -> None:
    report = build_report(folder, texts=False)
    table = next(t for t in report.tables() if t.key == "mcr_table4")
    markdown = format_table(table, "markdown")
    assert "| openai:gpt-4 | zs | 75.00 |" in markdown
    latex = format_table(table, "latex")
    assert r"\begin{tabular}" in latex and "openai:gpt-4 & zs & 75.00" in latex
    rows = json.loads(format_table(table, "json"))["rows"]
    assert rows[0]["accuracy"] == 0.75
    assert format_table(table, "csv").splitlines()[0].startswith("model,method,language,n")
    with pytest.raises(UsageError, match="markdown, csv, latex, json"):
        format_table(table, "xml")
    assert "not possible" in report.format("markdown")


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_export_items(folder: Path, tmp_path: Path, fmt: str) -> None:
    out = export_items(folder, tmp_path / f"items.{fmt}", format=fmt)
    frame = pd.read_csv(out) if fmt == "csv" else pd.read_parquet(out)
    assert len(frame) == 8
    assert set(frame["model"]) == {"openai:gpt-4"}
    mcr = frame[frame["benchmark"] == "mcr"]
    assert list(mcr["correct"]) == [True, True, True, False]
    assert json.loads(mcr["label_categories"].iloc[0]) == ["Other"]
    with pytest.raises(UsageError, match="csv, parquet"):
        export_items(folder, tmp_path / "x", format="xlsx")


def test_published_tables_beside_ours(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    full = answers("AB", "AB", relation="hypernym")
    write_run(runs, "g/s1", "g4", convre_description("re2text", 1), full)
    write_run(runs, "g/s1-sub", "g4", convre_description("re2text", 1, subset=True), full)
    write_run(runs, "g/s1-neu", "g4", convre_description("re2text", 1, neutral=True), full)
    report = build_report(runs, {"g4": "gpt-4"}, texts=False)
    tables = {t.key: t for t in report.tables()}
    row6 = tables["convre_table6"].data.iloc[0]
    assert (row6["paper_full"], row6["paper_subset"]) == (0.987, 0.997)  # Table 6, re2text 1#
    assert tables["convre_table7"].shown.iloc[0]["paper"] == "0.985 (-0.003)"  # Table 7, gpt-4


def test_published_mcr_tables_beside_ours(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    recs = answers("ABCD", "ABCA", categories=["Other"], n_options=4)
    for model in ("big", "small"):
        write_run(runs, f"{model}/zh-zsc", model, mcr_description("zh", "zsc"), recs)
    for method in ("fs", "fs-english"):
        write_run(runs, f"small/ko-{method}", "small", mcr_description("ko", method), recs)
    report = build_report(runs, {"big": "GPT-4", "small": "ChatGPT"}, texts=False)
    tables = {t.key: t for t in report.tables()}
    agreement = tables["mcr_table5"].data.iloc[0]
    assert agreement["paper (both/only GPT-4/only other/neither %)"] == "34.97/32.77/6.05/26.21"
    shown6 = tables["mcr_table6"].shown.iloc[0]
    assert shown6["paper (fs / multi / en)"] == "31.98 / 31.73 / 29.16"  # Table 6, KO


def test_texts_missing_data_is_one_note(folder: Path, tmp_path: Path) -> None:
    report = build_report(folder, data_dir=tmp_path / "nowhere")
    assert len(report.notes) == 2  # one per reason (the ConvRe and the MCR file are missing)
    assert all(note.startswith("prompts not rebuilt for 1 run(s)") for note in report.notes)
    reasons = {s.title: s.reason for s in report.sections if s.reason}
    assert "questions are not available" in reasons["MCR relations"]


def test_partial_mark_names_the_task_size(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    description = {**mcr_description("en", "zs"), "n_items": 1598}  # as the MCR task records it
    write_run(runs, "a", "m", description, answers("AB", "AB"), limit=2, n_items=2)
    write_run(
        runs,
        "b",
        "m2",
        mcr_description("en", "zs"),
        answers("AB", "A-"),
        n_items=5,
        status="running",
    )
    report = build_report(runs, {"m": "GPT-4", "m2": "ChatGPT"}, texts=False)
    marks = next(t for t in report.tables() if t.key == "paper_compare").data.set_index("model")
    assert marks.loc["m", "mark"].startswith("PARTIAL (2 of 1598 items, limit 2)")
    assert marks.loc["m2", "mark"].startswith("PARTIAL (2 of 5 items, not finished)")
