"""Audits: status counts, the position audit (an all-"A" model stands out) and the reader audit."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis_runs import answers, convre_description, record, write_run
from relreason.analysis import load_runs
from relreason.analysis.audits import position_audit, reader_audit, status_counts
from relreason.analysis.table import NotPossible


def test_all_a_model_is_flagged(tmp_path: Path) -> None:
    write_run(tmp_path, "lazy", "lazy", convre_description("re2text", 1), answers("ABAB", "AAAA"))
    write_run(tmp_path, "fair", "fair", convre_description("re2text", 1), answers("ABAB", "ABBA"))
    data = position_audit(load_runs(tmp_path)).data.set_index(["run", "letter"])
    assert (data.loc[("lazy", "A"), "gold"], data.loc[("lazy", "A"), "chosen"]) == (0.5, 1.0)
    assert data.loc[("lazy", "A"), "flag"] == "BIAS"
    assert set(data.loc["fair", "flag"]) == {""}


def test_status_counts(tmp_path: Path) -> None:
    write_run(
        tmp_path,
        "r",
        "m",
        convre_description("re2text", 1),
        [*answers("AB", "A-"), record(2, "A", None, status="failed")],
    )
    row = status_counts(load_runs(tmp_path)).data.iloc[0]
    assert (row["n"], row["correct"], row["no_answer"], row["failed"], row["wrong"]) == (
        3,
        1,
        1,
        1,
        0,
    )


def test_reader_audit_absent_then_present(tmp_path: Path) -> None:
    records = answers("ABAB", "ABAA")
    write_run(tmp_path, "old", "m", convre_description("re2text", 1), records)
    with pytest.raises(NotPossible, match="not available"):
        reader_audit(load_runs(tmp_path))
    # the official reading took "A" from item 1's output (wrong) and agrees elsewhere
    new = [dict(r, alt={"answer": r["answer"], "status": r["status"]}) for r in records]
    new[1].update(alt={"reader": "official", "answer": "A", "status": "wrong"})
    write_run(tmp_path, "new", "m", convre_description("re2text", 1), new)
    row = reader_audit(load_runs(tmp_path)).data.set_index("run").loc["new"]
    assert (row["n"], row["sound_accuracy"], row["official_accuracy"]) == (4, 0.75, 0.5)
    assert (row["different_answer"], row["different_verdict"]) == (1, 1)
