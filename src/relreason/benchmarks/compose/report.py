"""The compose benchmark's report section: accuracy by domain, hops, options and language
beside chance and the first-option baseline
(:func:`relreason.benchmarks.compose.analysis.compose_breakdown`), drawn as one heatmap."""

from __future__ import annotations

from relreason.analysis import figures
from relreason.analysis.sections import ReportInput, ReportSection, with_figure
from relreason.analysis.table import Table
from relreason.benchmarks.compose.analysis import compose_breakdown


def _breakdown(given: ReportInput) -> Table:
    return with_figure(
        compose_breakdown(given.runs),
        lambda d: figures.heatmap(
            d.assign(cell=d["by"] + " " + d["value"].astype(str)), ["model"], "cell"
        ),
    )


SECTIONS = (ReportSection("Compose", _breakdown),)
"""The compose sections of the report."""
