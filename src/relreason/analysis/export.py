"""Export every item of a folder of runs as one table (CSV or Parquet) with its run's metadata."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from relreason.analysis.load import load_runs
from relreason.errors import UsageError

EXPORT_FORMATS = ("csv", "parquet")


def items_table(directory: Path | str) -> pd.DataFrame:
    """Return one row per item with its run's metadata (list labels as JSON text)."""
    frame = load_runs(directory).items_with_runs()
    for column in frame.columns:
        if frame[column].map(lambda v: isinstance(v, list | dict)).any():
            frame[column] = frame[column].map(
                lambda v: json.dumps(v, ensure_ascii=False) if isinstance(v, list | dict) else v
            )
    return frame


def export_items(directory: Path | str, out: Path | str, format: str = "csv") -> Path:
    """Write every item under ``directory`` to ``out`` as ``csv`` or ``parquet``; return ``out``.

    Raises ``UsageError`` for an unknown format or when Parquet support (pyarrow) is missing.
    """
    if format not in EXPORT_FORMATS:
        raise UsageError(f"unknown export format {format!r}; valid: {', '.join(EXPORT_FORMATS)}")
    frame = items_table(directory)
    target = Path(out)
    if format == "csv":
        frame.to_csv(target, index=False)
        return target
    try:
        frame.to_parquet(target, index=False)
    except ImportError as error:
        raise UsageError(f"Parquet export needs pyarrow ({error})") from None
    return target
