"""The HTML report's figures are SVG written directly (``analysis/svg.py``): for any lines or grid
the text is well-formed XML no wider than a printed page, with every series in the legend (one
``<g class="legend">``), every row and column label, the axis labels and the colour bar's label;
a cell's value is written only where it fits. A report's HTML page imports no matplotlib
(``--figures`` writes the same SVG, and PDF and PNG painted by matplotlib: test_report_tables)."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from analysis_runs import answers, mcr_description, write_run
from relreason.analysis.figures import Grid, Lines, Series, line_style
from relreason.analysis.svg import to_svg
from test_startup_imports import heavy_after

NS = "{http://www.w3.org/2000/svg}"
LABEL = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Cn")), min_size=1, max_size=16
)
VALUE = st.one_of(st.floats(0, 1), st.just(math.nan))


def _parsed(svg: str) -> tuple[ET.Element, list[str]]:
    root = ET.fromstring(svg)
    assert float(root.get("width", "").removesuffix("pt")) <= 7 * 72
    assert root.get("viewBox", "").split()[2:] == [
        v.removesuffix("pt") for v in (root.get("width", ""), root.get("height", ""))
    ]
    return root, [t.text or "" for t in root.iter(f"{NS}text")]


@given(
    st.lists(st.lists(LABEL, min_size=1, max_size=30, unique=True), min_size=1, max_size=3),
    st.lists(st.floats(-5, 50), min_size=1, max_size=12, unique=True),
    st.booleans(),
)
def test_lines_show_every_series_and_both_axes(
    panels: list[list[str]], xs: list[float], intervals: bool
) -> None:
    def line(number: int, label: str) -> Series:
        ys = [(number + k) % 7 / 6 for k in range(len(xs))]
        lo, hi = [max(y - 0.1, 0) for y in ys], [min(y + 0.1, 1) for y in ys]
        if not intervals:
            return Series(label, xs, ys, **line_style(number))
        return Series(label, xs, ys, **line_style(number), lo=lo, hi=hi)

    drawn = [[line(k, label) for k, label in enumerate(labels)] for labels in panels]
    chart = Lines(
        [(f"task {n}", lines) for n, lines in enumerate(drawn)], "x axis", "accuracy",
        [(x, f"{x:g}") for x in sorted(xs)], 3.4, "hue", chance=True,
    )  # fmt: skip
    root, texts = _parsed(to_svg(chart))
    legends = [g for g in root.iter(f"{NS}g") if g.get("class") == "legend"]
    assert len(legends) == 1
    shown = [t.text for t in legends[0].iter(f"{NS}text")]
    assert set(shown) == {"hue", "chance (0.5)", *(label for labels in panels for label in labels)}
    assert {"x axis", "accuracy", *(f"task {n}" for n in range(len(panels)))} <= set(texts)
    assert f"{min(xs):g}" in texts  # the first tick is always labelled


@given(st.integers(1, 20), st.integers(1, 14), st.data())
def test_a_grid_shows_every_label_and_fits_its_values(
    rows: int, columns: int, data: st.DataObject
) -> None:
    values = data.draw(
        st.lists(st.lists(VALUE, min_size=columns, max_size=columns), min_size=rows, max_size=rows)
    )
    names = [f"model {n}" for n in range(rows)]
    chart = Grid(
        [("re2text", values)], names, [f"c{n}" for n in range(columns)], "setting", "model",
        "accuracy", ".2f", rotate=True,
    )  # fmt: skip
    root, texts = _parsed(to_svg(chart))
    assert {*names, *chart.columns, "setting", "model", "accuracy", "re2text"} <= set(texts)
    cells = sum(not math.isnan(v) for row in values for v in row)
    filled = [p for p in root.iter(f"{NS}path") if p.get("fill") != "none"]
    assert len(filled) == cells + 40  # and the colour bar's 40 bands
    width = float(root.get("width", "").removesuffix("pt"))
    room = (width - 22 - 0.62 * 8 * max(map(len, names)) - 64) / columns  # a cell's width
    written = [t for t in texts if len(t) == 4 and t[1] == "."]
    assert len(written) == (cells if room > 0.62 * 8 * 4 + 2 else 0)


def test_the_html_report_imports_no_matplotlib(tmp_path: Path) -> None:
    for model in ("gpt-4", "gpt-3.5"):
        write_run(
            tmp_path / "runs", model, f"openai:{model}", mcr_description("en", "zs"),
            answers("ABCD", "ABCA", categories=["Other"], n_options=4),
        )  # fmt: skip
    code = (
        "import sys\nfrom relreason.report import render_html\n"
        "render_html(sys.argv[1], sys.argv[2], texts=False)\n"
        "assert '<svg' in open(sys.argv[2], encoding='utf-8').read()\n"
    )
    show = "print('HEAVY', sorted(m for m in sys.modules if m.startswith('matplotlib')))"
    assert heavy_after(code, str(tmp_path / "runs"), str(tmp_path / "page.html"), show=show) == []
