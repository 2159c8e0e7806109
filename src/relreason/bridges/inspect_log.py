"""Read an inspect_ai log of a relreason task (``relreason/convre``, ``mcr``, ``compose``) back
into an :class:`ImportedRun`: each sample's metadata is the document relreason wrote (it names
the cell and the item), its output the completion that relreason's readers read again.

Needs ``inspect-ai`` (extra ``[inspect]``), whose ``read_eval_log`` reads both log formats.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from relreason.bridges.cells import task_from_key
from relreason.bridges.docs import doc_item
from relreason.bridges.imported import Answer, ImportedRun
from relreason.errors import DataError, RelreasonError, UsageError
from relreason.types import Response, Task

HARNESS = "inspect_ai"


def _load(path: Path) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        from relreason.install import extra_hint

        raise UsageError(
            f"reading inspect logs needs inspect-ai: {extra_hint('inspect')}"
        ) from None
    if not path.is_file():
        raise DataError(str(path), "file not found")
    try:
        return read_eval_log(str(path))
    except Exception as error:  # inspect raises many kinds for a foreign or broken file
        raise DataError(
            str(path), f"not an inspect_ai log ({type(error).__name__}: {error})"
        ) from None


def _sent(sample: Any) -> str | None:
    """The text of the first user message (what was sent), when there is one."""
    for message in getattr(sample, "messages", None) or []:
        if getattr(message, "role", None) == "user":
            return str(message.text)
    return None


def _error_text(sample: Any) -> str | None:
    """The message of the error a sample failed with, on one line (None when it did not)."""
    error = getattr(sample, "error", None)
    if error is None:
        return None
    return " ".join(str(getattr(error, "message", error)).split())


def _no_samples(name: str, log: Any) -> DataError:
    """The error for a log without samples: the run's own error when it failed."""
    if getattr(log, "error", None) is not None:
        return DataError(name, f"the run failed and holds no samples: {_error_text(log)}")
    return DataError(name, "holds no samples (was the log written with --no-log-samples?)")


def _refuse_failed_run(name: str, samples: list[Any]) -> None:
    """Refuse a log in which every sample failed (``DataError``: how many, the first error):
    inspect exits 0 after such a run, but it measured nothing."""
    failed = [s for s in samples if _error_text(s) is not None]
    if len(failed) == len(samples):
        first = failed[0]
        message = _error_text(first) or ""
        raise DataError(
            name,
            f"every sample failed ({len(failed)} of {len(samples)}), so the run is no result; "
            f"the first error (sample id {getattr(first, 'id', None)!r}): {message[:400]}",
        )


def _answer(sample: Any, prompt: str) -> Answer:
    error = getattr(sample, "error", None)
    if error is not None:
        return Answer(Response(error=str(getattr(error, "message", error))))
    output = getattr(sample, "output", None)
    text = output.completion if output is not None else ""
    sent = _sent(sample)
    return Answer(Response(text=text), sent=None if sent in (None, prompt) else sent)


def read_inspect_log(
    path: Path, *, data_dir: Path | None = None, model: str | None = None
) -> ImportedRun:
    """Read the inspect_ai log ``path`` into an :class:`ImportedRun`.

    Raises ``DataError`` naming the file, the sample and the field for a log that is not
    inspect's, samples of a task relreason did not write, samples of two cells, an item given
    twice, a prompt that is not relreason's for its item, or a run in which every sample failed
    (naming how many and the first error).
    """
    name = str(path)
    log = _load(path)
    samples = list(getattr(log, "samples", None) or [])
    if not samples:
        raise _no_samples(name, log)
    task: Task | None = None
    key: str | None = None
    answers: dict[int, Answer] = {}
    for position, sample in enumerate(samples, start=1):
        where = f"sample {position} (id {getattr(sample, 'id', None)!r})"
        doc = getattr(sample, "metadata", None)
        if not isinstance(doc, Mapping) or not isinstance(doc.get("relreason_cell"), str):
            raise DataError(
                name,
                "not a sample of a relreason task (its metadata names no relreason_cell); "
                "run relreason/convre, relreason/mcr or relreason/compose",
                item=where,
                field="metadata",
            )
        if task is None:
            key = str(doc["relreason_cell"])
            try:
                task = task_from_key(key, data_dir)
            except DataError:
                raise
            except RelreasonError as error:
                raise DataError(name, str(error), item=where, field="metadata") from None
        elif doc["relreason_cell"] != key:
            raise DataError(name, "a sample of another cell", item=where, field="metadata")
        item = doc_item(task, doc, name, where)
        if item.index in answers:
            raise DataError(name, f"item {item.index} appears twice", item=where, field="id")
        answers[item.index] = _answer(sample, item.prompt)
    assert task is not None
    _refuse_failed_run(name, samples)
    eval_spec = getattr(log, "eval", None)
    source = {
        "harness": HARNESS,
        "file": str(path.resolve()),
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "task": getattr(eval_spec, "task", None),
        "run_id": getattr(eval_spec, "run_id", None),
    }
    spec = model or f"{HARNESS}:{getattr(eval_spec, 'model', None) or 'unknown'}"
    return ImportedRun(task, answers, "generate", spec, source, data_dir)
