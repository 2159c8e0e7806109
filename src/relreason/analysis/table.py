"""One analysis result: a titled table (for display and for machines), with an optional figure,
a drill-down from its cells to the items behind them, and the formats it can be written in."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from relreason.errors import UsageError

FORMATS = ("markdown", "csv", "latex", "json")


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
    figure: str | None = None  # inline SVG text

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


def cell_text(value: Any, digits: int = 3) -> str:
    """Return a cell as text: floats to ``digits`` places, missing values as ``-``."""
    value = _plain(value)
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


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
    frame = table.display
    head = [str(c) for c in frame.columns]
    rows = [[cell_text(v).replace("|", "\\|") for v in row] for row in frame.itertuples(False)]
    lines = [f"### {table.title}", "", "| " + " | ".join(head) + " |"]
    lines.append("|" + "|".join("---" for _ in head) + "|")
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    if table.note:
        lines += ["", table.note]
    return "\n".join(lines) + "\n"


def to_latex(table: Table) -> str:
    """Return the display table as a LaTeX ``tabular`` inside a ``table`` with a caption."""
    frame = table.display
    spec = "l" * len(frame.columns)
    lines = [r"\begin{table}[t]", r"\centering", rf"\begin{{tabular}}{{{spec}}}", r"\hline"]
    lines.append(" & ".join(_latex_escape(str(c)) for c in frame.columns) + r" \\ \hline")
    for row in frame.itertuples(False):
        lines.append(" & ".join(_latex_escape(cell_text(v)) for v in row) + r" \\")
    caption = table.title + (f". {table.note}" if table.note else "")
    lines += [r"\hline", r"\end{tabular}", rf"\caption{{{_latex_escape(caption)}}}"]
    return "\n".join([*lines, r"\end{table}"]) + "\n"


def to_json(table: Table) -> dict[str, Any]:
    """Return the table as a JSON-ready dict (key, title, note, rows of ``data``)."""
    rows = [{str(k): _plain(v) for k, v in row.items()} for row in table.data.to_dict("records")]
    return {"key": table.key, "title": table.title, "note": table.note, "rows": rows}


def format_table(table: Table, fmt: str) -> str:
    """Return ``table`` in ``fmt`` (markdown, csv, latex or json).

    Raises ``UsageError`` listing the formats for an unknown one.
    """
    if fmt == "markdown":
        return to_markdown(table)
    if fmt == "latex":
        return to_latex(table)
    if fmt == "csv":
        return str(table.data.to_csv(index=False))
    if fmt == "json":
        return json.dumps(to_json(table), ensure_ascii=False, indent=1) + "\n"
    raise UsageError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
