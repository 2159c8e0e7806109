"""The figures as files for a paper (``report --figures DIR``): the HTML page's SVG, and its
marks (:func:`relreason.analysis.svg.layout`) painted with matplotlib as PDF (TrueType fonts,
editable) and PNG (200 dpi). The HTML report never imports this module (nor matplotlib)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from matplotlib import rc_context
from matplotlib.figure import Figure
from matplotlib.patches import PathPatch
from matplotlib.path import Path as Outline

from relreason.analysis.figures import Chart
from relreason.analysis.svg import DASHES, Label, layout, to_svg
from relreason.files import atomic_write_bytes

_ALIGN = {"start": "left", "middle": "center", "end": "right"}


def save_figure(chart: Chart, stem: Path) -> list[Path]:
    """Write ``chart`` as ``stem.svg``, ``stem.pdf`` and ``stem.png`` atomically; return the
    paths."""
    svg = '<?xml version="1.0" encoding="utf-8"?>\n' + to_svg(chart)
    atomic_write_bytes(stem.with_suffix(".svg"), svg.encode("utf-8"))
    fig = draw(chart)
    for fmt in ("pdf", "png"):
        buffer = io.BytesIO()
        metadata: dict[str, Any] = {"Date": None} if fmt == "pdf" else {}
        with rc_context({"pdf.fonttype": 42}):  # TrueType: editable, embeddable in papers
            fig.savefig(buffer, format=fmt, dpi=200, metadata=metadata)
        atomic_write_bytes(stem.with_suffix(f".{fmt}"), buffer.getvalue())
    return [stem.with_suffix(f".{fmt}") for fmt in ("svg", "pdf", "png")]


def draw(chart: Chart) -> Figure:
    """``chart``'s marks on a matplotlib figure of its size (1 unit a point, y downwards)."""
    width, height, marks, legend = layout(chart)
    fig = Figure(figsize=(width / 72, height / 72))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set(xlim=(0, width), ylim=(height, 0))
    for mark in [*marks, *legend]:
        if isinstance(mark, Label):
            ax.text(
                mark.x, mark.y, mark.text, fontsize=mark.size, ha=_ALIGN[mark.anchor],
                va="center_baseline", rotation=mark.turn, rotation_mode="anchor", color=mark.colour,
                parse_math=False,
            )  # fmt: skip
            continue
        points = [point for part in mark.parts for point in part]
        codes = [Outline.LINETO if n else Outline.MOVETO for p in mark.parts for n in range(len(p))]
        dash = (0, DASHES[mark.dash]) if mark.dash in DASHES else "-"  # in line widths
        ax.add_patch(
            PathPatch(
                Outline(points, codes), facecolor=mark.fill or "none", lw=mark.width,
                edgecolor=mark.colour or "none", linestyle=dash, capstyle="butt",
            )
        )  # fmt: skip
    return fig
