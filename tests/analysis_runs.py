"""Small hand-made run folders (the official format: manifest.json + records.jsonl) for the
analysis tests. Each test states its records, so the right answers can be worked out by hand."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from relreason.benchmarks.convre.settings import paper_setting


def convre_description(task: str, setting: int, *, subset: bool = False, neutral: bool = False):
    """The manifest description of a ConvRe paper setting."""
    return {
        "benchmark": "convre",
        "task": task,
        "setting_id": setting,
        **paper_setting(task, setting).as_dict(),
        "subset": subset,
        "neutral": neutral,
        "logprob_fallback": True,
    }


def mcr_description(language: str, method: str) -> dict[str, Any]:
    """The manifest description of an MCR language and method."""
    return {"benchmark": "mcr", "language": language, "method": method, "mode": "robust"}


def record(
    index: int,
    gold: str,
    answer: str | None,
    *,
    status: str | None = None,
    item_id: str | None = None,
    **labels: Any,
) -> dict[str, Any]:
    """One record; ``status`` defaults to correct/wrong from gold and answer."""
    if status is None:
        status = "correct" if answer == gold else "wrong"
    return {
        "index": index,
        "item_id": item_id or f"item/{index}",
        "gold": gold,
        "answer": answer,
        "status": status,
        "correct": status == "correct",
        "method": "clean",
        "detail": None,
        "output": answer or "?",
        "labels": labels,
    }


def write_run(
    root: Path,
    name: str,
    model: str,
    description: dict[str, Any],
    records: Sequence[dict[str, Any]],
    *,
    limit: int | None = None,
    n_items: int | None = None,
    status: str = "complete",
    scoring: str = "generate",
) -> Path:
    """Write a run folder ``root/name`` and return it."""
    folder = root / name
    folder.mkdir(parents=True)
    manifest = {
        "kind": "relreason-run",
        "benchmark": description["benchmark"],
        "task": name,
        "description": description,
        "model": {"spec": model},
        "scoring": scoring,
        "options": {"limit": limit},
        "n_items": len(records) if n_items is None else n_items,
        "status": status,
    }
    (folder / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    lines = "".join(json.dumps(r) + "\n" for r in records)
    (folder / "records.jsonl").write_text(lines, "utf-8")
    return folder


def answers(golds: str, given: str, **labels: Any) -> list[dict[str, Any]]:
    """Records from two strings of letters (gold and answer per item; '-' for no answer)."""
    return [
        record(i, g, None if a == "-" else a, status="no_answer" if a == "-" else None, **labels)
        for i, (g, a) in enumerate(zip(golds, given, strict=True))
    ]
