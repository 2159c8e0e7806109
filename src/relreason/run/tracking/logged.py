"""What a tracker is given for one run folder: its parameters, metrics, tags and files, read
from the folder (manifest and summary) so that any finished run can be logged."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relreason.records import MANIFEST, RECORDS, SUMMARY, load_manifest, wilson_interval

STATUSES = ("correct", "wrong", "unparseable", "no_answer", "failed")
"""Every record status, each logged as a count (``status.<name>``)."""
MAX_PARAM = 500
"""The longest parameter value logged (MLflow's old limit; longer ones are cut)."""


@dataclass
class Logged:
    """One run as a tracker takes it."""

    name: str
    params: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)


def _text(value: Any) -> str:
    shown = value if isinstance(value, str) else json.dumps(value, default=str)
    return shown[:MAX_PARAM]


def read_logged(out_dir: Path) -> Logged:
    """The parameters (the benchmark, each cell parameter as ``cell.<name>``, the model, the
    reader, the seed, the scoring, the selection), metrics (accuracy with its 95% Wilson
    interval, counts by status, tokens, time, cost) and files (records, summary, manifest) of
    the finished run in ``out_dir``. Raises ``UsageError``/``DataError`` for a folder that is
    not a finished run, ``OSError``/``ValueError`` for an unreadable summary."""
    manifest = load_manifest(out_dir)
    summary = json.loads((out_dir / SUMMARY).read_text(encoding="utf-8"))
    options = manifest.options
    cell = manifest.description.get("params") or {}
    params: dict[str, Any] = {
        "benchmark": manifest.benchmark,
        "run": manifest.task,
        "model": manifest.spec,
        "reader": (manifest.config or {}).get("reader"),
        "seed": options.get("seed"),
        "scoring": manifest.scoring,
        "limit": options.get("limit"),
        "sample": options.get("sample"),
        **{f"cell.{name}": value for name, value in sorted(cell.items())},
    }
    n, correct = int(summary["n"]), int(summary["correct"])
    low, high = wilson_interval(correct, n)
    statuses = summary.get("statuses") or {}
    usage = summary.get("usage") or {}
    metrics: dict[str, float] = {
        "accuracy": float(summary["accuracy"]),
        "accuracy_low": low,
        "accuracy_high": high,
        "n": n,
        "correct": correct,
        "answered": int(summary.get("answered") or 0),
        **{f"status.{s}": int(statuses.get(s, 0)) for s in STATUSES},
        **{k: int(v) for k, v in usage.items() if isinstance(v, int | float)},
        "elapsed_s": float(summary.get("elapsed_s") or 0.0),
    }
    if summary.get("cost_usd") is not None:
        metrics["cost_usd"] = float(summary["cost_usd"])
    tags = {
        "relreason.folder": str(out_dir.resolve()),
        "relreason.status": manifest.status,
        "relreason.sessions": str(len(manifest.sessions)),
        "relreason.version": str(manifest.relreason_version),
    }
    files = [out_dir / name for name in (RECORDS, SUMMARY, MANIFEST) if (out_dir / name).is_file()]
    return Logged(
        name=f"{manifest.task} | {manifest.spec}",
        params={k: _text(v) for k, v in params.items()},
        metrics=metrics,
        tags=tags,
        files=files,
    )
