"""Small statistics the analyses share: accuracy with a Wilson interval, Cohen's kappa, and
paired counts of two runs on the same items (McNemar's exact test reused from ``compare``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from relreason.analysis.compare import mcnemar_exact
from relreason.records import wilson_interval


def accuracy_cell(correct: pd.Series) -> dict[str, float | int]:
    """Return ``n``, ``correct``, ``accuracy`` and the Wilson 95% ``lo``/``hi`` of a boolean
    series (accuracy is NaN when it is empty)."""
    return counts_cell(int(correct.sum()), len(correct))


def counts_cell(k: int, n: int) -> dict[str, float | int]:
    """``accuracy_cell`` of ``k`` right out of ``n``."""
    lo, hi = wilson_interval(k, n)
    return {"n": n, "correct": k, "accuracy": k / n if n else float("nan"), "lo": lo, "hi": hi}


def cohen_kappa(a: pd.Series, b: pd.Series) -> float:
    """Cohen's kappa of two aligned boolean series (right/wrong of two raters on the same items).

    Returns NaN when undefined (no items, or chance agreement of 1).
    """
    n = len(a)
    if n == 0:
        return float("nan")
    a, b = a.astype(bool).to_numpy(), b.astype(bool).to_numpy()
    observed = float((a == b).mean())
    pa, pb = float(a.mean()), float(b.mean())
    expected = pa * pb + (1 - pa) * (1 - pb)
    return float("nan") if expected == 1 else (observed - expected) / (1 - expected)


@dataclass(frozen=True)
class Paired:
    """Two runs on their shared items: counts of both right, only A right, only B right,
    neither; McNemar's exact p-value and Cohen's kappa."""

    n: int
    both: int
    only_a: int
    only_b: int
    neither: int
    p_value: float
    kappa: float
    ids: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    """The item ids of each cell: ``both``, ``only_a``, ``only_b``, ``neither``."""


def paired(a: pd.DataFrame, b: pd.DataFrame, key: str = "item_id") -> Paired:
    """Pair two item frames (with ``correct``) on ``key`` and count the 2x2 table (items in
    ``a``'s order; a key found twice counts its last row, as a merge of unique keys would)."""
    right = dict(zip(a[key].astype(object), a["correct"].astype(bool), strict=True))
    other = dict(zip(b[key].astype(object), b["correct"].astype(bool), strict=True))
    cells: dict[str, list[str]] = {"both": [], "only_a": [], "only_b": [], "neither": []}
    ra, rb = [], []
    for item in right:
        if item in other:
            x, y = bool(right[item]), bool(other[item])
            ra.append(x)
            rb.append(y)
            name = "both" if x and y else "only_a" if x else "only_b" if y else "neither"
            cells[name].append(str(item))
    only_a, only_b = len(cells["only_a"]), len(cells["only_b"])
    return Paired(
        ids={name: tuple(ids) for name, ids in cells.items()},
        n=len(ra),
        both=len(cells["both"]),
        only_a=only_a,
        only_b=only_b,
        neither=len(cells["neither"]),
        p_value=mcnemar_exact(only_a, only_b),
        kappa=cohen_kappa(pd.Series(ra, dtype=bool), pd.Series(rb, dtype=bool)),
    )
