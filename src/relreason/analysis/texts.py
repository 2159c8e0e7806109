"""Attach the texts a record does not store: each item's prompt and, for MCR, its question.

Records keep no prompt (it is rebuilt from the run's task description and the data files). This
module is the one place that rebuilds tasks, so that moving the benchmark modules touches only it.
When the data cannot be read, the items stay without texts and the reason is returned.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from relreason.analysis.load import Runs
from relreason.errors import RelreasonError


def attach_texts(runs: Runs, data_dir: Path | str | None = None) -> list[str]:
    """Fill ``prompt_text`` (all benchmarks) and ``question`` (MCR) of ``runs.items`` in place
    from the data files; return one line per reason the texts of some runs could not be rebuilt
    (naming a few of those runs)."""
    from relreason.benchmarks import task_from_description as build_task_from_description

    problems: dict[str, list[str]] = {}
    items = runs.items
    if "question" not in items.columns:
        items["question"] = None
    if "prompt_text" not in items.columns:
        items["prompt_text"] = None
    built: dict[str, dict[int, tuple[str, str | None]]] = {}
    for _, run in runs.runs.iterrows():
        description = json.loads(run["description"] or "{}")
        key = run["description"]
        if key not in built:
            try:
                folder = None if data_dir is None else Path(data_dir)
                task = build_task_from_description(description, data_dir=folder)
            except (RelreasonError, OSError) as error:
                problems.setdefault(str(error), []).append(str(run["run_id"]))
                built[key] = {}
                continue
            questions = _mcr_questions(description, data_dir)
            built[key] = {it.index: (it.prompt, questions.get(it.index)) for it in task.items}
        texts = built[key]
        if not texts:
            continue
        mask = items["run_id"] == run["run_id"]
        indexes = items.loc[mask, "index"]
        known = items.loc[mask, "prompt_text"]
        items.loc[mask, "prompt_text"] = [
            k if isinstance(k, str) else texts.get(int(i), (None, None))[0]
            for i, k in zip(indexes, known, strict=True)
        ]
        items.loc[mask, "question"] = [texts.get(int(i), (None, None))[1] for i in indexes]
    return [
        f"prompts not rebuilt for {len(ids)} run(s) ({', '.join(ids[:3])}"
        f"{', ...' if len(ids) > 3 else ''}): {reason}"
        for reason, ids in problems.items()
    ]


def _mcr_questions(description: dict[str, Any], data_dir: Path | str | None) -> dict[int, str]:
    if description.get("benchmark") != "mcr":
        return {}
    from relreason.benchmarks.mcr.data import load_questions

    return {q.index: q.question for q in load_questions(description["language"], data_dir)}


def has_texts(items: pd.DataFrame, column: str) -> bool:
    """Return whether any item has a non-empty ``column``."""
    return column in items.columns and bool(items[column].notna().any())
