"""The figures of :mod:`relreason.analysis.figures` drawn with matplotlib, as files for a paper
(``report --figures DIR``): SVG, PDF (TrueType fonts, editable) and PNG at 200 dpi. The HTML
report writes its own SVG (:mod:`relreason.analysis.svg`) and never imports matplotlib."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from relreason.analysis.figures import FONT, Chart, Lines
from relreason.files import atomic_write_bytes

FIGURE_FORMATS = ("svg", "pdf", "png")
plt.rcParams.update(
    {
        "svg.fonttype": "none",  # text stays text: smaller files
        "svg.hashsalt": "relreason",  # stable ids
        "pdf.fonttype": 42,  # TrueType in PDFs (editable, embeddable in papers)
        "font.size": 9,
        "axes.titlesize": 10,
        "axes.labelsize": 9,
        "xtick.labelsize": FONT,
        "ytick.labelsize": FONT,
        "legend.fontsize": FONT,
        "figure.dpi": 100,
    }
)


def save_figure(chart: Chart, stem: Path, formats: Sequence[str] = FIGURE_FORMATS) -> list[Path]:
    """Write ``chart`` as ``stem.svg``, ``stem.pdf`` and ``stem.png`` atomically; return the
    paths."""
    fig = draw(chart)
    written = []
    for fmt in formats:
        buffer = io.BytesIO()
        metadata: dict[str, Any] = {"Date": None} if fmt == "pdf" else {}
        fig.savefig(buffer, format=fmt, bbox_inches="tight", dpi=200, metadata=metadata)
        atomic_write_bytes(stem.with_suffix(f".{fmt}"), buffer.getvalue())
        written.append(stem.with_suffix(f".{fmt}"))
    plt.close(fig)
    return written


def draw(chart: Chart) -> Figure:
    """``chart`` as a matplotlib figure (constrained layout: labels and legend inside it)."""
    size = (chart.width, chart.height)
    fig, axes = plt.subplots(
        len(chart.panels), 1, figsize=size, squeeze=False, layout="constrained",
        sharex=isinstance(chart, Lines),
    )  # fmt: skip
    if isinstance(chart, Lines):
        for ax, (title, series) in zip(axes[:, 0], chart.panels, strict=True):
            for line in series:
                look = {"color": f"#{line.colour}", "ls": line.dash, "lw": line.width}
                look |= {"marker": line.marker, "ms": 3, "label": line.label}
                if line.lo is None or line.hi is None:
                    ax.plot(line.x, line.y, **look)
                    continue
                below = [max(y - lo, 0) for y, lo in zip(line.y, line.lo, strict=True)]
                above = [max(hi - y, 0) for y, hi in zip(line.y, line.hi, strict=True)]
                ax.errorbar(line.x, line.y, yerr=[below, above], capsize=2, zorder=3, **look)
            if chart.chance:
                ax.axhline(0.5, color="0.5", ls=":", lw=0.8, label="chance (0.5)")
            ax.set(title=title, ylabel=chart.ylabel, ylim=(0, 1))
            ax.set_xticks([x for x, _ in chart.xticks], [t for _, t in chart.xticks])
        axes[-1, 0].set_xlabel(chart.xlabel)
        found: dict[str, Any] = {}  # every panel's labelled lines, each name once
        for ax in axes[:, 0]:
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                found.setdefault(label, handle)
        fig.legend(
            list(found.values()), list(found), loc="outside right upper", frameon=False,
            title=chart.legend_title, ncols=1 if len(found) <= 24 else 2,
        )  # fmt: skip
        return fig
    for ax, (title, values) in zip(axes[:, 0], chart.panels, strict=True):
        image = ax.imshow(values, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        turn = {"rotation": 35, "ha": "right"} if chart.rotate else {}
        ax.set_xticks(range(len(chart.columns)), chart.columns, **turn)
        ax.set_yticks(range(len(chart.rows)), chart.rows)
        ax.set(title=title, xlabel=chart.xlabel, ylabel=chart.ylabel)
        for i, row in enumerate(values):
            for j, value in enumerate(row):
                text = chart.cell(value)
                if text is not None:
                    ink = "k" if value > 0.6 else "w"
                    ax.text(j, i, text, ha="center", va="center", fontsize=FONT, color=ink)
    fig.colorbar(image, ax=list(axes[:, 0]), fraction=0.03, label=chart.colour_label)
    return fig
