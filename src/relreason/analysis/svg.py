"""The figures of :mod:`relreason.analysis.figures` laid out once, as marks (:class:`Shape`,
:class:`Label`) in points, and written as SVG text directly for the HTML report (matplotlib's
layout took seconds a page; this takes milliseconds); :mod:`relreason.analysis.figure_files`
paints the same marks with matplotlib for PDF and PNG files. Text of 8 pt and up, the room it
needs estimated at ``EM`` of its size a character; the legend a ``<g class="legend">`` (a class,
not an id: a page holds several figures)."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from html import escape
from typing import NamedTuple

from relreason.analysis.figures import FONT, WIDTH, Chart, Grid, Lines, Series

EM = 0.62
"""A character's width, as a share of the font size (DejaVu Sans is about 0.6)."""
# fmt: off
VIRIDIS = ["440154", "482475", "414487", "355f8d", "2a788e", "21918c", "22a884", "44bf70",
           "7ad151", "bddf26", "fde725"]
"""matplotlib's ``viridis`` at 0, 0.1, ..., 1."""
# fmt: on
DASHES = {"--": (3.7, 1.6), ":": (1.0, 1.65), "-.": (6.4, 1.6, 1.0, 1.6)}
"""matplotlib's dash patterns, in line widths."""
Point = tuple[float, float]
# a marker's points about its centre: x and + are strokes, the others filled shapes
_MARKS: dict[str, list[Point]] = {
    "o": [(2 * math.cos(a * math.pi / 4), 2 * math.sin(a * math.pi / 4)) for a in range(8)],
    "s": [(-1.8, -1.8), (1.8, -1.8), (1.8, 1.8), (-1.8, 1.8)],
    "^": [(0, -2.3), (2.1, 1.4), (-2.1, 1.4)],
    "D": [(0, -2.4), (2.4, 0), (0, 2.4), (-2.4, 0)],
    "x": [(-2, -2), (2, 2)],
    "+": [(-2.4, 0), (2.4, 0)],
}


class Shape(NamedTuple):
    """Strokes through points (each part one), in ``colour`` (None: none); closed and filled
    with ``fill`` when given."""

    parts: list[list[Point]]
    colour: str | None = "#000"
    width: float = 0.8
    dash: str = "-"
    fill: str | None = None


class Label(NamedTuple):
    """``text`` centred on ``y``, placed at ``x`` by ``anchor`` (start, middle, end), turned
    ``turn`` degrees counter-clockwise about that point."""

    x: float
    y: float
    text: str
    size: float = FONT
    anchor: str = "middle"
    turn: float = 0
    colour: str = "#000"


Mark = Shape | Label


def to_svg(chart: Chart) -> str:
    """Return ``chart`` as one ``<svg>`` element (no XML prologue)."""
    width, height, marks, legend = layout(chart)
    body = "".join(map(_svg, marks))
    if legend:
        body += f'<g class="legend">{"".join(map(_svg, legend))}</g>'
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.1f}pt" height="{height:.1f}pt" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="DejaVu Sans, Arial, sans-serif">'
        f"{body}</svg>"
    )


def _svg(mark: Mark) -> str:
    if isinstance(mark, Label):
        turn = f' transform="rotate({-mark.turn:g} {mark.x:.1f} {mark.y:.1f})"' if mark.turn else ""
        ink = f' fill="{mark.colour}"' if mark.colour != "#000" else ""
        return (
            f'<text x="{mark.x:.1f}" y="{mark.y + 0.35 * mark.size:.1f}" font-size="{mark.size:g}" '
            f'text-anchor="{mark.anchor}"{turn}{ink}>{escape(mark.text)}</text>'
        )
    end = "Z" if mark.fill else ""
    path = "".join("M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in p) + end for p in mark.parts)
    look = f'fill="{mark.fill or "none"}"'
    if mark.colour:
        look += f' stroke="{mark.colour}" stroke-width="{mark.width:g}"'
        dashes = ",".join(f"{d * mark.width:.1f}" for d in DASHES.get(mark.dash, ()))
        look += f' stroke-dasharray="{dashes}"' if dashes else ""
    return f'<path d="{path}" {look}/>'


def layout(chart: Chart) -> tuple[float, float, list[Mark], list[Mark]]:
    """``chart``'s width and height (points), its marks and its legend's."""
    return _lines(chart) if isinstance(chart, Lines) else _grid(chart)


def _room(text: str, size: float = FONT) -> float:
    return EM * size * len(text)


def _box(x: float, y: float, width: float, height: float, fill: str | None = None) -> Shape:
    corners = [(x, y), (x + width, y), (x + width, y + height), (x, y + height), (x, y)]
    return Shape([corners], None, fill=fill) if fill else Shape([corners])


@cache
def _colour(value: float) -> str:
    """viridis at ``value`` (0 to 1), between its 11 stops (kept: a grid's cells round theirs to
    1/255)."""
    at = min(max(value, 0.0), 1.0) * 10
    low = min(int(at), 9)
    a, b = bytes.fromhex(VIRIDIS[low]), bytes.fromhex(VIRIDIS[low + 1])
    return "#" + bytes(round(p + (q - p) * (at - low)) for p, q in zip(a, b, strict=True)).hex()


def _markers(points: list[Point], marker: str, colour: str) -> Shape:
    shape = _MARKS[marker]
    if marker in "x+":  # two strokes: the shape and the shape turned a quarter
        turned = [[(x + a, y + b) for a, b in shape] for x, y in points]
        turned += [[(x - b, y + a) for a, b in shape] for x, y in points]
        return Shape(turned, colour, 1)
    return Shape([[(x + a, y + b) for a, b in shape] for x, y in points], None, fill=colour)


def _series(line: Series, at: Callable[[float, float], Point]) -> list[Mark]:
    colour = f"#{line.colour}"
    points = [at(x, y) for x, y in zip(line.x, line.y, strict=True) if not math.isnan(y)]
    if not points:
        return []
    out: list[Mark] = [Shape([points], colour, line.width, line.dash)]
    if line.lo is not None and line.hi is not None:
        bars = []
        for x, lo, hi in zip(line.x, line.lo, line.hi, strict=True):
            if not (math.isnan(lo) or math.isnan(hi)):
                (middle, bottom), (_, top) = at(x, lo), at(x, hi)
                bars += [[(middle, top), (middle, bottom)]]
                bars += [[(middle - 2, y), (middle + 2, y)] for y in (top, bottom)]
        out.append(Shape(bars, colour, 1))
    return [*out, _markers(points, line.marker, colour)]


def _lines(chart: Lines) -> tuple[float, float, list[Mark], list[Mark]]:
    """Panels stacked, the x tick labels and label under the last; the legend on the right,
    one entry a line, the figure as tall as it needs."""
    entries: dict[str, Series | None] = {}  # label -> its line (None: the chance line)
    for _, series in chart.panels:
        for line in series:
            entries.setdefault(line.label, line)
        if chart.chance:
            entries.setdefault("chance (0.5)", None)
    title = chart.legend_title or ""
    width = WIDTH * 72
    legend = min(24 + max(_room(t) for t in [*entries, title]), width / 2)
    height = max(chart.height * 72, 24 + 12 * len(entries) + (14 if title else 0))
    left, right, top = 46.0, width - legend - 12, 20.0 if any(t for t, _ in chart.panels) else 8.0
    tall = (height - 36) / len(chart.panels) - top
    xs = [
        *(x for x, _ in chart.xticks),
        *(x for _, s in chart.panels for line in s for x in line.x),
    ]
    low, high = min(xs), max(xs)
    pad = 0.04 * (high - low) or 0.5
    marks: list[Mark] = [Label((left + right) / 2, height - 8, chart.xlabel, 9)]
    for number, (name, series) in enumerate(chart.panels):
        upper = top + number * (tall + top)

        def at(x: float, y: float, upper: float = upper) -> Point:
            place = left + (x - low + pad) / (high - low + 2 * pad) * (right - left)
            return place, upper + (1 - y) * tall

        marks += [Label((left + right) / 2, upper - 9, name, 10)] if name else []
        marks += [Label(12, upper + tall / 2, chart.ylabel, 9, turn=90)]
        marks += [_box(left, upper, right - left, tall)]
        for step in range(6):
            _, y = at(low, step / 5)
            marks += [Shape([[(left, y), (left - 3.5, y)]])]
            marks += [Label(left - 5, y, f"{step / 5:.1f}", anchor="end")]
        half = at(low, 0.5)[1]
        marks += (
            [Shape([[(left, half), (right, half)]], "#808080", dash=":")] if chart.chance else []
        )
        for line in series:
            marks += _series(line, at)
        shown = -math.inf  # the right end of the last tick label written
        for x, text in chart.xticks:
            place, bottom = at(x, 0)
            marks += [Shape([[(place, bottom), (place, bottom + 3.5)]])]
            if number == len(chart.panels) - 1 and place - _room(text) / 2 > shown + 3:
                marks += [Label(place, bottom + 10, text)]
                shown = place + _room(text) / 2
    return width, height, marks, _legend(entries, title, right + 12, legend)


def _legend(entries: dict[str, Series | None], title: str, x: float, room: float) -> list[Mark]:
    """One entry a line (its look, then its label, cut to ``room``) from the top."""
    out: list[Mark] = [Label(x, 10, title, anchor="start")] if title else []
    most = max(round((room - 24) / (EM * FONT)), 4)
    for number, (label, line) in enumerate(entries.items()):
        y = (26.0 if title else 12.0) + 12 * number
        sample = [[(x, y), (x + 18, y)]]
        if line is None:
            out.append(Shape(sample, "#808080", dash=":"))
        else:
            out.append(Shape(sample, f"#{line.colour}", line.width, line.dash))
            out.append(_markers([(x + 9, y)], line.marker, f"#{line.colour}"))
        text = label if len(label) <= most else label[: most - 1] + "\u2026"
        out.append(Label(x + 22, y, text, anchor="start"))
    return out


def _grid(chart: Grid) -> tuple[float, float, list[Mark], list[Mark]]:
    """Each panel: its title, the cells with the row labels on the left, the column labels and
    the x label under them; one colour bar on the right, beside every panel."""
    rows, columns = len(chart.rows), len(chart.columns)
    left = 22 + max(_room(r) for r in chart.rows)
    width = min(72 * WIDTH, max(252, left + 32 * columns + 64))  # 3.5 to 6.8 inches
    cell = (width - left - 64) / columns
    tall = max(rows * 15.0, 72.0) / rows  # a row's height: at least an inch for all of them
    turn = math.sin(math.radians(35))
    under = 12 + (max(_room(c) for c in chart.columns) * turn if chart.rotate else 0) + 20
    top = 20.0 if any(t for t, _ in chart.panels) else 8.0
    step = top + rows * tall + under
    marks: list[Mark] = []
    for number, (name, values) in enumerate(chart.panels):
        upper = top + number * step
        bottom, middle = upper + rows * tall, left + cell * columns / 2
        marks += [Label(middle, upper - 9, name, 10)] if name else []
        marks += [Label(10, upper + rows * tall / 2, chart.ylabel, 9, turn=90)]
        marks += [Label(middle, upper + step - top - 8, chart.xlabel, 9)]
        for i, (label, row) in enumerate(zip(chart.rows, values, strict=True)):
            y = upper + i * tall
            marks += [Label(left - 5, y + tall / 2, label, anchor="end")]
            for j, value in enumerate(row):
                shade = None if math.isnan(value) else _colour(round(value * 255) / 255)
                marks += [_box(left + j * cell, y, cell, tall, shade)] if shade else []
                text = "" if chart.cells is None else format(value * chart.scale, chart.cells)
                if text and not math.isnan(value) and _room(text) + 2 < cell:
                    ink = "#000" if value > 0.6 else "#fff"
                    marks += [Label(left + (j + 0.5) * cell, y + tall / 2, text, colour=ink)]
        for j, label in enumerate(chart.columns):
            x = left + (j + 0.5) * cell
            turned = Label(x + 3, bottom + 6, label, anchor="end", turn=35)
            marks += [turned if chart.rotate else Label(x, bottom + 9, label)]
    high = top + (len(chart.panels) - 1) * step + rows * tall
    return width, high + under, marks + _bar(width - 52, top, high, chart.colour_label), []


def _bar(x: float, top: float, bottom: float, label: str) -> list[Mark]:
    """A colour bar from 0 (``bottom``) to 1 (``top``), 40 bands, ticks at every 0.2."""
    band = (bottom - top) / 40
    out: list[Mark] = [Label(x + 42, (top + bottom) / 2, label, 9, turn=90)]
    out += [
        _box(x, bottom - (n + 1) * band, 10, band + 0.3, _colour((n + 0.5) / 40)) for n in range(40)
    ]
    for step in range(6):
        y = bottom - step / 5 * (bottom - top)
        tick = Label(x + 15, y, f"{step / 5:.1f}", anchor="start")
        out += [Shape([[(x + 10, y), (x + 13, y)]]), tick]
    return out
