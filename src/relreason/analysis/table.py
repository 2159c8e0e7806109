"""One analysis result: a titled table (for display and for machines), with an optional figure,
a drill-down from its cells to the items behind them, and the formats it can be written in."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from relreason.errors import UsageError

if TYPE_CHECKING:
    from relreason.analysis.figures import Chart

FORMATS = ("markdown", "csv", "latex", "json")
_NUMBER = re.compile(r"^[<+-]?\d+(\.\d+)?( \*)?$")


class NotPossible(Exception):
    """Raised by an analysis that the given runs do not allow; ``str()`` says why."""


@dataclass(frozen=True)
class Drill:
    """The items behind a cell: these runs, restricted to items whose ``where`` fields match
    (a list-valued field matches when it holds the value) and, when ``ids`` is given, to those
    item ids."""

    runs: tuple[str, ...]
    where: tuple[tuple[str, Any], ...] = ()
    ids: tuple[str, ...] | None = None  # only these item ids (e.g. the discordant ones of a pair)

    def to_json(self) -> dict[str, Any]:
        """Return the drill-down as a JSON-ready dict."""
        data: dict[str, Any] = {
            "runs": list(self.runs),
            "where": {k: _plain(v) for k, v in self.where},
        }
        if self.ids is not None:
            data["ids"] = list(self.ids)
        return data


@dataclass
class Table:
    """An analysis result. ``data``: tidy numbers (csv/json); ``shown``: the display table
    (markdown/latex/terminal/HTML; ``data`` when None). ``drill`` maps (row position in
    ``shown``, column name) to the items behind that cell."""

    key: str
    title: str
    data: pd.DataFrame
    shown: pd.DataFrame | None = None
    note: str = ""
    drill: dict[tuple[int, str], Drill] = field(default_factory=dict)
    figure: str | None = None  # inline SVG text (made from ``plot`` on first use)
    plot: Callable[[], Chart | None] | None = field(default=None, repr=False)
    """The table's figure, made from its data (None: it has nothing to draw)."""

    def figure_svg(self) -> str | None:
        """Return the table's figure as inline SVG, written once, then kept; None when it has
        none (no ``plot``, or nothing to draw)."""
        if self.figure is None and self.plot is not None:
            from relreason.analysis.svg import to_svg

            chart = self.plot()
            self.figure = "" if chart is None else to_svg(chart)
        return self.figure or None

    @property
    def display(self) -> pd.DataFrame:
        """The table as shown to a person."""
        return self.data if self.shown is None else self.shown


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


def is_p_column(name: Any) -> bool:
    """Whether a column holds p-values (``p``, ``p_mcnemar``, ``p (...)``)."""
    text = str(name)
    return text == "p" or text.startswith(("p_", "p "))


def number_text(value: float, digits: int = 3, *, signed: bool = False) -> str:
    """Return ``value`` to ``digits`` places, never as ``-0.000`` (a value that rounds to zero
    is ``0.000``, or ``+0.000`` when ``signed``); NaN is ``-``."""
    if math.isnan(value):
        return "-"
    text = f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"
    if float(text) == 0:
        text = ("+" if signed else "") + f"{0:.{digits}f}"
    return text


def p_text(value: float) -> str:
    """Return a p-value as papers write it: ``<0.001`` below 0.001, else three places."""
    if math.isnan(value):
        return "-"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def cell_text(value: Any, digits: int = 3, column: Any = None) -> str:
    """Return a cell as text: floats to ``digits`` places (no ``-0.000``; p-values of a
    ``column`` named ``p``/``p_...`` as ``<0.001``), flags as yes/no, missing values as ``-``."""
    value = _plain(value)
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return p_text(value) if is_p_column(column) else number_text(value, digits)
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def display_rows(table: Table) -> list[list[str]]:
    """Return the display table's cells as text, row by row (see :func:`cell_text`)."""
    frame = table.display
    columns = list(frame.columns)
    return [
        [cell_text(v, column=c) for v, c in zip(row, columns, strict=True)]
        for row in frame.itertuples(False)
    ]


_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "_": r"\_",
    "#": r"\#",
    "$": r"\$",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX.get(c, c) for c in text)


def to_markdown(table: Table) -> str:
    """Return the display table as a GitHub-flavoured markdown table (title and note around)."""
    head = [str(c) for c in table.display.columns]
    rows = [[v.replace("|", "\\|") for v in row] for row in display_rows(table)]
    lines = [f"### {table.title}", "", "| " + " | ".join(head) + " |"]
    lines.append("|" + "|".join("---" for _ in head) + "|")
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    if table.note:
        lines += ["", table.note]
    return "\n".join(lines) + "\n"


def _numeric(cells: list[str]) -> bool:
    shown = [c for c in cells if c != "-"]
    return bool(shown) and all(_NUMBER.match(c) for c in shown)


LATEX_ROWS = 30
"""The most rows one LaTeX float holds: with its caption it fits a page (a longer table is
split into floats of this many rows, each on a page of its own)."""


def to_latex(table: Table) -> str:
    r"""Return the display table as booktabs ``tabular``s (numbers right-aligned), each inside
    a ``table`` float that fits a page: no wider than the line (``\resizebox`` shrinks a
    wider one to the line's width, never enlarges one), at most :data:`LATEX_ROWS` rows (a
    longer table continues in further floats, each after a ``\clearpage``, its header
    repeated). The first float has the caption (title and note) and the label ``tab:<key>``.
    It needs ``\usepackage{booktabs}`` and ``\usepackage{graphicx}``."""
    frame = table.display
    rows = display_rows(table)
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in frame.columns]
    spec = "".join("r" if _numeric(list(c)) else "l" for c in columns)
    head = " & ".join(_latex_escape(str(c)) for c in frame.columns) + r" \\"
    chunks = [rows[start : start + LATEX_ROWS] for start in range(0, len(rows), LATEX_ROWS)]
    lines = [r"% needs \usepackage{booktabs} and \usepackage{graphicx}"]
    for number, chunk in enumerate(chunks or [[]]):
        if number == 0:
            caption = table.title + (f". {table.note}" if table.note else "")
            label = rf"\label{{tab:{table.key}}}"
            place = "tbp" if len(chunks) <= 1 else "p"
        else:
            first = number * LATEX_ROWS + 1
            caption = f"{table.title} (continued: rows {first}-{first + len(chunk) - 1})"
            label = ""
            lines.append(r"\clearpage")
        lines += [
            rf"\begin{{table}}[{place}]",
            r"\centering",
            rf"\caption{{{_latex_escape(caption)}}}{label}",
            r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
            rf"\begin{{tabular}}{{{spec}}}",
            r"\toprule",
            head,
            r"\midrule",
        ]
        lines += [" & ".join(_latex_escape(v) for v in row) + r" \\" for row in chunk]
        lines += [r"\bottomrule", r"\end{tabular}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_json(table: Table) -> dict[str, Any]:
    """Return the table as a JSON-ready dict (key, title, note, rows of ``data``)."""
    rows = [{str(k): _plain(v) for k, v in row.items()} for row in table.data.to_dict("records")]
    return {"key": table.key, "title": table.title, "note": table.note, "rows": rows}


def tidy_csv(table: Table) -> str:
    """Return the table's tidy numbers (``data``) as one CSV table that ``pandas.read_csv``
    reads (lists and dicts as JSON text)."""
    return str(json_cells(table.data).to_csv(index=False))


def json_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """Return ``frame`` with list and dict cells written as JSON text (for CSV and Parquet)."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object and out[column].map(_is_nested).any():
            out[column] = out[column].map(
                lambda v: json.dumps(plain_deep(v), ensure_ascii=False) if _is_nested(v) else v
            )
    return out


def _is_nested(value: Any) -> bool:
    return isinstance(value, list | tuple | dict)


def plain_deep(value: Any) -> Any:
    """A value as plain JSON-ready Python: NumPy values as Python's, NaN as None, lists, tuples
    and dicts (keys as text) element by element."""
    if isinstance(value, dict):
        return {str(k): plain_deep(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_deep(v) for v in value]
    return _plain(value)


def format_table(table: Table, fmt: str) -> str:
    """Return ``table`` in ``fmt`` (markdown, csv, latex or json).

    Raises ``UsageError`` listing the formats for an unknown one.
    """
    if fmt == "markdown":
        return to_markdown(table)
    if fmt == "latex":
        return to_latex(table)
    if fmt == "csv":
        return tidy_csv(table)
    if fmt == "json":
        return json.dumps(to_json(table), ensure_ascii=False, indent=1) + "\n"
    raise UsageError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
