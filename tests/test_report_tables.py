"""The report's tables as a paper and a notebook use them: csv that pandas reads, booktabs LaTeX,
clean numbers, the runs table first, one run per cell (said which and why), set-ups told apart,
compose and option-order sections from real runs (the bundled baselines), full exports."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

import relreason
from analysis_runs import answers, convre_description, mcr_description, record, write_run
from relreason.analysis import export_items, load_runs
from relreason.analysis.table import cell_text, number_text, p_text
from relreason.cli import main
from relreason.report import build_report


def cli(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as done:
        return int(done.code or 0)
    return 0


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real runs of the bundled baselines: compose (first, oracle), a permuted compose run, and
    ConvRe on the shared data when it is there."""
    root = tmp_path_factory.mktemp("real")
    for model in ("first", "oracle"):
        relreason.evaluate(
            "compose", model, language="en", method="zs", limit=40, use_cache=False,
            out=root / model / "compose-en-zs",
        )  # fmt: skip
    relreason.evaluate(
        "compose", "first", language="en", method="zs", limit=6, permute="cyclic",
        use_cache=False, out=root / "first" / "compose-en-zs-permute",
    )  # fmt: skip
    return root


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6))
def test_numbers_never_read_minus_zero(value: float) -> None:
    text = number_text(value)
    assert not text.startswith("-0.000") or float(text) != 0
    assert math.isclose(float(text), value, abs_tol=0.0005 + 1e-9 * abs(value))
    signed = number_text(value, signed=True)
    assert signed[0] in "+-" and signed != "-0.000"


@given(st.floats(min_value=0, max_value=1))
def test_p_values_as_papers_write_them(p: float) -> None:
    text = p_text(p)
    assert text == "<0.001" if p < 0.001 else float(text) == pytest.approx(p, abs=0.0005)


def test_cells_flags_and_missing() -> None:
    assert cell_text(True) == "yes" and cell_text(False) == "no"
    assert cell_text(float("nan")) == "-" and cell_text(None) == "-"
    assert cell_text(-0.0001) == "0.000"
    assert cell_text(0.0002, column="p_mcnemar") == "<0.001"
    assert cell_text(0.0002, column="share") == "0.000"


def test_compose_run_shows_accuracy_and_its_section(real_runs: Path) -> None:
    report = build_report(real_runs, texts=False)
    assert report.sections[0].title == "Runs"
    runs = report.sections[0].table
    assert runs is not None
    by_run = runs.data.set_index("run_id")
    items = load_runs(real_runs).items
    for run_id, row in by_run.iterrows():
        mine = items[items["run_id"] == run_id]
        assert row["n"] == len(mine)
        assert row["accuracy"] == pytest.approx(mine["correct"].mean())
    assert by_run.loc["oracle/compose-en-zs", "accuracy"] == 1.0
    assert "permute" in runs.display.columns  # the permuted run is told apart
    compose = next(t for t in report.tables() if t.key == "compose_breakdown")
    assert {"domain", "hops", "n_options"} <= set(compose.data["by"])
    first = compose.data[compose.data["run_id"] == "first/compose-en-zs"]
    # the first-option baseline computed from the gold positions equals the first model's score
    assert list(first["accuracy"]) == pytest.approx(list(first["first_option"]))


def test_permutation_sections(real_runs: Path) -> None:
    report = build_report(real_runs, texts=False)
    tables = {t.key: t for t in report.tables()}
    orders = tables["permute_orders"].data
    assert set(orders["run"]) == {"first/compose-en-zs-permute"}
    assert len(orders) == orders["order"].nunique() >= 3  # cyclic: one row per rotation
    # "first" always answers A: right exactly where the gold is in first position
    items = load_runs(real_runs).items
    permuted = items[items["run_id"] == "first/compose-en-zs-permute"]
    for row in orders.itertuples():
        mine = permuted[permuted["label_order"] == row.order]
        assert row.accuracy == pytest.approx((mine["gold"] == "A").mean(), abs=1e-4)
    positions = tables["permute_positions"].data
    assert positions.set_index("position").loc[1, "chosen"] == 1.0


def test_csv_is_tidy_and_loads(real_runs: Path, tmp_path: Path, capsys) -> None:
    assert cli(["report", str(real_runs), "--format", "csv"]) == 0
    long = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert long.columns[0] == "table" and "runs" in set(long["table"])
    assert cli(["report", str(real_runs), "--format", "csv", "--out", str(tmp_path / "t")]) == 0
    index = pd.read_csv(tmp_path / "t" / "index.csv")
    made = index[index["file"].notna()]
    for row in made.itertuples():
        frame = pd.read_csv(tmp_path / "t" / row.file)
        assert len(frame) == row.rows
    assert "no run was made" not in " ".join(index["reason"].dropna())  # permuted run present
    assert "no ConvRe run" in " ".join(index["reason"].dropna())
    assert not list((tmp_path / "t").glob(".*"))  # no temporary files left


def test_markdown_and_latex_hold_every_terminal_table(real_runs: Path, capsys) -> None:
    report = build_report(real_runs, texts=False)
    titles = [t.title for t in report.tables()]
    latex = report.format("latex")
    markdown = report.format("markdown")
    assert markdown.index("### Runs: accuracy per run") < markdown.index("### Compose")
    assert latex.count(r"\toprule") == len(titles) == latex.count(r"\bottomrule")
    assert r"\hline" not in latex
    head = latex.split(r"\begin{tabular}{", 1)[1].split("}", 1)[0]
    columns = list(report.tables()[0].display.columns)
    assert head[columns.index("accuracy")] == "r" and head[columns.index("model")] == "l"
    out = io.StringIO()
    report.print(Console(file=out, width=80))  # not a terminal: tables keep their width
    text = out.getvalue()
    for title in titles:
        assert title in text
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) > 80


def test_a_narrow_terminal_gets_one_row_per_block(real_runs: Path) -> None:
    out = io.StringIO()
    build_report(real_runs, texts=False).print(
        Console(file=out, width=60, force_terminal=True, color_system=None)
    )
    text = out.getvalue()
    assert "-- row 1" in text and "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 60


def test_one_run_per_cell_said_which_and_why(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    full = answers("ABAB" * 10, "ABAB" * 10, relation="hypernym")
    failed = [record(i, "A", None, status="failed") for i in range(2)]
    write_run(runs, "m/s1-small", "m", convre_description("re2text", 1), failed, limit=2)
    write_run(runs, "m/s1", "m", convre_description("re2text", 1), full)
    write_run(runs, "n/s1", "n", convre_description("re2text", 1), full)
    report = build_report(runs, texts=False)
    table9 = next(t for t in report.tables() if t.key == "convre_table9")
    assert set(table9.data["run_id"]) == {"m/s1", "n/s1"}
    assert "shown m/s1 (40 items, 0 failed: most items, then fewest failures)" in table9.note
    assert "m/s1-small (2 items, 2 failed)" in table9.note
    shown = report.sections[0].table
    assert shown is not None
    empty = shown.display.set_index("run").loc["m/s1-small"]
    assert empty["accuracy"] == "-" and empty["95% CI"] == "-"  # nothing answered: not nan


def test_agreement_never_pairs_a_model_with_itself(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    recs = answers("ABCD" * 5, "ABCA" * 5, categories=["Other"], n_options=4)
    write_run(runs, "a/en-zs", "a", mcr_description("en", "zs"), recs)
    write_run(runs, "a/en-zs-again", "a", mcr_description("en", "zs"), recs[:8], limit=8)
    write_run(runs, "b/en-zs", "b", mcr_description("en", "zs"), answers("ABCD" * 5, "AAAA" * 5))
    table5 = next(t for t in build_report(runs, texts=False).tables() if t.key == "mcr_table5")
    assert list(zip(table5.data["model_a"], table5.data["model_b"], strict=True)) == [("a", "b")]
    assert "a/en-zs-again" in table5.note


def test_set_ups_of_one_model_are_told_apart(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    recs = answers("AB", "AB", relation="hypernym")
    for name, api in (("chat", "chat"), ("completions", "completions")):
        folder = write_run(runs, name, "openai:x", convre_description("re2text", 1), recs)
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["model"]["options"] = {"api": api}
        (folder / "manifest.json").write_text(json.dumps(manifest))
    loaded = load_runs(runs)
    assert sorted(loaded.runs["model"]) == ["openai:x [chat API]", "openai:x [completions API]"]
    table9 = next(t for t in build_report(runs, texts=False).tables() if t.key == "convre_table9")
    assert len(table9.display) == 2


def test_a_running_run_shows_its_items_done(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    recs = answers("ABC", "ABA", categories=["Other"], n_options=3)
    write_run(runs, "m", "m", mcr_description("en", "zs"), recs, n_items=10, status="running")
    row = build_report(runs, texts=False).sections[0].table.display.iloc[0]  # type: ignore[union-attr]
    assert (row["n"], row["status"]) == ("3 of 10", "running")


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_export_has_usage_latency_logprobs(tmp_path: Path, fmt: str) -> None:
    runs = tmp_path / "runs"
    recs = answers("AB", "AB", relation="hypernym")
    recs[0].update(
        usage={"prompt_tokens": 31, "completion_tokens": 2},
        latency_s=0.25,
        attempts=2,
        choice_logprobs={"A": -0.1, "B": None},
        sent_as=[{"role": "user", "content": "hi"}],
        served_model="x-2026",
    )
    write_run(runs, "m/s1", "m", convre_description("re2text", 1), recs)
    out = export_items(runs, tmp_path / f"items.{fmt}", format=fmt)
    frame = pd.read_csv(out) if fmt == "csv" else pd.read_parquet(out)
    first = frame.set_index("index").loc[0]
    assert (first["prompt_tokens"], first["completion_tokens"], first["attempts"]) == (31, 2, 2)
    assert first["latency_s"] == 0.25 and first["served_model"] == "x-2026"
    assert json.loads(first["choice_logprobs"]) == {"A": -0.1, "B": None}
    assert json.loads(first["sent_as"])[0]["role"] == "user"


def test_figures_written_for_a_paper(real_runs: Path, tmp_path: Path) -> None:
    assert cli(["report", str(real_runs), "--figures", str(tmp_path / "f")]) == 0
    written = sorted(p.name for p in (tmp_path / "f").iterdir())
    assert "compose_breakdown.pdf" in written and "permute_positions.png" in written
    for path in (tmp_path / "f").iterdir():
        head = path.read_bytes()[:8]
        assert head.startswith({".pdf": b"%PDF", ".png": b"\x89PNG", ".svg": b"<?xml"}[path.suffix])


def test_unchanged_runs_come_from_the_cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    runs = tmp_path / "runs"
    done = write_run(runs, "m/s1", "m", convre_description("re2text", 1), answers("AB", "AB"))
    write_run(
        runs, "m/s3", "m", convre_description("re2text", 3), answers("AB", "BB"), status="running"
    )
    fresh = load_runs(runs, cache=False)
    first, again = load_runs(runs), load_runs(runs)
    for loaded in (first, again):
        pd.testing.assert_frame_equal(loaded.items, fresh.items)
        pd.testing.assert_frame_equal(loaded.runs, fresh.runs)
    kept = list((tmp_path / "cache" / "report").iterdir())
    assert len(kept) == 1  # the running run is not kept
    with (done / "records.jsonl").open("a") as handle:  # the run changes: read again
        handle.write(json.dumps(record(2, "A", "B")) + "\n")
    changed = load_runs(runs)
    assert len(changed.items_of("m/s1")) == 3
    kept[0].write_bytes(b"not marshal")  # a broken entry is read again, not an error
    assert len(load_runs(runs).items_of("m/s1")) == 3


def test_sweep_rows_tell_neutral_runs_and_count_running_ones(tmp_path: Path) -> None:
    from relreason.run.runs_table import collect, format_rows

    runs = tmp_path / "runs"
    recs = answers("AB", "AB", relation="hypernym")
    write_run(runs, "m/s1", "m", convre_description("re2text", 1), recs)
    write_run(runs, "m/s1-neu", "m", convre_description("re2text", 1, neutral=True), recs)
    write_run(runs, "m/s3", "m", convre_description("re2text", 3), recs[:1], status="running")
    rows = collect(runs)
    assert [r["n"] for r in rows] == [2, 2, 1]  # no summary: the records are counted
    lines = format_rows(rows).splitlines()
    assert lines[0].split()[4] == "neutral" and "paper" not in lines[0]
    assert [line.split()[4] for line in lines[1:]] == ["no", "yes", "no"]


def test_out_writes_whole_files_or_refuses(real_runs: Path, tmp_path: Path, capsys) -> None:
    tex = tmp_path / "report.tex"
    assert cli(["report", str(real_runs), "--format", "latex", "--out", str(tex)]) == 0
    assert tex.read_text().count(r"\begin{table}") >= 3
    assert cli(["report", str(real_runs), "--out", str(tmp_path / "x")]) == 2  # no --format
    assert "--out needs --format" in capsys.readouterr().err
    assert cli(["report", str(real_runs), "--format", "csv", "--out", str(tex)]) == 2
    assert "csv writes a folder" in capsys.readouterr().err
    assert cli(["report", str(real_runs), "--format", "markdown", "--out", str(tmp_path)]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.tex"]  # nothing half-written
