"""The report, above the runs: every analysis the runs allow for the general sections and every
registered benchmark's own (``Benchmark.report_sections``), in the terminal, text formats and
one HTML file; the runs beside the papers' figures (``paper``) and the runs table's overview
(``overview``). The only part of relreason's analyses that loops over the benchmark registry.

    >>> from relreason.analysis import load_runs
    >>> from relreason.report import build_report, render_html
    >>> report = build_report("runs/table9", {"openai:gpt-4": "gpt-4"})
    >>> render_html(report, "report.html")

The names below are imported on first use (pandas and matplotlib are slow to import).
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "render_html": "relreason.report.html",
    "Report": "relreason.report.report",
    "Section": "relreason.report.report",
    "build_report": "relreason.report.report",
    "beside_paper": "relreason.report.paper",
    "check_compare": "relreason.report.paper",
    "collect": "relreason.run.runs_table",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use."""
    if name not in _WHERE:
        raise AttributeError(f"module 'relreason.report' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
