"""Export every item of a folder of runs as one table (CSV or Parquet) with its run's metadata."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from relreason.analysis.load import load_runs
from relreason.analysis.table import json_cells
from relreason.errors import UsageError
from relreason.files import atomic_write_bytes, atomic_write_text

EXPORT_FORMATS = ("csv", "parquet")


def items_table(directory: Path | str) -> pd.DataFrame:
    """Return one row per item with its run's metadata: the record's reading, output, prompt,
    usage (``prompt_tokens``, ``completion_tokens``), ``latency_s``, ``attempts``, ``cached``,
    ``choice_logprobs``/``top_logprobs``, ``sent_as``, ``served_model``, the official reading and
    the labels (lists, dicts and chat messages as JSON text)."""
    frame = json_cells(load_runs(directory).items_with_runs())
    for column in ("sent_as",):  # text or messages: one type per column for Parquet
        if column in frame:
            frame[column] = frame[column].map(
                lambda v: (
                    v if v is None or isinstance(v, str) else json.dumps(v, ensure_ascii=False)
                )
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
        atomic_write_text(target, frame.to_csv(index=False))
        return target
    try:
        data = frame.to_parquet(index=False)
    except ImportError as error:
        raise UsageError(f"Parquet export needs pyarrow ({error})") from None
    atomic_write_bytes(target, data)
    return target
