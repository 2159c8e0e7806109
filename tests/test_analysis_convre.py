"""ConvRe analyses on hand-made runs whose right answers are worked out in the comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis_runs import answers, convre_description, record, write_run
from relreason.analysis import load_runs
from relreason.analysis.breakdowns import by_label
from relreason.analysis.table import NotPossible
from relreason.benchmarks.convre import analysis as cv

REL = ["hypernym", "hypernym", "has part", "has part"]


def _labelled(golds: str, given: str) -> list[dict]:
    return [
        record(i, g, a, relation=REL[i], source="WN18RR/WordNet" if i < 2 else "ConceptNet")
        for i, (g, a) in enumerate(zip(golds, given, strict=True))
    ]


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    # m1, re2text, full set: setting 1 all right (4/4); setting 3 right on items 2, 3 (2/4)
    write_run(tmp_path, "m1/s1", "m1", convre_description("re2text", 1), _labelled("ABAB", "ABAB"))
    write_run(tmp_path, "m1/s3", "m1", convre_description("re2text", 3), _labelled("ABAB", "BAAB"))
    # the subset (items 0, 1): right on item 0 only (1/2)
    write_run(
        tmp_path,
        "m1/s1-subset",
        "m1",
        convre_description("re2text", 1, subset=True),
        _labelled("AB", "AA"),
    )
    # neutral naming, setting 1, full set: right on items 0 and 2 (2/4)
    write_run(
        tmp_path,
        "m1/s1-neutral",
        "m1",
        convre_description("re2text", 1, neutral=True),
        _labelled("ABAB", "AAAA"),
    )
    return tmp_path


def test_table9_cells_and_intervals(folder: Path) -> None:
    table = cv.table9(load_runs(folder))
    data = table.data.set_index(["subset", "setting"])
    assert data.loc[(False, 1), "accuracy"] == 1.0
    assert data.loc[(False, 3), "accuracy"] == 0.5
    assert data.loc[(True, 1), "accuracy"] == 0.5
    # Wilson for 4/4 at z=1.96: centre (1 + 3.8416/8) / 1.9604 = 0.7550, half 0.2449 -> 0.510
    assert data.loc[(False, 1), "lo"] == pytest.approx(0.5101, abs=1e-3)
    shown = table.shown.set_index("model")
    assert shown.loc["m1", "1#"] == "1.000 [0.51, 1.00]"
    assert shown.loc["m1 (subset)", "1#"].startswith("0.500")
    assert "m1 (subset)" in set(shown.index)
    assert len(shown) == 2  # the neutral run is not part of Table 9
    position = list(table.shown["model"]).index("m1")
    assert table.drill[(position, "3#")].runs == ("m1/s3",)


def test_two_scorings_of_one_model_are_two_rows(folder: Path) -> None:
    write_run(
        folder,
        "m1/s1-logprob",
        "m1",
        convre_description("re2text", 1),
        _labelled("ABAB", "BBBB"),
        scoring="logprob",
    )
    runs = load_runs(folder)
    shown = cv.table9(runs).shown.set_index("model")
    assert shown.loc["m1", "1#"].startswith("1.000")
    assert shown.loc["m1 [logprob]", "1#"].startswith("0.500")
    assert len(cv.contrasts(runs).data) == 1  # the logprob run pairs with no generate run


def test_contrast_normal_vs_converse_is_paired(folder: Path) -> None:
    table = cv.contrasts(load_runs(folder))
    assert len(table.data) == 1  # s1 and s3 differ only in the relation knob
    row = table.data.iloc[0]
    assert (row["knob"], row["from"], row["to"]) == ("relation", "normal (1#)", "converse (3#)")
    # items 0, 1 right only under 1#, none only under 3#: p = 2 * (1/2)^2 = 0.5
    assert (row["n"], row["only_from"], row["only_to"]) == (4, 2, 0)
    assert row["diff"] == pytest.approx(-0.5)
    assert row["p_mcnemar"] == pytest.approx(0.5)
    assert table.drill[(0, "only_from")].ids == ("item/0", "item/1")  # the discordant triples
    assert table.drill[(0, "only_to")].ids == ()


def test_per_relation_and_source(folder: Path) -> None:
    runs = load_runs(folder)
    table = by_label(runs, "relation", "convre", "ConvRe")
    cell = table.data.set_index(["run_id", "relation"])
    assert cell.loc[("m1/s3", "hypernym"), "accuracy"] == 0.0
    assert cell.loc[("m1/s3", "has part"), "accuracy"] == 1.0
    sources = by_label(runs, "source", "convre", "ConvRe").data.set_index(["run_id", "source"])
    assert sources.loc[("m1/s3", "ConceptNet"), "correct"] == 2


def test_subset_vs_full_table6(folder: Path) -> None:
    row = cv.subset_vs_full(load_runs(folder)).data.iloc[0]
    assert (row["full"], row["subset"], row["diff"]) == (1.0, 0.5, -0.5)
    assert (row["n_full"], row["n_subset"]) == (4, 2)


def test_neutral_vs_normal_table7(folder: Path) -> None:
    table = cv.neutral_vs_normal(load_runs(folder))
    assert table.shown.iloc[0]["neutral (diff)"] == "0.500 (-0.500)"
    assert table.data.iloc[0]["p_mcnemar"] == pytest.approx(0.5)


def test_wrong_overlap_table8(tmp_path: Path) -> None:
    # hypernym, re2text 4#: m1 wrong on items 0, 1; m2 on 1, 2; m3 on none
    for model, given in (("m1", "BBAA"), ("m2", "ABBA"), ("m3", "AAAA")):
        write_run(
            tmp_path,
            model,
            model,
            convre_description("re2text", 4),
            answers("AAAA", given, relation="hypernym"),
        )
    table = cv.wrong_overlap(load_runs(tmp_path)).data.set_index("model")
    assert list(table["accuracy"]) == [0.5, 0.5, 1.0]
    assert table.loc["m1", "m2"] == 0.25  # item 1 of 4
    assert table.loc["m1", "m3"] == 0.0
    assert pd_isna(table.loc["m1", "m1"])
    drill = cv.wrong_overlap(load_runs(tmp_path)).drill[(0, "m2")]
    assert (drill.runs, drill.ids) == (("m1", "m2"), ("item/1",))


def pd_isna(value: object) -> bool:
    return value is None or value != value


def test_not_possible_reasons(tmp_path: Path) -> None:
    write_run(
        tmp_path, "only", "m1", convre_description("text2re", 2), answers("AB", "AB", relation="x")
    )
    runs = load_runs(tmp_path)
    with pytest.raises(NotPossible, match="differ in exactly one knob"):
        cv.contrasts(runs)
    with pytest.raises(NotPossible, match="Table 6"):
        cv.subset_vs_full(runs)
    with pytest.raises(NotPossible, match="fewer than two models"):
        cv.wrong_overlap(runs)
