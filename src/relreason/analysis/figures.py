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
    """ConvRe Figures 5/7: accuracy against model size (log scale), one panel per (task,
    setting), one line per (source, family)."""
    cells = sorted({(t, int(s)) for t, s in zip(points["task"], points["setting"], strict=True)})
    cols = min(6, len(cells))
    rows = math.ceil(len(cells) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.3 * cols, 2.0 * rows), squeeze=False)
    for ax, (task, setting) in zip(axes.flat, cells, strict=False):
        here = points[(points["task"] == task) & (points["setting"] == setting)]
        for (source, family), group in here.groupby(["source", "family"]):
            group = group.sort_values("size")
            style = "--" if source == "paper" else "-"
            ax.plot(group["size"], group["accuracy"], style, marker=".", label=f"{family}")
        ax.set_xscale("log")
        ax.set(title=f"{task} {setting}#", ylim=(0, 1))
        ax.tick_params(labelsize=6)
        ax.title.set_fontsize(7)
    for ax in list(axes.flat)[len(cells) :]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=5)
    fig.tight_layout()
    return to_svg(fig)


def grouped_bars(data: pd.DataFrame, x: str, hue: Sequence[str], y: str = "accuracy") -> str:
    """Bars of ``y`` per value of ``x``, one bar per combination of the ``hue`` columns."""
    data = data.copy()
    data["_hue"] = data[list(hue)].astype(str).agg(" / ".join, axis=1)
    xs = sorted(data[x].astype(str).unique(), key=lambda v: (len(v), v))
    hues = sorted(data["_hue"].unique())
    width = 0.8 / max(1, len(hues))
    fig, ax = plt.subplots(figsize=(max(4.0, 0.5 * len(xs) * max(1, len(hues)) ** 0.5), 3.2))
    for i, name in enumerate(hues):
        mine = data[data["_hue"] == name].set_index(data[x].astype(str)[data["_hue"] == name])
        heights = [float(mine[y].get(v, float("nan"))) if v in mine.index else 0 for v in xs]
        ax.bar([j + i * width for j in range(len(xs))], heights, width, label=name)
    ax.set_xticks(
        [j + width * (len(hues) - 1) / 2 for j in range(len(xs))],
        xs,
        rotation=30,
        ha="right",
        fontsize=7,
    )
    ax.set(ylabel=y, ylim=(0, 1))
    if len(hues) <= 12:
        ax.legend(fontsize=6)
    return to_svg(fig)
