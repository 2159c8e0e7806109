"""lm-eval's ``process_results`` for the ``generate_until`` tasks relreason exports: the
generated text read by the cell's own reader (``acc``) and by its second rule (``acc_alt``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from relreason.bridges.cells import task_from_key
from relreason.bridges.docs import doc_item
from relreason.types import Response, Task


@functools.cache
def _task(key: str, data_dir: str | None) -> Task:
    return task_from_key(key, Path(data_dir) if data_dir else None)


def read_generation(doc: Mapping[str, Any], text: str, data_dir: str | None) -> dict[str, float]:
    """Read one generated ``text`` for the document ``doc``: ``acc`` by the task's reader,
    ``acc_alt`` by its second rule (0 when it has none)."""
    task = _task(str(doc.get("relreason_cell")), data_dir)
    item = doc_item(task, doc, "lm-eval document", f"index {doc.get('index')}")
    response = Response(text=text)
    reading = task.scorer(item, response)
    alt = task.alt_scorer(item, response) if task.alt_scorer is not None else None
    return {"acc": float(reading.correct), "acc_alt": float(alt.correct) if alt else 0.0}


def make_process_results(
    data_dir: str | None,
) -> Callable[[Mapping[str, Any], Sequence[Any]], dict[str, float]]:
    """Return lm-eval's ``process_results(doc, results)`` reading with relreason's readers
    (the task is rebuilt once per cell, with the official data in ``data_dir``)."""

    def process_results(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, float]:
        """Read the first generation of ``doc`` (lm-eval passes the filtered results)."""
        text = results[0] if results else ""
        return read_generation(doc, str(text), data_dir)

    return process_results
