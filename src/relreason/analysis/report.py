"""Build the whole report over a folder of runs: every analysis the runs allow, each with its
figure, or the reason it is not possible; and print it (rich) or write it as text formats."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from relreason.analysis import audits, compose, convre, mcr, overview, paper, permutations, scaling
from relreason.analysis.load import Runs, load_runs
from relreason.analysis.published import add_paper_columns
from relreason.analysis.table import NotPossible, Table, display_rows, format_table, tidy_csv
from relreason.analysis.texts import attach_texts

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class _Figures:
    """The figures module, imported on first use (matplotlib is slow to import)."""

    def __getattr__(self, name: str) -> Any:
        from relreason.analysis import figures as module

        return getattr(module, name)


figures = _Figures()


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
        from relreason.analysis.figures import save_figure

        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        for table in self.tables():
            if table.plot is not None:
                written += save_figure(table.plot(), out / table.key)
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

    frame = table.display
    cells = display_rows(table)[:max_rows]
    shown = RichTable(title=table.title, title_justify="left")
    for column in frame.columns:
        shown.add_column(str(column), no_wrap=True)
    for row in cells:
        shown.add_row(*row)
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


def _try(report: Report, title: str, make: Callable[[], Table]) -> Table | None:
    try:
        table = make()
    except NotPossible as reason:
        report.sections.append(Section(title, reason=str(reason)))
        return None
    report.sections.append(Section(title, table=table))
    return table


def _with_figure(table: Table, draw: Callable[[pd.DataFrame], Figure]) -> Table:
    """Give ``table`` its figure, drawn from its data when first asked for (HTML, files)."""
    if not table.data.empty:
        data = table.data
        table.plot = lambda: draw(data)
    return table


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
    prompts and MCR questions are rebuilt from (``texts=False`` skips that). ``reference`` is the
    model the MCR agreement table pairs the others with (all pairs when None).
    """
    runs = runs_dir if isinstance(runs_dir, Runs) else load_runs(runs_dir)
    report = Report(runs, paper.check_compare(runs, compare))
    if texts:
        report.notes += attach_texts(runs, data_dir)
    published = paper.published()
    _try(report, "Runs", lambda: overview.runs_accuracy(runs))
    _try(report, "Beside the papers", lambda: paper.beside_papers(runs, report.compare))

    mapped = {m.lower() for m in report.compare.values()}
    convre_paper = published[(published["benchmark"] == "convre")]
    shown_paper = (
        convre_paper[convre_paper["model"].str.lower().isin(mapped)] if mapped else convre_paper
    )
    t9 = _try(report, "ConvRe Table 9", lambda: convre.table9(runs))
    if t9 is not None:
        _with_figure(t9, lambda d: figures.lines_by_setting(d, shown_paper))
    _try(report, "ConvRe contrasts", lambda: convre.contrasts(runs))
    for label in ("relation", "source"):
        table = _try(report, f"ConvRe per {label}", functools.partial(convre.by_label, runs, label))
        if table is not None and label == "source":
            _with_figure(table, lambda d: figures.heatmap(d, ["run_id"], "source"))
    _try(report, "ConvRe Table 6", lambda: convre.subset_vs_full(runs))
    _try(report, "ConvRe Table 7", lambda: convre.neutral_vs_normal(runs))
    _try(report, "ConvRe Table 8", lambda: convre.wrong_overlap(runs))
    ours = scaling.run_points(runs, sizes)
    points = pd.concat(
        [ours, scaling.paper_points(convre_paper.to_dict("records"))], ignore_index=True
    )
    if runs.of("convre").runs.empty:
        report.sections.append(Section("ConvRe scaling", reason="no ConvRe run in the folder"))
    else:
        trends = _try(report, "ConvRe scaling", lambda: scaling.scaling_trends(points))
        if trends is not None:
            trends.plot = lambda: figures.scaling_grid(points)
            if ours.empty:
                trends.note += (
                    " No run has a known model size (give sizes, or use models whose names "
                    "state them, e.g. ...-135M): only the paper's figures are classified."
                )

    t4 = _try(report, "MCR Table 4", lambda: mcr.table4(runs))
    if t4 is not None:
        _with_figure(t4, lambda d: figures.heatmap(d, ["model", "method"], "language"))
    categories = _try(
        report, "MCR per category", lambda: convre.by_label(runs, "categories", "mcr")
    )
    if categories is not None:
        _with_figure(categories, lambda d: figures.heatmap(d, ["run_id"], "categories"))
    counts = _try(report, "MCR relations", lambda: mcr.relation_counts(runs))
    if counts is not None:
        _with_figure(
            counts, lambda d: figures.lines(d, "n_relations", ["model", "language", "method"])
        )
    _try(report, "MCR Table 5", lambda: mcr.agreement(runs, reference))
    _try(report, "MCR Table 6", lambda: mcr.exemplar_ablation(runs))
    _try(report, "MCR options", lambda: mcr.by_options(runs))

    made = _try(report, "Compose", lambda: compose.compose_breakdown(runs))
    if made is not None:
        _with_figure(
            made,
            lambda d: figures.heatmap(
                d.assign(cell=d["by"] + " " + d["value"].astype(str)), ["model"], "cell"
            ),
        )
    _try(report, "Option orders", lambda: permutations.order_accuracy(runs))
    chosen = _try(report, "Option positions", lambda: permutations.positions(runs))
    if chosen is not None:
        _with_figure(chosen, lambda d: figures.heatmap(d, ["run"], "position", y="chosen"))

    _try(report, "Reader audit", lambda: audits.reader_audit(runs))
    position = _try(report, "Position audit", lambda: audits.position_audit(runs))
    if position is not None:
        _with_figure(position, lambda d: figures.heatmap(d, ["run"], "letter", y="chosen"))
    _try(report, "Status counts", lambda: audits.status_counts(runs))
    by_label = {
        row.model: report.compare[row.spec]
        for row in runs.runs.itertuples()
        if row.spec in report.compare
    }
    for table in report.tables():
        add_paper_columns(table, by_label)
    return report
