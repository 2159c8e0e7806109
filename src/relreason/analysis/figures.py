"""Matplotlib figures of the analyses, returned as inline SVG text (no files, no network)."""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

plt.rcParams["svg.fonttype"] = "none"  # text stays text: smaller files
plt.rcParams["svg.hashsalt"] = "relreason"  # stable ids


def to_svg(fig: Figure) -> str:
    """Return ``fig`` as SVG text (without the XML prologue) and close it."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)  # no date: stable output
    return text[text.index("<svg") :]


def lines_by_setting(data: pd.DataFrame, paper: pd.DataFrame | None = None) -> str:
    """ConvRe: accuracy per setting, one panel per task, one line per (model, subset); the
    papers' figures for the same tasks as thin grey lines (named in the legend when few)."""
    tasks = sorted(data["task"].unique())
    fig, axes = plt.subplots(1, len(tasks), figsize=(5.2 * len(tasks), 3.4), squeeze=False)
    for ax, task in zip(axes[0], tasks, strict=True):
        if paper is not None and not paper.empty:
            for model, group in paper[paper["task"] == task].groupby("model"):
                group = group.sort_values("setting")
                ax.plot(
                    group["setting"],
                    group["accuracy"],
                    color="0.8",
                    lw=0.8,
                    zorder=1,
                    label=f"paper: {model}" if paper["model"].nunique() <= 3 else None,
                )
        mine = data[data["task"] == task]
        for (model, subset), group in mine.groupby(["model", "subset"]):
            group = group.sort_values("setting")
            ax.errorbar(
                group["setting"],
                group["accuracy"],
                yerr=[
                    (group["accuracy"] - group["lo"]).clip(lower=0),
                    (group["hi"] - group["accuracy"]).clip(lower=0),
                ],
                marker="o",
                ms=3,
                capsize=2,
                label=model + (" (subset)" if subset else ""),
            )
        ax.axhline(0.5, color="0.5", ls=":", lw=0.8)
        ax.set(title=task, xlabel="setting #", ylabel="accuracy", ylim=(0, 1), xticks=range(1, 13))
        ax.legend(fontsize=6, loc="lower left")
    return to_svg(fig)


def scaling_panels(points: pd.DataFrame) -> str:
    """ConvRe Figures 5/7: accuracy against model size, one panel per (task, setting), one line
    per (source, family). The x axis is the size rank within the family (1 = smallest), since
    some of the papers' families have no published sizes; the trend rule uses the order only."""
    cells = sorted({(t, int(s)) for t, s in zip(points["task"], points["setting"], strict=True)})
    cols = min(6, len(cells))
    rows = math.ceil(len(cells) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.3 * cols, 2.0 * rows), squeeze=False)
    for ax, (task, setting) in zip(axes.flat, cells, strict=False):
        here = points[(points["task"] == task) & (points["setting"] == setting)]
        for (source, family), group in here.groupby(["source", "family"]):
            group = group.sort_values("size")
            style = "--" if source == "paper" else "-"
            ranks = range(1, len(group) + 1)
            label = f"{family} (paper)" if source == "paper" else str(family)
            ax.plot(ranks, group["accuracy"], style, marker=".", label=label)
        ax.set(title=f"{task} {setting}#", ylim=(0, 1))
        ax.tick_params(labelsize=6)
        ax.title.set_fontsize(7)
    for ax in list(axes.flat)[len(cells) :]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=5)
    fig.supxlabel("size rank within the family (1 = smallest)", fontsize=7)
    fig.tight_layout()
    return to_svg(fig)


def lines(
    data: pd.DataFrame, x: str, hue: Sequence[str], y: str = "accuracy", min_n: int = 20
) -> str:
    """One line of ``y`` against ``x`` per combination of the ``hue`` columns; points with fewer
    than ``min_n`` items are left out (said in the axis label)."""
    data = data[data["n"] >= min_n].copy()
    data["_hue"] = data[list(hue)].astype(str).agg(" / ".join, axis=1)
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for name, group in data.groupby("_hue"):
        group = group.sort_values(x)
        ax.plot(group[x], group[y], marker="o", ms=3, label=str(name))
    ax.set(xlabel=f"{x} (points with n >= {min_n})", ylabel=y, ylim=(0, 1))
    if data["_hue"].nunique() <= 12:
        ax.legend(fontsize=6)
    return to_svg(fig)


def heatmap(data: pd.DataFrame, rows: Sequence[str], column: str, y: str = "accuracy") -> str:
    """A grid of ``y``: one row per combination of ``rows``, one column per value of
    ``column``, each cell coloured (0 to 1) and labelled when the grid is small."""
    data = data.copy()
    data["_row"] = data[list(rows)].astype(str).agg(" / ".join, axis=1)
    grid = data.pivot_table(index="_row", columns=column, values=y, aggfunc="mean")
    height = max(2.0, 0.22 * len(grid) + 1.2)
    fig, ax = plt.subplots(figsize=(max(4.0, 0.7 * len(grid.columns) + 2.5), height))
    image = ax.imshow(grid.to_numpy(dtype=float), vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(
        range(len(grid.columns)),
        [str(c) for c in grid.columns],
        rotation=30,
        ha="right",
        fontsize=7,
    )
    ax.set_yticks(range(len(grid)), list(grid.index), fontsize=6)
    if grid.size <= 120:
        for (i, j), value in pd.DataFrame(grid.to_numpy()).stack().items():
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=6, color="w")
    fig.colorbar(image, ax=ax, fraction=0.03)
    return to_svg(fig)
