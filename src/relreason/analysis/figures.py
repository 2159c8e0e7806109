"""Matplotlib figures of the analyses, made to be read at 1400 px and in a printed page: at most
7 inches wide, no text under 8 pt, labelled axes, legends outside the plotted area. Each
function returns a ``Figure``, or None when its data holds nothing to draw (a tiny, empty or
all-failed run); ``to_svg`` gives the inline SVG of the HTML report and
``save_figure`` writes SVG, PDF and PNG files for a paper (``report --figures DIR``)."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

plt.rcParams["svg.fonttype"] = "none"  # text stays text: smaller files
plt.rcParams["svg.hashsalt"] = "relreason"  # stable ids
plt.rcParams["pdf.fonttype"] = 42  # TrueType in PDFs (editable, embeddable in papers)

WIDTH = 6.8
"""The widest figure, in inches (a two-column page's text width is 7; the saved margin
fits in it)."""
FONT = 8.0
"""The smallest font, in points."""
FIGURE_FORMATS = ("svg", "pdf", "png")

plt.rcParams.update(
    {
        "font.size": 9,
        "axes.titlesize": 10,
        "axes.labelsize": 9,
        "xtick.labelsize": FONT,
        "ytick.labelsize": FONT,
        "legend.fontsize": FONT,
        "figure.dpi": 100,
    }
)


def to_svg(fig: Figure) -> str:
    """Return ``fig`` as SVG text (without the XML prologue) and close it.

    Drawn once: every figure here is laid out by matplotlib's constrained layout, which keeps
    labels and legends inside it, so no ``bbox_inches="tight"`` (which draws the figure a
    second time to measure it)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    text = buffer.getvalue()
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)  # no date: stable output
    return text[text.index("<svg") :]


def save_figure(fig: Figure, stem: Path, formats: Sequence[str] = FIGURE_FORMATS) -> list[Path]:
    """Write ``fig`` as ``stem.svg``, ``stem.pdf`` and ``stem.png`` (200 dpi) atomically; close
    it; return the paths."""
    from relreason.files import atomic_write_bytes

    written = []
    for fmt in formats:
        buffer = io.BytesIO()
        metadata: dict[str, Any] = {"Date": None} if fmt == "pdf" else {}
        fig.savefig(buffer, format=fmt, bbox_inches="tight", dpi=200, metadata=metadata)
        path = stem.with_suffix(f".{fmt}")
        atomic_write_bytes(path, buffer.getvalue())
        written.append(path)
    plt.close(fig)
    return written


def _legend_outside(ax: Axes, title: str | None = None) -> None:
    """The legend of ``ax``'s lines to the right of the plots, inside the figure's width (the
    constrained layout makes room for it), never over a line."""
    handles, labels = [], []
    for each in ax.figure.axes:  # every panel's labelled lines, each name once
        for handle, label in zip(*each.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    if handles:
        ax.figure.legend(
            handles,
            labels,
            loc="outside right upper",
            frameon=False,
            title=title,
            ncols=1 if len(labels) <= 24 else 2,
        )


_STYLES = ("-", "--", ":", "-.")
_MARKERS = ("o", "s", "^", "D")


def line_style(number: int) -> dict[str, Any]:
    """The look of the ``number``-th line: the ten default colours, then again with another
    dash pattern and marker, so that up to 40 lines stay told apart."""
    turn = (number // 10) % len(_STYLES)
    return {"color": f"C{number % 10}", "ls": _STYLES[turn], "marker": _MARKERS[turn], "ms": 3}


def _paper_style(number: int) -> dict[str, Any]:
    """The look of the ``number``-th paper model's line: thin, dashed, a colour of its own
    (the 20 of ``tab20b``) and a hollow marker, so the runs' solid lines stand out."""
    colour = plt.get_cmap("tab20b")(number % 20)
    marker = ("x", "+", "1", "2")[(number // 20) % 4]
    return {"color": colour, "ls": "--", "lw": 0.9, "marker": marker, "ms": 3.5, "zorder": 1}


def lines_by_setting(data: pd.DataFrame, paper: pd.DataFrame | None = None) -> Figure | None:
    """ConvRe Table 9: accuracy per setting, one panel per task (stacked), one line per
    (model, subset) with its Wilson interval; the papers' figures for the same tasks as thin
    dashed lines, each labelled ``paper: MODEL`` in a colour of its own; the legend beside the
    panels. None when ``data`` is empty."""
    if data.empty:
        return None
    tasks = sorted(data["task"].unique())
    series = sorted(
        {m + (" (subset)" if s else "") for m, s in zip(data["model"], data["subset"], strict=True)}
    )
    paper = paper if paper is not None else pd.DataFrame(columns=["task", "model"])
    paper = paper[paper["task"].isin(tasks)]
    paper_models = sorted(paper["model"].unique(), key=str.lower)
    fig, axes = plt.subplots(
        len(tasks),
        1,
        figsize=(WIDTH, 2.6 * len(tasks) + 0.4),
        squeeze=False,
        sharex=True,
        layout="constrained",
    )
    for ax, task in zip(axes[:, 0], tasks, strict=True):
        for model, group in paper[paper["task"] == task].groupby("model"):
            group = group.sort_values("setting")
            ax.plot(
                group["setting"].astype(int),
                group["accuracy"],
                label=f"paper: {model}",
                **_paper_style(paper_models.index(model)),
            )
        mine = data[data["task"] == task]
        for (model, subset), group in mine.groupby(["model", "subset"]):
            group = group.sort_values("setting")
            name = model + (" (subset)" if subset else "")
            style = line_style(series.index(name))
            ax.errorbar(
                group["setting"],
                group["accuracy"],
                yerr=[
                    (group["accuracy"] - group["lo"]).clip(lower=0),
                    (group["hi"] - group["accuracy"]).clip(lower=0),
                ],
                capsize=2,
                label=name,
                zorder=3,
                **style,
            )
        ax.axhline(0.5, color="0.5", ls=":", lw=0.8, label="chance (0.5)")
        ax.set(title=task, ylabel="accuracy", ylim=(0, 1), xticks=range(1, 13))
        ax.set_xticklabels([f"{s}#" for s in range(1, 13)])
    axes[-1, 0].set_xlabel("prompt setting (paper Tables 2-3)")
    _legend_outside(axes[0, 0])
    return fig


def scaling_grid(points: pd.DataFrame) -> Figure | None:
    """ConvRe Figures 5/7 as one readable grid per task: a row per model (grouped by family,
    smallest first), a column per setting, each cell its accuracy (coloured and written), so
    reading down a column is the trend with size. None when there is no point."""
    if points.empty:
        return None
    tasks = sorted(points["task"].unique())
    ordered = points.sort_values(["source", "family", "size"])
    models = list(
        dict.fromkeys(zip(ordered["source"], ordered["family"], ordered["model"], strict=True))
    )
    names = [f"{m} (paper)" if s == "paper" else str(m) for s, _, m in models]
    height = (0.22 * len(models) + 0.8) * len(tasks) + 0.4
    fig, axes = plt.subplots(
        len(tasks), 1, figsize=(WIDTH, height), squeeze=False, layout="constrained"
    )
    settings = list(range(1, 13))
    image = None
    for ax, task in zip(axes[:, 0], tasks, strict=True):
        here = points[points["task"] == task]
        grid = here.pivot_table(index="model", columns="setting", values="accuracy", aggfunc="mean")
        grid = grid.reindex(index=[m for _, _, m in models], columns=settings)
        image = ax.imshow(grid.to_numpy(dtype=float), vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(settings)), [f"{s}#" for s in settings])
        ax.set_yticks(range(len(names)), names)
        ax.set(title=task, xlabel="prompt setting (paper Tables 2-3)", ylabel="model")
        for i, row in enumerate(grid.to_numpy(dtype=float)):
            for j, value in enumerate(row):
                if not pd.isna(value):
                    colour = "k" if value > 0.6 else "w"
                    ax.text(j, i, f"{100 * value:.0f}", ha="center", va="center", color=colour)
    if image is not None:
        fig.colorbar(image, ax=list(axes[:, 0]), fraction=0.03, label="accuracy (cells: %)")
    return fig


def lines(
    data: pd.DataFrame, x: str, hue: Sequence[str], y: str = "accuracy", min_n: int = 20
) -> Figure | None:
    """One line of ``y`` against ``x`` per combination of the ``hue`` columns, legend beside
    the plot; points with fewer than ``min_n`` items are left out (said in the axis label),
    unless every point has fewer (tiny runs: then all are drawn, and the label says so). None
    when ``data`` has no point with a value."""
    data = data.dropna(subset=[x, y])
    if data.empty:
        return None
    kept = data[data["n"] >= min_n]
    note = f"points with n >= {min_n}"
    if kept.empty:
        kept, note = data, f"every point has n < {min_n}"
    kept = kept.assign(_hue=[" / ".join(map(str, row)) for row in kept[list(hue)].to_numpy()])
    fig, ax = plt.subplots(figsize=(WIDTH, 3.4), layout="constrained")
    for number, (name, group) in enumerate(kept.groupby("_hue")):
        group = group.sort_values(x)
        ax.plot(group[x], group[y], label=str(name), **line_style(number))
    ax.set(xlabel=f"{x.replace('_', ' ')} ({note})", ylabel=y, ylim=(0, 1))
    ax.set_xticks(sorted(kept[x].unique()))
    _legend_outside(ax, " / ".join(hue))
    return fig


def heatmap(
    data: pd.DataFrame, rows: Sequence[str], column: str, y: str = "accuracy"
) -> Figure | None:
    """A grid of ``y``: one row per combination of ``rows``, one column per value of
    ``column``, each cell coloured (0 to 1) and labelled when the grid is small; row labels in
    an 8 pt font (the figure grows with the rows). None when no cell has a value."""
    data = data.dropna(subset=[y])
    if data.empty:
        return None
    data = data.assign(_row=[" / ".join(map(str, row)) for row in data[list(rows)].to_numpy()])
    grid = data.pivot_table(index="_row", columns=column, values=y, aggfunc="mean")
    if grid.empty:
        return None
    height = max(2.0, 0.2 * len(grid) + 1.3)
    width = min(WIDTH, max(3.5, 0.45 * len(grid.columns) + 3.0))
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    image = ax.imshow(grid.to_numpy(dtype=float), vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns], rotation=35, ha="right")
    ax.set_yticks(range(len(grid)), list(grid.index))
    ax.set(xlabel=column.replace("_", " "), ylabel=" / ".join(rows))
    if len(grid.columns) <= 12 and grid.size <= 240:  # values written only where they fit
        for (i, j), value in pd.DataFrame(grid.to_numpy()).stack().items():
            colour = "k" if value > 0.6 else "w"
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=FONT, color=colour)
    fig.colorbar(image, ax=ax, fraction=0.04, label=y)
    return fig
