"""A relreason run folder made from another harness's outputs: the records (each response read
by the task's reader and its second rule, as a run would), the summary, and a manifest that
names the harness and the file the outputs came from.

The folder is written whole into a temporary folder beside the target and renamed into place,
so an error leaves nothing half-written.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from relreason.errors import UsageError
from relreason.files import atomic_write_json, atomic_write_text
from relreason.records import (
    FORMAT_VERSION,
    MANIFEST,
    RECORDS,
    SUMMARY,
    Manifest,
    Record,
    RunSummary,
    make_record,
    record_line,
    summarize,
    utc_now,
)
from relreason.records.folder import git_commit
from relreason.redact import scrub_secrets
from relreason.run.context import task_context
from relreason.run.folder import data_checksums, versions
from relreason.run.selection import items_fingerprint, reader_name
from relreason.types import Response, Task
from relreason.version import __version__


@dataclass(frozen=True)
class Answer:
    """One item's response as another harness recorded it; ``sent`` is the text the harness
    sent when it was not the item's prompt as relreason builds it (a chat template, shots)."""

    response: Response
    sent: str | None = None


@dataclass(frozen=True)
class ImportedRun:
    """What was read from another harness's log: the task, each item's answer by index, the
    scoring mode, the model's name and where it came from (``source``: harness, file, ...)."""

    task: Task
    answers: Mapping[int, Answer]
    scoring: Literal["generate", "logprob"]
    model: str
    source: dict[str, Any] = field(default_factory=dict)
    data_dir: Path | None = None


def _records(run: ImportedRun) -> list[Record]:
    task = run.task
    records = []
    for index in sorted(run.answers):
        item = task.items[index]
        answer = run.answers[index]
        response = answer.response
        failed = response.error is not None
        extraction = None if failed else task.scorer(item, response)
        alt = None if failed or task.alt_scorer is None else task.alt_scorer(item, response)
        records.append(
            make_record(
                item,
                extraction,
                [response],
                scored=response,
                error=response.error,
                reader=task.reader,
                alt=alt,
                alt_reader=task.alt_reader,
                prompts=(item.prompt,),
                sent_as=answer.sent,
            )
        )
    return records


def _manifest(run: ImportedRun, records: list[Record], summary: RunSummary) -> Manifest:
    task = run.task
    description = json.loads(json.dumps(dict(task.description), default=str))
    now = utc_now()
    config = {
        "benchmark": task.benchmark,
        "task": task.name,
        "description": description,
        "items": items_fingerprint(task.items),
        "reader": reader_name(task),
        "model": run.model,
        "scoring": run.scoring,
        "source": run.source,
    }
    partial = len(records) < len(task.items)
    data = {
        "format_version": FORMAT_VERSION,
        "relreason_version": __version__,
        "git_commit": git_commit(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "benchmark": task.benchmark,
        "task": task.name,
        "description": description,
        "data_checksums": data_checksums(task.benchmark, run.data_dir),
        "model": {"spec": run.model, "backend": {"backend": "import", **run.source}, "options": {}},
        "scoring": run.scoring,
        # the harness chose the items (its --limit): a partial run, as relreason's --limit
        "options": {"scoring": run.scoring, "limit": len(records) if partial else None},
        "config": config,
        "n_items": len(records),
        "started_at": now,
        "ended_at": now,
        "status": "complete",
        "usage": summary.usage,
        "command": [scrub_secrets(a) for a in sys.argv],
        "versions": versions(),
        "selection": {"limit": len(records) if partial else None, "n_task": len(task.items)},
        "source": run.source,
    }
    return Manifest.from_json(data, "the imported run's manifest")


def _place(tmp: Path, out_dir: Path) -> None:
    """Move the finished ``tmp`` folder to ``out_dir`` (absent, or an empty folder)."""
    if out_dir.is_dir() and not any(out_dir.iterdir()):
        out_dir.rmdir()
    try:
        os.rename(tmp, out_dir)
    except OSError as error:
        raise UsageError(f"cannot write {out_dir}: {error.strerror or error}") from None


def write_imported_run(run: ImportedRun, out_dir: Path) -> RunSummary:
    """Write ``run`` as a relreason run folder at ``out_dir``; return its summary.

    Raises ``UsageError`` when ``out_dir`` exists and is not an empty folder, or cannot be
    written; nothing is left behind on any error.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not (out_dir.is_dir() and not any(out_dir.iterdir())):
        raise UsageError(f"{out_dir} already exists and is not an empty folder; choose another")
    task = run.task
    records = _records(run)
    summary = summarize(
        records,
        out_dir=out_dir,
        task=task.name,
        model=run.model,
        cost_usd=None,
        complete=True,
        group_by=task.group_by or None,
    )
    summary.partial = len(records) < len(task.items)
    summary.n_task = len(task.items)
    summary.context = task_context(task, records)
    manifest = _manifest(run, records, summary)
    parent = out_dir.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.import-", dir=parent))
        tmp.chmod(0o755)
    except OSError as error:
        raise UsageError(f"cannot write {out_dir}: {error.strerror or error}") from None
    try:
        atomic_write_text(tmp / RECORDS, "".join(record_line(r.to_json()) for r in records))
        atomic_write_json(tmp / SUMMARY, summary.to_json())
        atomic_write_json(tmp / MANIFEST, manifest.to_json())
        _place(tmp, out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary
