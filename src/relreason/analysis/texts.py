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
    from relreason.run.plan import task_from_description as build_task_from_description

    problems: dict[str, list[str]] = {}
    items = runs.items
    prompts = list(items["prompt_text"]) if "prompt_text" in items else [None] * len(items)
    questions = list(items["question"]) if "question" in items else [None] * len(items)
    indexes = list(items["index"]) if "index" in items else []
    positions = items.groupby("run_id", sort=False).indices if len(items) else {}
    built: dict[str, dict[int, str]] = {}
    asked: dict[str, dict[int, str]] = {}
    for _, run in runs.runs.iterrows():
        mine = positions.get(run["run_id"], ())
        description = json.loads(run["description"] or "{}")
        if any(not isinstance(prompts[i], str) for i in mine):  # records before prompts were kept
            key = run["description"]
            if key not in built:
                try:
                    folder = None if data_dir is None else Path(data_dir)
                    task = build_task_from_description(description, data_dir=folder)
                    built[key] = {it.index: it.prompt for it in task.items}
                except (RelreasonError, OSError) as error:
                    problems.setdefault(str(error), []).append(str(run["run_id"]))
                    built[key] = {}
            for i in mine:
                if not isinstance(prompts[i], str):
                    prompts[i] = built[key].get(int(indexes[i]))
        if description.get("benchmark") == "mcr":
            language = str(description.get("language"))
            if language not in asked:
                try:
                    asked[language] = _mcr_questions(description, data_dir)
                except (RelreasonError, OSError) as error:
                    seen = problems.setdefault(str(error), [])
                    if str(run["run_id"]) not in seen:
                        seen.append(str(run["run_id"]))
                    asked[language] = {}
            for i in mine:
                questions[i] = asked[language].get(int(indexes[i]))
    items["prompt_text"] = pd.Series(prompts, index=items.index, dtype=object)
    items["question"] = pd.Series(questions, index=items.index, dtype=object)
    runs.changed()  # the split items lack the new columns
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
