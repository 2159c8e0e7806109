"""The papers' analyses over folders of runs, the report (terminal, text formats, one HTML file)
and exports for notebooks.

    >>> from relreason.analysis import load_runs, build_report, render_html
    >>> runs = load_runs("runs/table9")          # runs.runs, runs.items: pandas data frames
    >>> report = build_report("runs/table9", {"openai:gpt-4": "gpt-4"})
    >>> render_html(report, "report.html")
"""

from relreason.analysis.export import export_items, items_table
from relreason.analysis.html import render_html
from relreason.analysis.load import Runs, load_runs
from relreason.analysis.report import Report, Section, build_report
from relreason.analysis.table import FORMATS, Drill, NotPossible, Table, format_table

__all__ = [
    "FORMATS",
    "Drill",
    "NotPossible",
    "Report",
    "Runs",
    "Section",
    "Table",
    "build_report",
    "export_items",
    "format_table",
    "items_table",
    "load_runs",
    "render_html",
]
