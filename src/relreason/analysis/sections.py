"""What a report section is: a title and a pure function from :class:`ReportInput` (the runs
and the report's options) to a :class:`~relreason.analysis.table.Table`, raising
:class:`~relreason.analysis.table.NotPossible` when the runs do not allow it.

A benchmark declares its sections (``Benchmark.report_sections``); the report
(:func:`relreason.report.report.build_report`) makes the general ones and every registered
benchmark's, in registration order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from relreason.analysis.figures import Chart
    from relreason.analysis.load import Runs
    from relreason.analysis.table import Table


@dataclass(frozen=True)
class ReportInput:
    """What every section is made from: the runs, ``compare`` (run model spec -> paper model,
    already checked), ``sizes`` (spec -> parameters, for scaling trends) and ``reference`` (the
    model agreement tables pair the others with; all pairs when None)."""

    runs: Runs
    compare: Mapping[str, str] = field(default_factory=dict)
    sizes: Mapping[str, float] | None = None
    reference: str | None = None

    def paper_models(self) -> dict[str, str]:
        """Return model label (as tables name a run's model) -> paper model, for the runs whose
        spec ``compare`` maps."""
        return {
            row.model: self.compare[row.spec]
            for row in self.runs.runs.itertuples()
            if row.spec in self.compare
        }


@dataclass(frozen=True)
class ReportSection:
    """One section of the report: its ``title`` and ``make``, the pure function that builds its
    table from a :class:`ReportInput` (``NotPossible`` saying why when it cannot)."""

    title: str
    make: Callable[[ReportInput], Table]


def with_figure(table: Table, draw: Callable[[pd.DataFrame], Chart | None]) -> Table:
    """Give ``table`` its figure, made from its data when first asked for (HTML, files);
    return the table. A table without data gets none (nor one whose ``draw`` finds nothing to
    draw: it returns None)."""
    if not table.data.empty:
        data = table.data
        table.plot = lambda: draw(data)
    return table
