"""One plain row per run folder (``collect``) and a plain-text table of them (``format_rows``);
``relreason.report.paper.beside_paper`` sets the papers' figures beside the rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from relreason import benchmarks
from relreason.analysis.load import read_summary
from relreason.records import Manifest, load_manifest


def collect(out: Path) -> list[dict[str, Any]]:
    """Return one row per run folder under ``out``: model, benchmark, task (or language),
    setting (or method), accuracy, n, failed, complete, folder (and for ``--permute`` runs:
    permute, consistency, all_orders (right in every order), top_position (the share of the
    position chosen most); for ``--epochs`` runs: epochs, epoch_sd, majority, pass_at_n).
    Sorted for a stable report."""
    rows = []
    for manifest_path in sorted(Path(out).rglob("manifest.json")):
        folder = manifest_path.parent
        manifest = load_manifest(folder)
        description = manifest.description
        summary = read_summary(folder / "summary.json")
        name = description.get("benchmark", manifest.benchmark)
        task, setting = _cell(str(name), description)
        done = summary.get("n", 0)
        if manifest.status != "complete" or not summary:
            done = _records_done(folder)  # a running run: its items done so far
        rows.append(
            {
                "model": manifest.spec,
                "benchmark": name,
                "task": task,
                "setting": setting,
                "subset": bool(description.get("subset", False)),
                "neutral": bool(description.get("neutral", False)),
                "accuracy": None if summary.get("answered") == 0 else summary.get("accuracy"),
                "n": done,
                "failed": summary.get("failed", 0),
                "complete": manifest.status == "complete",
                "partial": bool(summary.get("partial", False)),
                "note": _note(manifest, summary),
                "folder": str(folder),
                **_permutation_columns(description, summary),
                **_epoch_columns(description, summary),
            }
        )
    return rows


def _records_done(folder: Path) -> int:
    """How many items a run folder's records hold (distinct indices; a torn line is ignored)."""
    from relreason.records import load_records

    return len(load_records(folder))


def _note(manifest: Manifest, summary: Mapping[str, Any]) -> str | None:
    """``partial (N of M items)``, ``incomplete``, ``nothing answered``, or None."""
    notes = []
    if summary.get("partial"):
        notes.append(f"partial ({summary.get('n', '?')} of {summary.get('n_task', '?')} items)")
    if manifest.status != "complete":
        notes.append(manifest.status)
    if summary.get("answered") == 0 and summary.get("n"):
        notes.append("nothing answered")
    return "; ".join(notes) or None


def _permutation_columns(
    description: Mapping[str, Any], summary: Mapping[str, Any]
) -> dict[str, Any]:
    """A ``--permute`` run's order probe figures (nothing for other runs)."""
    stats = (summary.get("extra") or {}).get("permutation")
    if not description.get("permute") or not isinstance(stats, dict):
        return {}
    return {
        "permute": description["permute"],
        "consistency": stats.get("consistency"),
        "all_orders": stats.get("all_orders_correct"),
        "top_position": max((stats.get("chosen_position") or {}).values(), default=None),
    }


def _epoch_columns(description: Mapping[str, Any], summary: Mapping[str, Any]) -> dict[str, Any]:
    """An ``--epochs`` run's spread and reducers (nothing for other runs)."""
    stats = (summary.get("extra") or {}).get("epochs")
    if not description.get("epochs") or not isinstance(stats, dict):
        return {}
    pass_k = stats.get("pass_at_k") or {}
    return {
        "epochs": description["epochs"],
        "epoch_sd": stats.get("epoch_sd"),
        "majority": stats.get("majority"),
        "pass_at_n": pass_k[max(pass_k, key=int)] if pass_k else None,
    }


def format_rows(rows: Sequence[Mapping[str, Any]]) -> str:
    """Return ``rows`` as a plain-text table."""
    columns = ["model", "benchmark", "task", "setting", "accuracy", "n", "failed"]
    columns[4:4] = [flag for flag in ("subset", "neutral") if any(row.get(flag) for row in rows)]
    if any("paper" in row for row in rows):
        columns.append("paper")
    if any("paper_model" in row for row in rows):
        columns += ["paper_model", "delta"]
    if any(row.get("note") for row in rows):
        columns.append("note")
    if any("permute" in row for row in rows):
        columns += ["permute", "consistency", "all_orders", "top_position"]
    if any("epochs" in row for row in rows):
        columns += ["epochs", "epoch_sd", "majority", "pass_at_n"]
    cells = [[_fmt(row.get(c)) for c in columns] for row in rows]
    widths = [
        max(len(c), *(len(r[i]) for r in cells)) if cells else len(c) for i, c in enumerate(columns)
    ]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, dict):
        return f"{len(value)} figures" if value else "-"
    return str(value)


def _cell(name: str, description: Mapping[str, Any]) -> tuple[Any, Any]:
    """The (task, setting) a run is tabulated under, as its benchmark says (if registered)."""
    if name in benchmarks.names():
        return benchmarks.get(name).report_cell(description)
    return (description.get("task"), description.get("setting"))
