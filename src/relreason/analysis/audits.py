"""Audits over any runs: the reader audit (sound vs official reading of the same outputs), the
position audit (how often each letter is gold vs chosen) and status counts."""

from __future__ import annotations

from typing import Any

import pandas as pd

from relreason.analysis.load import Runs, run_label
from relreason.analysis.table import Drill, NotPossible, Table
from relreason.records import STATUSES

BIAS_MARGIN = 0.25
"""A letter is flagged when the share of answers choosing it exceeds its share of gold answers
by more than this (a model answering "A" to everything on balanced data exceeds it by ~0.5)."""


def status_counts(runs: Runs) -> Table:
    """How many items of each run ended in each status (correct, wrong, unparseable, ...)."""
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    for position, (_, run) in enumerate(runs.runs.iterrows()):
        mine = runs.items_of(run["run_id"])
        row = {"run": run["run_id"], "model": run_label(run), "n": len(mine)}
        counts = mine["status"].value_counts()
        for status in STATUSES:
            row[status] = int(counts.get(status, 0))
            drill[(position, status)] = Drill((run["run_id"],), (("status", status),))
        rows.append(row)
    return Table("status_counts", "Status counts per run", pd.DataFrame(rows), drill=drill)


def position_audit(runs: Runs) -> Table:
    """For each run and answer letter: its share among gold answers and among chosen answers
    (of the items with an answer); a letter chosen far more often than it is gold is flagged."""
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    for _, run in runs.runs.iterrows():
        mine = runs.items_of(run["run_id"])
        golds, answers = mine["gold"].value_counts(), mine["answer"].value_counts()
        answered = int(answers.sum())
        for letter in sorted(set(golds.index) | set(answers.index)):
            gold = int(golds.get(letter, 0)) / len(mine)
            chosen = int(answers.get(letter, 0)) / answered if answered else 0.0
            drill[(len(rows), "chosen")] = Drill((run["run_id"],), (("answer", letter),))
            drill[(len(rows), "gold")] = Drill((run["run_id"],), (("gold", letter),))
            rows.append(
                {
                    "run": run["run_id"],
                    "model": run_label(run),
                    "letter": letter,
                    "gold": gold,
                    "chosen": chosen,
                    "excess": chosen - gold,
                    "flag": "BIAS" if chosen - gold > BIAS_MARGIN else "",
                }
            )
    if not rows:
        raise NotPossible("no items")
    note = f"BIAS: chosen more often than gold by more than {BIAS_MARGIN:.2f}."
    return Table(
        "position_audit",
        "Position audit: gold vs chosen letters",
        pd.DataFrame(rows),
        note=note,
        drill=drill,
    )


def reader_audit(runs: Runs) -> Table:
    """Sound vs official reading of the same outputs, per run: accuracy under each, and how many
    items got another answer or another verdict. Raises ``NotPossible`` when no record holds an
    official reading ("not available")."""
    items = runs.items
    has = [c for c in ("answer_official", "status_official") if c in items.columns]
    if not has or items[has].isna().all().all():
        raise NotPossible(
            "not available: the records hold no official reading (answer_official / "
            "status_official); runs made before readings were recorded lack it"
        )
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    for _, run in runs.runs.iterrows():
        mine = runs.items_of(run["run_id"])
        known = mine[mine["status_official"].notna() | mine["answer_official"].notna()]
        if known.empty:
            continue
        official_ok = known["correct_official"].fillna(False).astype(bool)
        sound_ok = known["correct_sound"].fillna(False).astype(bool)
        other_answer = known["answer_sound"].fillna("") != known["answer_official"].fillna("")
        other_verdict = sound_ok != official_ok
        drill[(len(rows), "different_answer")] = Drill((run["run_id"],), (("_differs", True),))
        rows.append(
            {
                "run": run["run_id"],
                "model": run_label(run),
                "n": len(known),
                "sound_accuracy": float(sound_ok.mean()),
                "official_accuracy": float(official_ok.mean()),
                "different_answer": int(other_answer.sum()),
                "different_verdict": int(other_verdict.sum()),
            }
        )
    return Table(
        "reader_audit",
        "Reader audit: sound vs official reading",
        pd.DataFrame(rows),
        note="Items with the official reading only.",
        drill=drill,
    )
