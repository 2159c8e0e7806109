"""A paper's table beside the runs: a CSV file shipped in a benchmark's package
(``reference_csv``) and a figure set beside a row of a table (``set_cell``). The registered
benchmarks' figures beside the runs are in :mod:`relreason.report.paper`."""

from __future__ import annotations

import io
from importlib import resources

import pandas as pd

from relreason.analysis.table import Table


def reference_csv(package: str, name: str) -> pd.DataFrame:
    """Return the CSV file ``name`` shipped in ``package`` (a paper's table) as a data frame."""
    text = resources.files(package).joinpath(name).read_text("utf-8")
    return pd.read_csv(io.StringIO(text))


def set_cell(table: Table, position: int, column: str, value: object) -> None:
    """Set ``column`` of row ``position`` to ``value`` in ``table``'s data and shown frames
    (adding the column when new): how a paper's figure is put beside a row."""
    table.data.loc[table.data.index[position], column] = value
    if table.shown is not None:
        table.shown.loc[table.shown.index[position], column] = value
