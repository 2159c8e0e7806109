"""The analysis library: folders of runs read as :class:`Runs`, statistics, breakdowns,
tables and figures, exports for notebooks and two runs item by item (``compare``). It knows no
benchmark by name and imports only ``records/`` and the base modules: each benchmark's analyses
are in its package (``benchmarks/<name>/analysis.py``), the report that loops over the registered
benchmarks in :mod:`relreason.report`. A benchmark's report sections are
:class:`ReportSection` values.

    >>> from relreason.analysis import load_runs
    >>> runs = load_runs("runs/table9")          # runs.runs, runs.items: pandas data frames

The names below are imported on first use (pandas and matplotlib are slow to import).
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "compare_runs": "relreason.analysis.compare",
    "export_items": "relreason.analysis.export",
    "items_table": "relreason.analysis.export",
    "Runs": "relreason.analysis.load",
    "load_runs": "relreason.analysis.load",
    "ReportInput": "relreason.analysis.sections",
    "ReportSection": "relreason.analysis.sections",
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
