"""Scaling trends (ConvRe Figures 5 and 7): accuracy against model size per setting, and a
stated rule classifying each trend.

The rule (:func:`classify_trend`), on points sorted by size, with tolerance ``tol`` (default
0.02, in accuracy):

- fewer than two distinct sizes: ``too few sizes``;
- with three or more points, let ``rise`` = (highest interior point) - max(first, last) and
  ``dip`` = min(first, last) - (lowest interior point). If ``rise > tol`` or ``dip > tol``, the
  trend is ``inverted-U`` (when ``rise >= dip``) or ``U-shaped`` (otherwise);
- else ``positive`` when last - first > tol, ``inverse`` when first - last > tol, else ``flat``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from relreason.analysis.load import Runs
from relreason.analysis.stats import accuracy_cell
from relreason.analysis.table import NotPossible, Table

TRENDS = ("positive", "inverse", "U-shaped", "inverted-U", "flat", "too few sizes")

# The papers' models: (family, size in parameters). Sizes OpenAI and Anthropic never published
# are ranks within the family (their order in ConvRe Figures 5 and 7), marked by ``exact=False``.
PAPER_SIZES: dict[str, tuple[str, float, bool]] = {
    "text-ada-001": ("GPT", 0.35e9, True),
    "text-babbage-001": ("GPT", 1.3e9, True),
    "text-curie-001": ("GPT", 6.7e9, True),
    "text-davinci-003": ("GPT", 175e9, True),
    "gpt-3.5-turbo": ("GPT", 176e9, False),
    "gpt-4": ("GPT", 177e9, False),
    "claude-instant-1": ("Claude", 1, False),
    "claude-1": ("Claude", 2, False),
    "flan-t5-small": ("Flan-T5", 80e6, True),
    "flan-t5-base": ("Flan-T5", 250e6, True),
    "flan-t5-large": ("Flan-T5", 780e6, True),
    "flan-t5-xl": ("Flan-T5", 3e9, True),
    "flan-t5-xxl": ("Flan-T5", 11e9, True),
}


def classify_trend(points: Sequence[tuple[float, float]], tol: float = 0.02) -> str:
    """Return the trend of (size, accuracy) points by the rule in this module's docstring."""
    ordered = [acc for _, acc in sorted(points)]
    if len({size for size, _ in points}) < 2:
        return "too few sizes"
    first, last = ordered[0], ordered[-1]
    interior = ordered[1:-1]
    if interior:
        rise = max(interior) - max(first, last)
        dip = min(first, last) - min(interior)
        if rise > tol or dip > tol:
            return "inverted-U" if rise >= dip else "U-shaped"
    if last - first > tol:
        return "positive"
    if first - last > tol:
        return "inverse"
    return "flat"


def run_points(runs: Runs, sizes: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Return one row per ConvRe run with a known size: family (``runs``), model, size, task,
    setting, accuracy. ``sizes`` (spec -> parameters) overrides the size read from the runs."""
    part = runs.of("convre")
    rows = []
    for _, run in part.runs.iterrows():
        size = (sizes or {}).get(run["spec"], run["size"])
        if size is None or pd.isna(size) or pd.isna(run["setting"]) or run["neutral"]:
            continue
        cell = accuracy_cell(part.items_of(run["run_id"])["correct"])
        rows.append(
            {
                "source": "runs",
                "family": "runs",
                "model": run["model"],
                "size": float(size),
                "task": run["task"],
                "setting": int(run["setting"]),
                "subset": bool(run["subset"]),
                "accuracy": cell["accuracy"],
            }
        )
    return pd.DataFrame(rows)


def paper_points(figures: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Return the papers' Table 9 figures as points (family, model, size, task, setting,
    accuracy), for the models whose family and size order are known."""
    rows = []
    for fig in figures:
        known = PAPER_SIZES.get(str(fig["model"]))
        if known is None:
            continue
        rows.append(
            {
                "source": "paper",
                "family": known[0],
                "model": fig["model"],
                "size": known[1],
                "task": fig["task"],
                "setting": int(fig["setting"]),
                "subset": False,
                "accuracy": float(fig["accuracy"]),
            }
        )
    return pd.DataFrame(rows)


def scaling_trends(points: pd.DataFrame, tol: float = 0.02) -> Table:
    """Classify the trend of each (source, family, task, setting) with :func:`classify_trend`."""
    if points.empty:
        raise NotPossible(
            "no ConvRe run has a model size (give `size` per model, or use a model whose name "
            "states it, e.g. ...-135M)"
        )
    rows = []
    keys = ["source", "family", "task", "setting"]
    for (source, family, task, setting), group in points.groupby(keys, sort=True):
        group = group.sort_values("size")
        pts = list(zip(group["size"], group["accuracy"], strict=True))
        rows.append(
            {
                "source": source,
                "family": family,
                "task": task,
                "setting": setting,
                "trend": classify_trend(pts, tol),
                "models": ", ".join(group["model"]),
                "accuracies": ", ".join(f"{a:.3f}" for a in group["accuracy"]),
            }
        )
    note = (
        f"Rule: with 3+ sizes, an interior point more than {tol} above both ends is inverted-U, "
        f"more than {tol} below both ends U-shaped (the larger excursion wins); else positive / "
        f"inverse when the largest model is more than {tol} above / below the smallest, else flat."
    )
    return Table(
        "convre_scaling",
        "ConvRe: scaling trends per setting (Figures 5 and 7)",
        pd.DataFrame(rows),
        note=note,
    )
