"""Attach the texts a record does not store: each item's prompt and the texts its benchmark
adds (``Benchmark.item_texts``: MCR's ``question``).

Records keep no prompt (it is rebuilt from the run's task description and the data files). This
module is the one place that rebuilds tasks, through the benchmark registry only. When the data
cannot be read, the items stay without texts and the reason is returned.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from relreason.analysis.load import Runs
from relreason.errors import RelreasonError


def attach_texts(runs: Runs, data_dir: Path | str | None = None) -> list[str]:
    """Fill ``prompt_text`` (all benchmarks) and the columns each run's benchmark adds
    (``Benchmark.item_texts``, e.g. MCR's ``question``) of ``runs.items`` in place from the
    data files; return one line per reason the texts of some runs could not be rebuilt (naming
    a few of those runs)."""
    from relreason import benchmarks
    from relreason.run.plan import task_from_description as build_task_from_description

    problems: dict[str, list[str]] = {}
    items = runs.items
    folder = None if data_dir is None else Path(data_dir)
    prompts = list(items["prompt_text"]) if "prompt_text" in items else [None] * len(items)
    added: dict[str, list[Any]] = {}
    indexes = list(items["index"]) if "index" in items else []
    positions = items.groupby("run_id", sort=False).indices if len(items) else {}
    built: dict[str, dict[int, str]] = {}
    texts: dict[str, dict[str, dict[int, str]]] = {}
    registered = set(benchmarks.names())
    for _, run in runs.runs.iterrows():
        mine = positions.get(run["run_id"], ())
        key = run["description"]
        description = json.loads(key or "{}")
        if any(not isinstance(prompts[i], str) for i in mine):  # records before prompts were kept
            runs.stamps.pop(run["run_id"], None)  # the page's item blocks: not from the folder
            if key not in built:
                try:
                    task = build_task_from_description(description, data_dir=folder)
                    built[key] = {it.index: it.prompt for it in task.items}
                except (RelreasonError, OSError) as error:
                    problems.setdefault(str(error), []).append(str(run["run_id"]))
                    built[key] = {}
            for i in mine:
                if not isinstance(prompts[i], str):
                    prompts[i] = built[key].get(int(indexes[i]))
        if run["benchmark"] not in registered:
            continue
        if key not in texts:
            try:
                texts[key] = benchmarks.get(run["benchmark"]).item_texts(description, folder)
            except (RelreasonError, OSError) as error:
                seen = problems.setdefault(str(error), [])
                if str(run["run_id"]) not in seen:
                    seen.append(str(run["run_id"]))
                texts[key] = {}
        for column, by_index in texts[key].items():
            if column not in added:
                added[column] = list(items[column]) if column in items else [None] * len(items)
            values = added[column]
            for i in mine:
                values[i] = by_index.get(int(indexes[i]))
    items["prompt_text"] = pd.Series(prompts, index=items.index, dtype=object)
    for column, values in added.items():
        items[column] = pd.Series(values, index=items.index, dtype=object)
    runs.changed()  # the split items lack the new columns
    return [
        f"prompts not rebuilt for {len(ids)} run(s) ({', '.join(ids[:3])}"
        f"{', ...' if len(ids) > 3 else ''}): {reason}"
        for reason, ids in problems.items()
    ]
