"""The analyses' figures, as data: each function turns a table's data into :class:`Lines` (line
charts, one panel per task) or a :class:`Grid` (cells coloured 0 to 1), or None when there is
nothing to draw (a tiny, empty or all-failed run). :mod:`relreason.analysis.svg` writes them as
the HTML report's inline SVG (no matplotlib); :mod:`relreason.analysis.figure_files` writes the
same figures as SVG, PDF and PNG files for a paper (``report --figures DIR``). Made to be read at
1400 px and in print: at most 6.8 inches wide, no text under 8 pt, labelled axes, legends beside
the plots."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

WIDTH = 6.8
"""The widest figure, in inches (a two-column page's text width is 7)."""
FONT = 8.0
"""The smallest font, in points."""
# fmt: off
TAB10 = ["1f77b4", "ff7f0e", "2ca02c", "d62728", "9467bd", "8c564b", "e377c2", "7f7f7f",
         "bcbd22", "17becf"]
TAB20B = ["393b79", "5254a3", "6b6ecf", "9c9ede", "637939", "8ca252", "b5cf6b", "cedb9c",
          "8c6d31", "bd9e39", "e7ba52", "e7cb94", "843c39", "ad494a", "d6616b", "e7969c",
          "7b4173", "a55194", "ce6dbd", "de9ed6"]
# fmt: on
"""matplotlib's ``tab10`` and ``tab20b`` colours (hex, without the #)."""


@dataclass(frozen=True)
class Series:
    """One line: its points, each point's interval when ``lo`` and ``hi`` are given, its look
    (``dash`` and ``marker`` as matplotlib names them: ``-``, ``--``, ``:``, ``-.``; ``o``,
    ``s``, ``^``, ``D``, ``x``, ``+``)."""

    label: str
    x: list[float]
    y: list[float]
    colour: str
    dash: str = "-"
    marker: str = "o"
    width: float = 1.5
    lo: list[float] | None = None
    hi: list[float] | None = None


@dataclass(frozen=True)
class Lines:
    """Panels of lines (title, lines) stacked, sharing the x axis (ticks at ``xticks``) and one
    legend; ``chance``: a dotted line at 0.5; ``height`` in inches (the least)."""

    panels: list[tuple[str, list[Series]]]
    xlabel: str
    ylabel: str
    xticks: list[tuple[float, str]]
    height: float
    legend_title: str | None = None
    chance: bool = False


@dataclass(frozen=True)
class Grid:
    """Panels of cells (title, values: one row per ``rows`` label, one column per ``columns``
    label, NaN empty), coloured 0 to 1 (viridis), a colour bar labelled ``colour_label``; each
    cell's value written as ``format(value * scale, cells)`` when ``cells`` is given (and it
    fits); column labels turned 35 degrees when ``rotate``."""

    panels: list[tuple[str, list[list[float]]]]
    rows: list[str]
    columns: list[str]
    xlabel: str
    ylabel: str
    colour_label: str
    cells: str | None = None
    scale: float = 1.0
    rotate: bool = False


Chart = Lines | Grid

_STYLES = ("-", "--", ":", "-.")
_MARKERS = ("o", "s", "^", "D")


def line_style(number: int) -> dict[str, Any]:
    """The look of the ``number``-th line: the ten default colours, then again with another
    dash pattern and marker, so that up to 40 lines stay told apart."""
    turn = (number // 10) % len(_STYLES)
    return {"colour": TAB10[number % 10], "dash": _STYLES[turn], "marker": _MARKERS[turn]}


def _floats(values: Any) -> list[float]:
    return [float(v) for v in values]


def lines_by_setting(data: pd.DataFrame, paper: pd.DataFrame | None = None) -> Lines | None:
    """ConvRe Table 9: accuracy per setting, one panel per task (stacked), one line per
    (model, subset) with its Wilson interval; the papers' figures for the same tasks as thin
    dashed lines, each labelled ``paper: MODEL`` in a colour of its own (the 20 of
    ``tab20b``, then another marker). None when ``data`` is empty."""
    if data.empty:
        return None
    tasks = sorted(data["task"].unique())
    names = sorted(
        {m + (" (subset)" if s else "") for m, s in zip(data["model"], data["subset"], strict=True)}
    )
    paper = paper if paper is not None else pd.DataFrame(columns=["task", "model"])
    paper = paper[paper["task"].isin(tasks)].sort_values("setting")
    data = data.sort_values("setting")  # so is each group
    paper_models = sorted(paper["model"].unique(), key=str.lower)
    panels = []
    for task in tasks:
        series = []
        for model, group in paper[paper["task"] == task].groupby("model"):
            number = paper_models.index(model)
            x, y = _floats(group["setting"]), _floats(group["accuracy"])
            colour, marker = TAB20B[number % 20], "x+"[number // 20 % 2]
            series.append(Series(f"paper: {model}", x, y, colour, "--", marker, 0.9))
        for (model, subset), group in data[data["task"] == task].groupby(["model", "subset"]):
            name = model + (" (subset)" if subset else "")
            x, y = _floats(group["setting"]), _floats(group["accuracy"])
            lo, hi = _floats(group["lo"]), _floats(group["hi"])
            series.append(Series(name, x, y, lo=lo, hi=hi, **line_style(names.index(name))))
        panels.append((str(task), series))
    ticks = [(float(s), f"{s}#") for s in range(1, 13)]
    xlabel = "prompt setting (paper Tables 2-3)"
    return Lines(panels, xlabel, "accuracy", ticks, 2.6 * len(tasks) + 0.4, chance=True)


def scaling_grid(points: pd.DataFrame) -> Grid | None:
    """ConvRe Figures 5/7 as one readable grid per task: a row per model (grouped by family,
    smallest first), a column per setting, each cell its accuracy (coloured and written, in
    %), so reading down a column is the trend with size. None when there is no point."""
    if points.empty:
        return None
    tasks = sorted(points["task"].unique())
    ordered = points.sort_values(["source", "family", "size"])
    models = list(
        dict.fromkeys(zip(ordered["source"], ordered["family"], ordered["model"], strict=True))
    )
    names = [f"{m} (paper)" if s == "paper" else str(m) for s, _, m in models]
    settings = list(range(1, 13))
    panels = []
    for task in tasks:
        here = points[points["task"] == task]
        grid = here.pivot_table(index="model", columns="setting", values="accuracy", aggfunc="mean")
        grid = grid.reindex(index=[m for _, _, m in models], columns=settings)
        panels.append((str(task), grid.to_numpy(dtype=float).tolist()))
    return Grid(
        panels, names, [f"{s}#" for s in settings], "prompt setting (paper Tables 2-3)", "model",
        "accuracy (cells: %)", ".0f", 100,
    )  # fmt: skip


def lines(
    data: pd.DataFrame, x: str, hue: Sequence[str], y: str = "accuracy", min_n: int = 20
) -> Lines | None:
    """One line of ``y`` against ``x`` per combination of the ``hue`` columns; points with fewer
    than ``min_n`` items are left out (said in the axis label), unless every point has fewer
    (tiny runs: then all are drawn, and the label says so). None when ``data`` has no point
    with a value."""
    data = data.dropna(subset=[x, y])
    if data.empty:
        return None
    kept = data[data["n"] >= min_n]
    note = f"points with n >= {min_n}"
    if kept.empty:
        kept, note = data, f"every point has n < {min_n}"
    hues = [" / ".join(map(str, row)) for row in kept[list(hue)].to_numpy()]
    kept = kept.assign(_hue=hues).sort_values(x)  # so is each group
    series = []
    for number, (name, group) in enumerate(kept.groupby("_hue")):
        points = _floats(group[x]), _floats(group[y])
        series.append(Series(str(name), *points, **line_style(number)))
    ticks = [(float(t), f"{t:g}") for t in sorted(kept[x].unique())]
    xlabel = f"{x.replace('_', ' ')} ({note})"
    return Lines([("", series)], xlabel, y, ticks, 3.4, legend_title=" / ".join(hue))


def heatmap(
    data: pd.DataFrame, rows: Sequence[str], column: str, y: str = "accuracy"
) -> Grid | None:
    """A grid of ``y``: one row per combination of ``rows``, one column per value of
    ``column``, each cell coloured (0 to 1) and its value written when the grid is small. None
    when no cell has a value."""
    data = data.dropna(subset=[y])
    if data.empty:
        return None
    data = data.assign(_row=[" / ".join(map(str, row)) for row in data[list(rows)].to_numpy()])
    grid = data.pivot_table(index="_row", columns=column, values=y, aggfunc="mean")
    if grid.empty:
        return None
    written = ".2f" if len(grid.columns) <= 12 and grid.size <= 240 else None
    return Grid(
        [("", grid.to_numpy(dtype=float).tolist())], [str(r) for r in grid.index],
        [str(c) for c in grid.columns], column.replace("_", " "), " / ".join(rows), y, written,
        rotate=True,
    )  # fmt: skip
