"""Bridges to other evaluation harnesses: relreason's cells as lm-evaluation-harness tasks and
inspect_ai tasks, and those harnesses' logs read back into relreason run folders.

``cells`` names a cell (a benchmark under one setting) and turns it into a ``Task``; ``docs``
turns an item into the plain document both harnesses read; ``lm_eval_export`` writes lm-eval
task files; ``lm_eval_log`` and ``inspect_log`` read those harnesses' outputs back; ``imported``
writes a run folder from what was read. The inspect_ai tasks themselves live in
``relreason.inspect`` (extra ``[inspect]``).

Public face: ``Cell``, ``parse_cell``, ``export_lm_eval``, ``read_lm_eval_samples``,
``read_inspect_log``, ``ImportedRun``, ``write_imported_run``.
"""

from relreason.bridges.cells import Cell, parse_cell
from relreason.bridges.imported import ImportedRun, write_imported_run
from relreason.bridges.inspect_log import read_inspect_log
from relreason.bridges.lm_eval_export import export_lm_eval
from relreason.bridges.lm_eval_log import read_lm_eval_samples

__all__ = [
    "Cell",
    "ImportedRun",
    "export_lm_eval",
    "parse_cell",
    "read_inspect_log",
    "read_lm_eval_samples",
    "write_imported_run",
]
