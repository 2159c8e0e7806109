"""Build the whole report over a folder of runs: every analysis the runs allow, each with its
figure, or the reason it is not possible; and print it (rich) or write it as text formats.

The report is one loop: the general sections (runs, beside the papers), then each registered
benchmark's own (``Benchmark.report_sections``, in registration order), then the general audits
(option orders, reader, positions, statuses). Every section is a pure function over the runs
(:mod:`relreason.analysis.sections`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from relreason import benchmarks
from relreason.analysis import audits, figures, permutations
from relreason.analysis.load import Runs, load_runs
from relreason.analysis.sections import ReportInput, ReportSection, with_figure
from relreason.analysis.table import NotPossible, Table, display_rows, format_table, tidy_csv
from relreason.report import overview, paper
from relreason.report.texts import attach_texts


@dataclass
class Section:
    """One analysis of the report: its table, or the reason it could not be made."""

    title: str
    table: Table | None = None
    reason: str | None = None


@dataclass
class Report:
    """Every analysis over one folder of runs."""

    runs: Runs
    compare: dict[str, str] = field(default_factory=dict)
    sections: list[Section] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def tables(self) -> list[Table]:
        """Return the tables that could be made."""
        return [s.table for s in self.sections if s.table is not None]

    def format(self, fmt: str) -> str:
        """Return every table in ``fmt`` (markdown, csv, latex, json) with the reasons of the
        missing analyses (as comments in latex/json-lines). ``csv`` is one long tidy table
        with a ``table`` column (the table's key) that ``pandas.read_csv`` reads; see
        :meth:`write_csv` for one file per table."""
        if fmt == "csv":
            frames = [t.data.assign(table=t.key) for t in self.tables() if not t.data.empty]
            if not frames:
                return "table\n"
            long = pd.concat(frames, ignore_index=True)
            return tidy_csv(Table("all", "", long[["table", *long.columns.drop("table")]]))
        parts = []
        for section in self.sections:
            if section.table is not None:
                parts.append(format_table(section.table, fmt))
            else:
                mark = "%" if fmt == "latex" else "#"
                line = f"{section.title}: not possible ({section.reason})"
                parts.append(f"> {line}\n" if fmt == "markdown" else f"{mark} {line}\n")
        return "\n".join(parts)

    def write_csv(self, folder: Path | str) -> list[Path]:
        """Write one tidy CSV per table into ``folder`` (``<key>.csv``) and ``index.csv``
        (table, title, file, rows, note, reason: every section, made or not); each file is
        written atomically. Returns the paths written."""
        from relreason.files import atomic_write_text

        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        index: list[dict[str, Any]] = []
        for section in self.sections:
            table = section.table
            if table is None:
                index.append({"table": None, "title": section.title, "reason": section.reason})
                continue
            path = out / f"{table.key}.csv"
            atomic_write_text(path, tidy_csv(table))
            written.append(path)
            row = {"table": table.key, "title": table.title, "file": path.name}
            index.append({**row, "rows": len(table.data), "note": table.note})
        columns = ["table", "title", "file", "rows", "note", "reason"]
        atomic_write_text(
            out / "index.csv",
            pd.DataFrame(index, columns=columns).astype({"rows": "Int64"}).to_csv(index=False),
        )
        return [*written, out / "index.csv"]

    def write_figures(self, folder: Path | str) -> list[Path]:
        """Write every table's figure into ``folder`` as ``<key>.svg``, ``.pdf`` and ``.png``
        (each atomically); return the paths written."""
        from relreason.analysis.figure_files import save_figure

        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        for table in self.tables():
            chart = table.plot() if table.plot is not None else None
            if chart is not None:
                written += save_figure(chart, out / table.key)
        return written

    def print(self, console: object | None = None, max_rows: int = 40) -> None:
        """Print every table to the terminal with rich (at most ``max_rows`` rows each). A
        table wider than the terminal is printed one row per block (column: value); when the
        output is not a terminal (piped), each table gets the width it needs."""
        from rich.console import Console

        out = console if isinstance(console, Console) else Console()
        for section in self.sections:
            if section.table is None:
                out.print(
                    f"[bold]{section.title}[/]: [dim]not possible: {section.reason}[/]",
                    soft_wrap=not out.is_terminal,
                )
                continue
            print_table(out, section.table, max_rows)


def print_table(out: Any, table: Table, max_rows: int = 40) -> None:
    """Print ``table`` on the rich console ``out`` keeping every column whole (see
    :meth:`Report.print`)."""
    from rich.table import Table as RichTable
    from rich.text import Text

    frame = table.display
    cells = display_rows(table)[:max_rows]
    shown = RichTable(title=table.title, title_justify="left")
    for column in frame.columns:
        shown.add_column(str(column), no_wrap=True)
    for row in cells:  # as text: a cell's brackets are not rich markup
        shown.add_row(*(Text(cell) for cell in row))
    needed = out.measure(shown, options=out.options.update(width=100_000)).maximum
    if needed <= out.width:
        out.print(shown)
    elif not out.is_terminal:  # piped: as wide as the table needs
        from rich.console import Console

        Console(file=out.file, width=needed, color_system=None).print(shown)
    else:
        out.print(f"[bold]{table.title}[/]")
        for number, row in enumerate(cells, start=1):
            out.print(f"[dim]-- row {number}[/]", highlight=False)
            for column, value in zip(frame.columns, row, strict=True):
                out.print(f"  {column}: {value}", highlight=False, soft_wrap=True)
    if len(frame) > max_rows:
        out.print(f"[dim]... {len(frame) - max_rows} more rows[/]")
    if table.note:
        out.print(f"[dim]{table.note}[/]", soft_wrap=not out.is_terminal)


def _positions(given: ReportInput) -> Table:
    table = permutations.positions(given.runs)
    return with_figure(table, lambda d: figures.heatmap(d, ["run"], "position", y="chosen"))


def _position_audit(given: ReportInput) -> Table:
    table = audits.position_audit(given.runs)
    return with_figure(table, lambda d: figures.heatmap(d, ["run"], "letter", y="chosen"))


FIRST = (
    ReportSection("Runs", lambda given: overview.runs_accuracy(given.runs)),
    ReportSection(
        "Beside the papers", lambda given: paper.beside_papers(given.runs, given.compare)
    ),
)
"""The general sections before the benchmarks' own."""

LAST = (
    ReportSection("Option orders", lambda given: permutations.order_accuracy(given.runs)),
    ReportSection("Option positions", _positions),
    ReportSection("Reader audit", lambda given: audits.reader_audit(given.runs)),
    ReportSection("Position audit", _position_audit),
    ReportSection("Status counts", lambda given: audits.status_counts(given.runs)),
)
"""The general sections after the benchmarks' own."""


def report_sections() -> list[ReportSection]:
    """Return every section of the report, in order: :data:`FIRST`, each registered
    benchmark's own (``Benchmark.report_sections``), :data:`LAST`."""
    own = [s for benchmark in benchmarks.all_benchmarks() for s in benchmark.report_sections()]
    return [*FIRST, *own, *LAST]


def make_section(section: ReportSection, given: ReportInput) -> Section:
    """Return ``section`` made from ``given``: its table, or why it is not possible."""
    try:
        return Section(section.title, table=section.make(given))
    except NotPossible as reason:
        return Section(section.title, reason=str(reason))


def build_report(
    runs_dir: Path | str | Runs,
    compare: Mapping[str, str] | None = None,
    *,
    sizes: Mapping[str, float] | None = None,
    data_dir: Path | str | None = None,
    reference: str | None = None,
    texts: bool = True,
) -> Report:
    """Run every analysis over the runs under ``runs_dir`` (or already loaded ``Runs``).

    ``compare`` maps a run's model spec to a paper model (validated: ``UsageError`` listing the
    valid names). ``sizes`` maps specs to parameter counts (scaling trends). ``data_dir`` is where
    prompts and the benchmarks' item texts (``Benchmark.item_texts``: MCR's questions) are
    rebuilt from (``texts=False`` skips that). ``reference`` is the model the MCR agreement
    table pairs the others with (all pairs when None).
    """
    runs = runs_dir if isinstance(runs_dir, Runs) else load_runs(runs_dir)
    report = Report(runs, paper.check_compare(runs, compare))
    if texts:
        report.notes += attach_texts(runs, data_dir)
    given = ReportInput(runs, report.compare, sizes, reference)
    report.sections = [make_section(section, given) for section in report_sections()]
    return report
