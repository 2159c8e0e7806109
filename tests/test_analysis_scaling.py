"""The scaling-trend rule on hand-made points, and the paper's own figures classified."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis_runs import answers, convre_description, write_run
from relreason.analysis import load_runs
from relreason.analysis.table import NotPossible
from relreason.benchmarks.convre.scaling import (
    TRENDS,
    classify_trend,
    paper_points,
    run_points,
    scaling_trends,
)
from relreason.report.paper import published


@pytest.mark.parametrize(
    ("accuracies", "trend"),
    [
        ([0.50, 0.60, 0.70], "positive"),
        ([0.70, 0.60, 0.50], "inverse"),
        ([0.60, 0.40, 0.70], "U-shaped"),  # dip 0.20 below the lower end
        ([0.50, 0.80, 0.60], "inverted-U"),  # rise 0.20 above the higher end
        ([0.50, 0.51, 0.50], "flat"),
        ([0.50, 0.71, 0.70], "positive"),  # rise 0.01 <= tol: not inverted-U
        ([0.40, 0.95, 0.30, 0.80], "inverted-U"),  # rise 0.15 > dip 0.10: larger wins
        ([0.50, 0.90], "positive"),
    ],
)
def test_classify_trend(accuracies: list[float], trend: str) -> None:
    points = [(10.0**i, a) for i, a in enumerate(accuracies)]
    assert classify_trend(points) == trend


def test_too_few_sizes_and_order_of_points() -> None:
    assert classify_trend([(1.0, 0.5), (1.0, 0.9)]) == "too few sizes"
    assert classify_trend([(3.0, 0.5), (1.0, 0.9), (2.0, 0.6)]) == "inverse"  # sorted by size


@given(st.lists(st.floats(0, 1), min_size=2, max_size=6))
def test_mirror_swaps_positive_and_inverse(accuracies: list[float]) -> None:
    points = [(float(i), a) for i, a in enumerate(accuracies)]
    mirrored = [(float(-i), a) for i, a in enumerate(accuracies)]
    trend, other = classify_trend(points), classify_trend(mirrored)
    assert trend in TRENDS
    swap = {"positive": "inverse", "inverse": "positive"}
    assert other == swap.get(trend, trend)


def test_paper_flan_t5_re2text_setting1_is_inverted_u() -> None:
    # Table 9, re2text 1#: small .518, base .846, large .715, xl .915, xxl .794:
    # rise = .915 - max(.518, .794) = .121 > dip = min(.518, .794) - .518 = 0 -> inverted-U
    points = paper_points(published().to_dict("records"))
    table = scaling_trends(points).data
    row = table[
        (table["family"] == "Flan-T5") & (table["task"] == "re2text") & (table["setting"] == 1)
    ].iloc[0]
    assert row["trend"] == "inverted-U"


def test_run_points_use_given_or_named_sizes(tmp_path: Path) -> None:
    write_run(tmp_path, "a", "tiny-135M", convre_description("re2text", 1), answers("AB", "AA"))
    write_run(tmp_path, "b", "big", convre_description("re2text", 1), answers("AB", "AB"))
    runs = load_runs(tmp_path)
    points = run_points(runs, {"big": 7e9})
    assert sorted(zip(points["size"], points["accuracy"], strict=True)) == [
        (135e6, 0.5),
        (7e9, 1.0),
    ]
    assert scaling_trends(points).data.iloc[0]["trend"] == "positive"
    with pytest.raises(NotPossible, match="size"):
        scaling_trends(run_points(runs, {}).iloc[0:0])
