"""Accuracy summaries of scored records, and an atomic JSON-lines writer."""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from relreason.errors import RelreasonError

STATUSES = ("correct", "wrong", "unparseable", "no_answer", "failed")


def write_jsonl_atomic(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Write rows as JSON lines to ``path`` via a temp file and ``os.replace``.

    Raises ``RelreasonError`` when the folder is missing or not writable; nothing is left behind.
    """
    folder = path.resolve().parent
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise RelreasonError(f"cannot write {path}: {error.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def summarize(records: Iterable[Mapping[str, Any]], *, n_items: int) -> dict[str, Any]:
    """Count statuses and compute accuracy over the scored records.

    ``accuracy`` is correct / scored records; ``coverage`` is scored records / ``n_items``.
    Unreadable, empty and failed outputs are counted apart from wrong answers.
    """
    rows = list(records)
    counts = Counter(str(r["status"]) for r in rows)
    n = len(rows)
    return {
        "n": n,
        "n_items": n_items,
        "accuracy": (counts["correct"] / n) if n else None,
        "coverage": (n / n_items) if n_items else None,
        "counts": {status: counts.get(status, 0) for status in STATUSES},
    }


def format_summary(name: str, summary: Mapping[str, Any]) -> str:
    """A short human-readable summary: accuracy and every status count."""
    accuracy = summary["accuracy"]
    shown = "n/a" if accuracy is None else f"{accuracy:.4f}"
    counts = ", ".join(f"{k} {v}" for k, v in summary["counts"].items())
    return f"{name}: accuracy {shown} over {summary['n']} of {summary['n_items']} items ({counts})"
