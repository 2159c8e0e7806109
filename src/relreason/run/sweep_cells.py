"""A sweep's cells: what each one runs (``PlannedRun``), and which are left to run
(``check_cells``: a finished cell is skipped, a changed one refused). Shared by the local sweep
(:mod:`relreason.run.sweep`) and the Ray one (:mod:`relreason.run.sweep_ray`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relreason.errors import UsageError
from relreason.records import is_run_folder, load_manifest, load_records
from relreason.redact import strip_secret_options
from relreason.run.options import RunOptions
from relreason.run.selection import select_items
from relreason.run.sweep_file import ModelEntry, SweepOptions
from relreason.types import Task

__all__ = ["PlannedRun", "check_cells"]


@dataclass
class PlannedRun:
    """One cell of the grid: where it goes and what it runs."""

    model: ModelEntry
    task: Task
    out_dir: Path
    coordinates: dict[str, Any]


def _finished(out_dir: Path, n_items: int) -> bool:
    if not is_run_folder(out_dir):
        return False
    if load_manifest(out_dir).status != "complete":
        return False
    records = load_records(out_dir)
    return len(records) >= n_items and all(r.get("status") != "failed" for r in records.values())


def _changes(run: PlannedRun, options: RunOptions) -> list[str]:
    """What differs between a finished cell's folder and what the sweep asks now (the items,
    reader, parameters, model and its options; servers are checked when a cell runs)."""
    from relreason.run.folder import compared_description, differences
    from relreason.run.selection import items_fingerprint, reader_name

    manifest = load_manifest(run.out_dir)
    now = {
        "benchmark": run.task.benchmark,
        "task": run.task.name,
        "description": compared_description(run.task),
        "items": items_fingerprint(run.task.items),
        "reader": reader_name(run.task),
        "model": run.model.spec,
        "scoring": options.scoring,
        "params": options.to_json()["params"],
    }
    changed = differences(manifest.config, now)
    recorded = manifest.model.options
    wanted = json.loads(json.dumps(strip_secret_options(run.model.options()), default=str))
    if recorded != wanted:
        changed.append("model options")
    selection = manifest.selection or {}
    if selection and (selection.get("limit"), selection.get("sample")) != (
        options.limit,
        options.sample,
    ):
        changed.append("limit/sample")
    return changed


def check_cells(
    planned: Sequence[PlannedRun], sweep_options: SweepOptions, rerun_changed: bool
) -> tuple[list[RunOptions], list[int], list[bool]]:
    """Each cell's run options, its number of items and whether it is left to run (a
    finished cell is skipped). A finished cell whose items, model or options changed is
    refused (``UsageError`` naming them) unless ``rerun_changed``: then it runs again."""
    options = [sweep_options.run_options(show_progress=False, task=p.task) for p in planned]
    sizes = [len(select_items(p.task, o)) for p, o in zip(planned, options, strict=True)]
    stale = {}
    for run, run_options, size in zip(planned, options, sizes, strict=True):
        if _finished(run.out_dir, size):
            changed = _changes(run, run_options)
            if changed:
                stale[run.out_dir] = changed
    if stale and not rerun_changed:
        shown = "; ".join(f"{folder} ({', '.join(c)})" for folder, c in list(stale.items())[:5])
        raise UsageError(
            f"{len(stale)} finished run(s) of this sweep were made with other items, model or "
            f"options: {shown}; rerun them with --rerun-changed, or use another out folder"
        )
    todo = [
        run.out_dir in stale or not _finished(run.out_dir, size)
        for run, size in zip(planned, sizes, strict=True)
    ]
    return options, sizes, todo
