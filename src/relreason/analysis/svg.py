"""The figures of :mod:`relreason.analysis.figures` written as SVG text directly, for the HTML
report (matplotlib's layout took seconds a page; this takes milliseconds). Sizes in points
(the viewBox; the page shows 1 pt as 4/3 px), text of 8 pt and up, the room text needs
estimated at ``EM`` of its size a character; the legend a ``<g id="legend">``."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from html import escape

from relreason.analysis.figures import FONT, Chart, Grid, Lines, Series

EM = 0.62
"""A character's width, as a share of the font size (DejaVu Sans is about 0.6)."""
# fmt: off
VIRIDIS = ["440154", "482475", "414487", "355f8d", "2a788e", "21918c", "22a884", "44bf70",
           "7ad151", "bddf26", "fde725"]
# fmt: on
"""matplotlib's ``viridis`` at 0, 0.1, ..., 1."""
_DASHES = {"--": (3.7, 1.6), ":": (1.0, 1.65), "-.": (6.4, 1.6, 1.0, 1.6)}
_MARKS = {  # relative paths around a point
    "o": "m-2,0a2,2 0 1,0 4,0a2,2 0 1,0 -4,0",
    "s": "m-1.8,-1.8h3.6v3.6h-3.6z",
    "^": "m0,-2.3l2.1,3.7h-4.2z",
    "D": "m0,-2.4l2.4,2.4l-2.4,2.4l-2.4,-2.4z",
    "x": "m-2,-2l4,4m0,-4l-4,4",
    "+": "m-2.4,0h4.8m-2.4,-2.4v4.8",
}


def to_svg(chart: Chart) -> str:
    """Return ``chart`` as one ``<svg>`` element (no XML prologue)."""
    width, height, body = _lines(chart) if isinstance(chart, Lines) else _grid(chart)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.1f}pt" height="{height:.1f}pt" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="DejaVu Sans, Arial, sans-serif">'
        f"{''.join(body)}</svg>"
    )


def _room(text: str, size: float = FONT) -> float:
    return EM * size * len(text)


def _text(
    x: float, y: float, text: str, size: float = FONT, anchor: str = "middle", **attrs: str
) -> str:
    """``text`` centred on ``y`` (vertically), placed at ``x`` by ``anchor``; ``turn`` degrees
    (counter-clockwise) about that point when given."""
    turn = attrs.pop("turn", None)
    more = f' transform="rotate({turn} {x:.1f} {y:.1f})"' if turn else ""
    more += "".join(f' {k}="{v}"' for k, v in attrs.items())
    return (
        f'<text x="{x:.1f}" y="{y + 0.35 * size:.1f}" font-size="{size:g}" '
        f'text-anchor="{anchor}"{more}>{escape(text)}</text>'
    )


def _rect(x: float, y: float, width: float, height: float, look: str) -> str:
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" {look}/>'


def _colour(value: float) -> str:
    """viridis at ``value`` (0 to 1), between its 11 stops."""
    at = min(max(value, 0.0), 1.0) * 10
    low = min(int(at), 9)
    a, b = bytes.fromhex(VIRIDIS[low]), bytes.fromhex(VIRIDIS[low + 1])
    return "#" + bytes(round(p + (q - p) * (at - low)) for p, q in zip(a, b, strict=True)).hex()


def _stroke(colour: str, width: float, dash: str = "-") -> str:
    pattern = _DASHES.get(dash)
    dashes = (
        f' stroke-dasharray="{",".join(f"{d * width:.1f}" for d in pattern)}"' if pattern else ""
    )
    return f'fill="none" stroke="{colour}" stroke-width="{width:g}"{dashes}'


def _marks(points: Iterable[tuple[float, float]], marker: str, colour: str) -> str:
    shape = "".join(f"M{x:.1f},{y:.1f}{_MARKS[marker]}" for x, y in points)
    look = _stroke(colour, 1) if marker in "x+" else f'fill="{colour}"'
    return f'<path d="{shape}" {look}/>'


def _series(line: Series, at: Callable[[float, float], tuple[float, float]]) -> list[str]:
    colour = f"#{line.colour}"
    points = [at(x, y) for x, y in zip(line.x, line.y, strict=True) if not math.isnan(y)]
    if not points:
        return []
    path = "M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in points)
    out = [f'<path d="{path}" {_stroke(colour, line.width, line.dash)}/>']
    if line.lo is not None and line.hi is not None:
        bars = ""
        for x, lo, hi in zip(line.x, line.lo, line.hi, strict=True):
            if not (math.isnan(lo) or math.isnan(hi)):
                (left, bottom), (_, top) = at(x, lo), at(x, hi)
                bars += f"M{left:.1f},{top:.1f}V{bottom:.1f}M{left - 2:.1f},{top:.1f}h4"
                bars += f"M{left - 2:.1f},{bottom:.1f}h4"
        out.append(f'<path d="{bars}" {_stroke(colour, 1)}/>')
    return [*out, _marks(points, line.marker, colour)]


def _lines(chart: Lines) -> tuple[float, float, list[str]]:
    """Panels stacked, the x tick labels and label under the last; the legend on the right,
    one entry a line, the figure as tall as it needs."""
    entries: dict[str, Series | None] = {}  # label -> its line (None: the chance line)
    for _, series in chart.panels:
        for line in series:
            entries.setdefault(line.label, line)
        if chart.chance:
            entries.setdefault("chance (0.5)", None)
    title = chart.legend_title or ""
    width = chart.width * 72
    legend = min(24 + max(_room(t) for t in [*entries, title]), width / 2)
    height = max(chart.height * 72, 24 + 12 * len(entries) + (14 if title else 0))
    left, right, top = 46.0, width - legend - 12, 20.0 if any(t for t, _ in chart.panels) else 8.0
    tall = (height - 36) / len(chart.panels) - top
    ticks = [x for x, _ in chart.xticks]
    xs = [*ticks, *(x for _, series in chart.panels for line in series for x in line.x)]
    low, high = min(xs), max(xs)
    pad = 0.04 * (high - low) or 0.5
    body: list[str] = []
    for number, (name, series) in enumerate(chart.panels):
        upper = top + number * (tall + top)

        def at(x: float, y: float, upper: float = upper) -> tuple[float, float]:
            place = left + (x - low + pad) / (high - low + 2 * pad) * (right - left)
            return place, upper + (1 - y) * tall

        body.append(_text((left + right) / 2, upper - 9, name, 10) if name else "")
        body.append(_text(12, upper + tall / 2, chart.ylabel, 9, turn="-90"))
        body.append(_rect(left, upper, right - left, tall, _stroke("#000", 0.8)))
        for step in range(6):
            _, y = at(low, step / 5)
            body.append(f'<path d="M{left},{y:.1f}h-3.5" {_stroke("#000", 0.8)}/>')
            body.append(_text(left - 5, y, f"{step / 5:.1f}", anchor="end"))
        if chart.chance:
            _, y = at(low, 0.5)
            body.append(f'<path d="M{left},{y:.1f}H{right:.1f}" {_stroke("#808080", 0.8, ":")}/>')
        for line in series:
            body += _series(line, at)
        shown = -math.inf  # the right end of the last tick label written
        for x, label in chart.xticks:
            place, bottom = at(x, 0)
            body.append(f'<path d="M{place:.1f},{bottom:.1f}v3.5" {_stroke("#000", 0.8)}/>')
            if number == len(chart.panels) - 1 and place - _room(label) / 2 > shown + 3:
                body.append(_text(place, bottom + 10, label))
                shown = place + _room(label) / 2
    body.append(_text((left + right) / 2, height - 8, chart.xlabel, 9))
    body.append(f'<g id="legend">{"".join(_legend(entries, title, right + 12, legend))}</g>')
    return width, height, body


def _legend(entries: dict[str, Series | None], title: str, x: float, room: float) -> list[str]:
    """One entry a line (its look, then its label, cut to ``room``) from the top."""
    out = [_text(x, 10, title, anchor="start")] if title else []
    most = max(int((room - 24) / (EM * FONT)), 4)
    for number, (label, line) in enumerate(entries.items()):
        y = (26 if title else 12) + 12 * number
        if line is None:
            out.append(f'<path d="M{x},{y}h18" {_stroke("#808080", 0.8, ":")}/>')
        else:
            out.append(
                f'<path d="M{x},{y}h18" {_stroke(f"#{line.colour}", line.width, line.dash)}/>'
            )
            out.append(_marks([(x + 9, y)], line.marker, f"#{line.colour}"))
        text = label if len(label) <= most else label[: most - 1] + "\u2026"
        out.append(_text(x + 22, y, text, anchor="start"))
    return out


def _grid(chart: Grid) -> tuple[float, float, list[str]]:
    """Each panel: its title, the cells with the row labels on the left, the column labels and
    the x label under them; one colour bar on the right, beside every panel."""
    rows, columns = len(chart.rows), len(chart.columns)
    left = 22 + max(_room(r) for r in chart.rows)
    width = min(72 * 6.8, max(72 * chart.width, left + 30 * columns + 64))
    cell = (width - left - 64) / columns
    tall = max(rows * 15.0, 72.0) / rows  # a row's height: at least an inch for all of them
    turn = math.sin(math.radians(35))
    under = 12 + (max(_room(c) for c in chart.columns) * turn if chart.rotate else 0) + 20
    top = 20.0 if any(t for t, _ in chart.panels) else 8.0
    step = top + rows * tall + under
    body: list[str] = []
    for number, (name, values) in enumerate(chart.panels):
        upper = top + number * step
        bottom = upper + rows * tall
        body.append(_text(left + cell * columns / 2, upper - 9, name, 10) if name else "")
        body.append(_text(10, upper + rows * tall / 2, chart.ylabel, 9, turn="-90"))
        for i, (label, row) in enumerate(zip(chart.rows, values, strict=True)):
            y = upper + i * tall
            body.append(_text(left - 5, y + tall / 2, label, anchor="end"))
            for j, value in enumerate(row):
                if math.isnan(value):
                    continue
                x = left + j * cell
                body.append(_rect(x, y, cell, tall, f'fill="{_colour(value)}"'))
                text = chart.cell(value)
                if text and _room(text) + 2 < cell:
                    ink = "#000" if value > 0.6 else "#fff"
                    body.append(_text(x + cell / 2, y + tall / 2, text, fill=ink))
        for j, label in enumerate(chart.columns):
            x = left + (j + 0.5) * cell
            if chart.rotate:
                body.append(_text(x + 3, bottom + 6, label, anchor="end", turn="-35"))
            else:
                body.append(_text(x, bottom + 9, label))
        body.append(_text(left + cell * columns / 2, upper + step - top - 8, chart.xlabel, 9))
    high = top + (len(chart.panels) - 1) * step + rows * tall
    body += _colour_bar(left + cell * columns + 12, top, high, chart.colour_label)
    return width, high + under, body


def _colour_bar(x: float, top: float, bottom: float, label: str) -> list[str]:
    """A bar from 0 (``bottom``) to 1 (``top``), 40 bands, ticks at every 0.2, labelled."""
    band = (bottom - top) / 40
    out = [
        _rect(x, bottom - (n + 1) * band, 10, band + 0.3, f'fill="{_colour((n + 0.5) / 40)}"')
        for n in range(40)
    ]
    for step in range(6):
        y = bottom - step / 5 * (bottom - top)
        out.append(f'<path d="M{x + 10:.1f},{y:.1f}h3" {_stroke("#000", 0.8)}/>')
        out.append(_text(x + 15, y, f"{step / 5:.1f}", anchor="start"))
    out.append(_text(x + 42, (top + bottom) / 2, label, 9, turn="-90"))
    return out
