"""A figure is drawn once per distinct input: the HTML page and ``--figures`` share one drawing,
and a second report over unchanged runs takes every figure's SVG from the report's figure cache
(drawing nothing); changed data or papers' figures draw again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from analysis_runs import answers, mcr_description, write_run
from relreason.analysis.figure_cache import figure_key
from relreason.report import build_report, render_html


@pytest.fixture()
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    for model in ("openai:gpt-4", "openai:gpt-3.5"):
        write_run(
            tmp_path / "runs", model.split(":")[1], model, mcr_description("en", "zs"),
            answers("ABCD", "ABCA", categories=["Other"], n_options=4),
        )  # fmt: skip
    return tmp_path / "runs"


def _refuse() -> None:
    raise AssertionError("drawn again")


def test_a_second_report_draws_nothing(runs: Path, tmp_path: Path) -> None:
    first = build_report(runs, texts=False)
    drawn = {t.key: t.figure_svg() for t in first.tables() if t.plot is not None}
    assert any(drawn.values())
    assert list((tmp_path / "cache" / "report-figures").glob("*.svg"))
    second = build_report(runs, texts=False)
    for table in second.tables():
        if table.plot is not None:
            table.plot = _refuse  # type: ignore[assignment]
            assert table.figure_svg() == drawn[table.key]
    render_html(second, tmp_path / "again.html")


def test_html_and_figure_files_share_one_drawing(runs: Path, tmp_path: Path) -> None:
    report = build_report(runs, texts=False)
    calls: list[str] = []
    for table in report.tables():
        if table.plot is not None:
            plot = table.plot
            table.plot = lambda plot=plot, key=table.key: calls.append(key) or plot()  # type: ignore[misc]
            table.plot_key = None  # no cache: each draw would show
    render_html(report, tmp_path / "page.html")
    report.write_figures(tmp_path / "figures")
    assert calls and len(calls) == len(set(calls))


def test_the_key_changes_with_the_data_and_the_closed_over_values() -> None:
    data = pd.DataFrame({"model": ["a"], "accuracy": [0.5]})

    def drawing(paper: object) -> Callable[[pd.DataFrame], object]:
        return lambda d: (d, paper)

    paper = pd.DataFrame({"model": ["gpt-4"], "accuracy": [0.9]})
    key = figure_key(drawing(paper), data)
    assert key is not None and key == figure_key(drawing(paper.copy()), data.copy())
    assert key != figure_key(drawing(paper), data.assign(accuracy=[0.6]))
    assert key != figure_key(drawing(paper.assign(accuracy=[0.8])), data)
    assert figure_key(drawing(object()), data) is None  # a value it cannot write: no key
    assert key != figure_key(lambda d: (paper, d), data), "another drawing, another key"
