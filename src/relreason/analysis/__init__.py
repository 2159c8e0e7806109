"""The papers' analyses over folders of runs, the report (terminal, text formats, one HTML file)
and exports for notebooks; also plain rows of runs (``runs_table``) beside the papers' figures
(``paper``) and two runs item by item (``compare``).

The analyses are pure functions over :class:`Runs`; the report is one loop over the general
sections and every registered benchmark's own (``Benchmark.report_sections``, each a
:class:`ReportSection`).

    >>> from relreason.analysis import load_runs, build_report, render_html
    >>> runs = load_runs("runs/table9")          # runs.runs, runs.items: pandas data frames
    >>> report = build_report("runs/table9", {"openai:gpt-4": "gpt-4"})
    >>> render_html(report, "report.html")

The names below are imported on first use (pandas and matplotlib are slow to import).
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "compare_runs": "relreason.analysis.compare",
    "export_items": "relreason.analysis.export",
    "items_table": "relreason.analysis.export",
    "render_html": "relreason.analysis.html",
    "Runs": "relreason.analysis.load",
    "load_runs": "relreason.analysis.load",
    "Report": "relreason.analysis.report",
    "ReportInput": "relreason.analysis.sections",
    "ReportSection": "relreason.analysis.sections",
    "Section": "relreason.analysis.report",
    "build_report": "relreason.analysis.report",
    "beside_paper": "relreason.analysis.paper",
    "collect": "relreason.analysis.runs_table",
    "FORMATS": "relreason.analysis.table",
    "Drill": "relreason.analysis.table",
    "NotPossible": "relreason.analysis.table",
    "Table": "relreason.analysis.table",
    "format_table": "relreason.analysis.table",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use."""
    if name not in _WHERE:
        raise AttributeError(f"module 'relreason.analysis' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
