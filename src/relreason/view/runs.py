"""The run folders under the viewer's folder, read as they are written: each request looks again
at every ``manifest.json`` below the folder and reads a run's files again only when one of them
changed size or modification time (a run in progress shows its new records on reload). Records
are read with :func:`~relreason.records.load_typed_records` (every line checked; a torn last
line dropped); a run that cannot be read is listed with why, never an error."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relreason.analysis.load import model_label
from relreason.errors import DataError, UsageError
from relreason.records import MANIFEST, RECORDS, SUMMARY, Record, load_manifest, load_typed_records
from relreason.records.summary import wilson_interval

_WATCHED = (MANIFEST, RECORDS, SUMMARY)


@dataclass(frozen=True)
class ViewRun:
    """One run folder as the viewer shows it (``problem`` says why it could not be read)."""

    run_id: str
    folder: Path
    benchmark: str = "?"
    cell: str = "?"
    model: str = "?"
    status: str = "unreadable"
    n_items: int = 0
    description: dict[str, Any] = field(default_factory=dict)
    records: tuple[Record, ...] = ()
    problem: str | None = None

    @property
    def n_correct(self) -> int:
        """How many records were read as correct."""
        return sum(r.status == "correct" for r in self.records)

    @property
    def accuracy(self) -> tuple[float, float, float] | None:
        """Accuracy over the records written so far and its 95% Wilson interval (None: none)."""
        if not self.records:
            return None
        low, high = wilson_interval(self.n_correct, len(self.records))
        return (self.n_correct / len(self.records), low, high)

    def record(self, index: int) -> Record | None:
        """The record of item ``index`` (None when there is none yet)."""
        return next((r for r in self.records if r.index == index), None)


def _stamp(folder: Path) -> tuple[Any, ...]:
    stamp: list[Any] = []
    for name in _WATCHED:
        try:
            found = (folder / name).stat()
            stamp += [found.st_size, found.st_mtime_ns]
        except OSError:
            stamp += [None, None]
    return tuple(stamp)


def read_run(run_id: str, folder: Path) -> ViewRun:
    """Read one run folder (its manifest and records); a damaged one comes back with its
    ``problem`` (file, line and field) instead of records."""
    try:
        manifest = load_manifest(folder)
        found = load_typed_records(folder)
    except (DataError, UsageError) as error:
        return ViewRun(run_id, folder, problem=str(error))
    description = manifest.description
    spec = manifest.spec
    return ViewRun(
        run_id=run_id,
        folder=folder,
        benchmark=str(description.get("benchmark", manifest.benchmark)),
        cell=manifest.task,
        model=model_label(spec, manifest.scoring, description.get("mode")),
        status=manifest.status,
        n_items=manifest.n_items,
        description=description,
        records=tuple(found[i] for i in sorted(found)),
    )


class RunFolders:
    """The runs below ``root``, each read again only when its files changed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._seen: dict[Path, tuple[tuple[Any, ...], ViewRun]] = {}
        self._lock = threading.Lock()

    def runs(self) -> list[ViewRun]:
        """Every run folder below the root (itself one, or any depth below), by run id."""
        folders = sorted(p.parent for p in self.root.rglob(MANIFEST))
        with self._lock:
            found: list[ViewRun] = []
            for folder in folders:
                stamp = _stamp(folder)
                known = self._seen.get(folder)
                if known is None or known[0] != stamp:
                    run_id = (
                        folder.name
                        if folder == self.root
                        else folder.relative_to(self.root).as_posix()
                    )
                    known = (stamp, read_run(run_id, folder))
                    self._seen[folder] = known
                found.append(known[1])
            for gone in set(self._seen) - set(folders):
                del self._seen[gone]
        return found

    def run(self, run_id: str) -> ViewRun | None:
        """The run ``run_id`` (its folder below the root), or None."""
        return next((r for r in self.runs() if r.run_id == run_id), None)
