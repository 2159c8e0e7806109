"""Read a folder of run folders into two pandas data frames: ``runs`` and ``items``.

``runs`` has one row per run folder (its typed :class:`~relreason.records.Manifest`'s
metadata); ``items`` one row per typed :class:`~relreason.records.Record`, with the record's
fields and its labels flattened to ``label_<name>`` columns. A field a record was written without
(an older version) takes the record's default (never an error). The official reading of an answer
(the record's second reading, when it holds one) becomes ``answer_official``,
``status_official`` and ``correct_official``; see :func:`official_reading`.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from relreason.analysis.item_columns import ITEM_FIELDS, add_items, series
from relreason.analysis.item_columns import official_reading as official_reading
from relreason.analysis.run_cache import cached_read, folder_stamp
from relreason.analysis.setup import label_runs
from relreason.errors import DataError, UsageError
from relreason.records import MANIFEST, SUMMARY, Manifest, load_manifest, load_typed_records

RUN_COLUMNS = (
    "run_id",
    "folder",
    "benchmark",
    "task_name",
    "model",
    "spec",
    "size",
    "task",
    "setting",
    "prompt",
    "relation",
    "n_shot",
    "example_type",
    "text_type",
    "subset",
    "neutral",
    "language",
    "method",
    "mode",
    "scoring",
    "permute",
    "epochs",
    "sample",
    "limit",
    "reader",
    "api",
    "chat_template",
    "max_new_tokens",
    "temperature",
    "status",
    "n_items",
    "n_task",
    "n_records",
    "failed",
    "complete",
    "partial",
    "description",
)
_SIZE = re.compile(r"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)\s*([bBmM])(?![A-Za-z])")


@dataclass
class Runs:
    """The runs under a folder: ``runs`` (one row per run) and ``items`` (one row per record)."""

    root: Path
    runs: pd.DataFrame
    items: pd.DataFrame
    groups: dict[str, pd.DataFrame] | None = field(default=None, repr=False, compare=False)
    """Each run's items, split once on first use (:meth:`items_of`); None after a change."""
    parts: dict[str, Runs] = field(default_factory=dict, repr=False, compare=False)
    """The runs of each benchmark, made once by :meth:`of` (forgotten by :meth:`changed`)."""
    skipped: dict[str, str] = field(default_factory=dict, compare=False)
    """The run folders that could not be read (by run id: why), left out with a warning."""
    stamps: dict[str, list[Any]] = field(default_factory=dict, repr=False, compare=False)
    """Each run's folder stamp when read (``run_cache.folder_stamp``), by run id: the HTML page
    keeps its item blocks under them. Whoever changes a run's items in place removes its stamp
    (``attach_texts`` does for the prompts it rebuilds)."""

    def changed(self) -> None:
        """Forget the split items and benchmark parts (after ``items`` gained columns)."""
        self.groups = None
        self.parts = {}

    def items_of(self, run_id: str) -> pd.DataFrame:
        """Return the items of one run (split once for all runs: no scan per run)."""
        if self.groups is None:
            self.groups = by_run(self.items)
        found = self.groups.get(run_id)
        return self.items.iloc[0:0] if found is None else found

    def items_with_runs(self, columns: tuple[str, ...] = RUN_COLUMNS) -> pd.DataFrame:
        """Return ``items`` joined with the run metadata ``columns`` (by ``run_id``)."""
        keep = [c for c in columns if c in self.runs.columns]
        meta = self.runs[keep]
        return self.items.merge(meta, on="run_id", how="left", suffixes=("", "_run"))

    def of(self, benchmark: str) -> Runs:
        """Return only the runs (and their items) of ``benchmark`` (made once, then kept until
        the items change: :meth:`changed`)."""
        if benchmark in self.parts:
            return self.parts[benchmark]
        part = self._of(benchmark)
        self.parts[benchmark] = part
        return part

    def _of(self, benchmark: str) -> Runs:
        runs = self.runs[self.runs["benchmark"] == benchmark]
        wanted = set(runs["run_id"])
        if self.groups is None:
            self.groups = by_run(self.items)
        groups = {k: v for k, v in self.groups.items() if k in wanted}
        if len(wanted) == self.runs["run_id"].nunique():
            return Runs(self.root, runs.reset_index(drop=True), self.items, groups)
        items = self.items[self.items["run_id"].isin(wanted)]
        return Runs(self.root, runs.reset_index(drop=True), items.reset_index(drop=True), groups)


def read_summary(path: Path) -> dict[str, Any]:
    """Return a run's summary.json (empty when absent); ``DataError`` naming it when unreadable."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise DataError(
            str(path), f"unreadable summary ({error}); rerun or resume the run to write it again"
        ) from None
    if not isinstance(data, dict):
        raise DataError(str(path), "expected a JSON object")
    return data


def by_run(items: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Split an item frame by ``run_id`` (one pass)."""
    if items.empty:
        return {}
    return {str(key): group for key, group in items.groupby("run_id", sort=False)}


def size_from_spec(spec: str) -> float | None:
    """Return a model size in parameters read from its name (``...-7B`` -> 7e9,
    ``...-135M`` -> 1.35e8), or None when the name gives none."""
    found = _SIZE.findall(spec.replace("_", "-"))
    if not found:
        return None
    number, unit = found[-1]
    return float(number) * (1e9 if unit.lower() == "b" else 1e6)


def model_label(spec: str, scoring: Any = None, mode: Any = None) -> str:
    """Return how a run's model is named in tables: its spec, plus ``[logprob]`` when it was
    scored by log-likelihood and ``[paper mode]`` for MCR's official reading rule, so that two
    ways of scoring one model never share a table cell."""
    return (
        spec
        + (" [logprob]" if scoring == "logprob" else "")
        + (" [paper mode]" if mode == "paper" else "")
    )


def run_label(row: Any) -> str:
    """Return the label of a run's row in a table: the model spec, with ``*`` when partial."""
    return f"{row['model']}{' *' if row['partial'] else ''}"


def _run_row(manifest: Manifest, n_records: int) -> dict[str, Any]:
    """A run's row of ``Runs.runs`` as its manifest gives it (without ``run_id`` and ``folder``,
    which depend on where it is read from)."""
    description = manifest.description
    model = manifest.model
    options = manifest.options
    spec = model.spec
    given = (model.model_extra or {}).get("size") or model.options.get("size")
    size = given or size_from_spec(spec)
    limit = options.get("limit")
    # a manifest that does not say how many items were selected: the summary's count
    n_items = manifest.n_items if "n_items" in manifest.model_fields_set else None
    complete = manifest.status == "complete"
    params = options.get("params") or {}
    return {
        "benchmark": description.get("benchmark", manifest.benchmark),
        "task_name": manifest.task,
        "model": model_label(spec, manifest.scoring, description.get("mode")),
        "spec": spec,
        "size": float(size) if isinstance(size, int | float) else None,
        "task": description.get("task"),
        "setting": description.get("setting_id"),
        "prompt": description.get("prompt"),
        "relation": description.get("relation"),
        "n_shot": description.get("n_shot"),
        "example_type": description.get("example_type"),
        "text_type": description.get("text_type"),
        "subset": bool(description.get("subset", False)),
        "neutral": bool(description.get("neutral", False)),
        "language": description.get("language"),
        "method": description.get("method"),
        "mode": description.get("mode"),
        "scoring": manifest.scoring,
        "permute": description.get("permute"),
        "epochs": description.get("epochs"),
        "sample": options.get("sample"),
        "limit": limit,
        "reader": None,
        "api": model.options.get("api"),
        "chat_template": model.options.get("chat_template"),
        "max_new_tokens": params.get("max_new_tokens"),
        "temperature": params.get("temperature"),
        "status": manifest.status,
        "n_items": n_items,
        "n_task": None,
        "n_records": n_records,
        "failed": 0,
        "complete": complete,
        "partial": limit is not None
        or options.get("sample") is not None
        or not complete
        or (n_items or 0) > n_records,
        "description": json.dumps(description, sort_keys=True),
    }


def _read_run(folder: Path) -> dict[str, Any]:
    """One run folder as plain values: its row (without ``run_id``), item columns and labels."""
    manifest = load_manifest(folder)
    found = load_typed_records(folder)
    records = [found[i] for i in sorted(found)]
    row = _run_row(manifest, len(records))
    summary = folder / SUMMARY
    totals = read_summary(summary)  # DataError naming the file when unreadable
    if row["n_items"] is None:
        row["n_items"] = totals.get("n")
    row["n_task"] = totals.get("n_task") or row["n_items"]  # the task's size before a limit
    readers = Counter(r.reader for r in records if r.reader)
    row["reader"] = readers.most_common(1)[0][0] if readers else None
    row["failed"] = sum(r.status == "failed" for r in records)
    columns: dict[str, list[Any]] = {name: [] for name in ("run_id", *ITEM_FIELDS)}
    labels: dict[str, list[Any]] = {}
    add_items(columns, labels, "", records)
    for column in labels.values():
        column += [None] * (len(records) - len(column))
    del columns["run_id"]
    return {"row": row, "columns": columns, "labels": labels}


def load_runs(directory: Path | str, *, cache: bool = True) -> Runs:
    """Read every run folder under ``directory`` (itself one, or any depth below it); with
    ``cache``, a finished run unchanged since it was last read comes from the report's cache
    (``relreason.analysis.run_cache``).

    A run folder that cannot be read (a malformed manifest, records or summary file) is left
    out with a warning naming it and why (file, line and field), and listed in ``skipped``.
    Raises ``UsageError`` when ``directory`` does not exist or holds no run folder, and
    ``DataError`` when none of its run folders can be read.
    """
    root = Path(directory)
    if not root.is_dir():
        raise UsageError(f"{root} is not a folder")
    folders = sorted(p.parent for p in root.rglob(MANIFEST))
    if not folders:
        raise UsageError(f"{root} holds no run folder (no {MANIFEST} below it)")
    run_rows = []
    columns: dict[str, list[Any]] = {name: [] for name in ("run_id", *ITEM_FIELDS)}
    labels: dict[str, list[Any]] = {}
    skipped: dict[str, str] = {}
    stamps: dict[str, list[Any]] = {}
    for folder in folders:
        run_id = folder.relative_to(root).as_posix() if folder != root else folder.name
        stamps[run_id] = folder_stamp(folder)  # before reading: a change while read shows
        read = functools.partial(_read_run, folder)
        try:
            found = (
                cached_read(folder, read, keep=lambda v: bool(v["row"]["complete"]))
                if cache
                else read()
            )
        except (DataError, UsageError) as error:  # one damaged run: the others are reported
            skipped[run_id] = str(error)
            print(f"warning: skipped the run {run_id}: {error}", file=sys.stderr, flush=True)
            continue
        row = {**found["row"], "run_id": run_id, "folder": str(folder)}
        run_rows.append(row)
        start = len(columns["run_id"])
        columns["run_id"] += [run_id] * row["n_records"]
        for name, values in found["columns"].items():
            columns[name] += values
        for name, values in found["labels"].items():
            column = labels.setdefault(name, [])
            column += [None] * (start - len(column))
            column += values
    if not run_rows:
        first = next(iter(skipped.values()))
        raise DataError(str(root), f"no run folder below it could be read (first: {first})")
    total = len(columns["run_id"])
    for column in labels.values():
        column += [None] * (total - len(column))
    runs = pd.DataFrame(run_rows, columns=list(RUN_COLUMNS))
    label_runs(runs)
    items = pd.DataFrame({name: series(name, v) for name, v in {**columns, **labels}.items()})
    return Runs(root, runs, items, skipped=skipped, stamps=stamps)
