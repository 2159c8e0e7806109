"""MCR analyses on hand-made runs; the relation-count rule on questions of each language."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis_runs import answers, mcr_description, record, write_run
from relreason.analysis import load_runs
from relreason.analysis.breakdowns import by_label
from relreason.analysis.table import NotPossible
from relreason.benchmarks.mcr import analysis as mcr
from relreason.benchmarks.mcr.relations import count_relations


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("Wilson is Jack's leader, and Amy is Wilson's leader. What is Jack to Amy?", 2),
        (
            "Mike is William's son, Bai is Mike's daughter, Mary is William's wife. Mary is Bai's?",
            3,
        ),
        ("Rosie is 8 years old. Mike is 2 years younger than Rosie. How old is Mike?", 2),
        ("Is my brother's son my nephew?", None),
        ("草鱼属于鲤形目，鲤形目属于辐鳍鱼亚纲。草鱼属于什么纲？", 2),
        ("A比B高，C比A低，那么C和B相比如何？", 2),
        ("ソウギョはコイ目に属し、条鰭綱に属します。ソウギョはどの綱に属しますか?", 2),
        ("Wilson est le chef de Jack, et Amy est le chef de Wilson. Qu'est Jack pour Amy ?", 2),
        ("윌슨은 잭의 리더이고, 에이미는 윌슨의 리더입니다. 잭은 에이미에게 무엇입니까?", 2),
        ("It costs 1,000 dollars, and 2.5 more. How much?", 2),  # no split inside numbers
    ],
)
def test_count_relations(question: str, count: int | None) -> None:
    assert count_relations(question) == count


@given(st.text(max_size=200))
def test_count_relations_never_fails(text: str) -> None:
    count = count_relations(text)
    assert count is None or count >= 1
    assert count_relations(text + "  ") == count


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    cats = [["Personal", "Identity"], ["Personal"], ["Other"], ["Other"]]
    opts = [3, 3, 4, 4]

    def recs(given: str) -> list[dict]:
        return [
            record(i, g, a, categories=cats[i], n_options=opts[i], item_id=f"en/{i}")
            for i, (g, a) in enumerate(zip("ABCD", given, strict=True))
        ]

    # m1: right on 0, 1, 2 (3/4); m2: right on 0 (1/4); m1 zh: 2/4
    write_run(tmp_path, "m1/en-zs", "m1", mcr_description("en", "zs"), recs("ABCA"))
    write_run(tmp_path, "m2/en-zs", "m2", mcr_description("en", "zs"), recs("AAAA"))
    write_run(tmp_path, "m1/zh-zs", "m1", mcr_description("zh", "zs"), recs("ABAA"))
    write_run(tmp_path, "m1/en-fs", "m1", mcr_description("en", "fs"), recs("ABCD"))
    write_run(tmp_path, "m1/en-fs-english", "m1", mcr_description("en", "fs-english"), recs("AAAA"))
    return tmp_path


def test_table4(folder: Path) -> None:
    shown = mcr.table4(load_runs(folder)).shown.set_index(["model", "method"])
    assert shown.loc[("m1", "zs"), "EN"] == "75.00"
    assert shown.loc[("m1", "zs"), "ZH"] == "50.00"
    assert shown.loc[("m1", "zs"), "AVG"] == "62.50"
    assert shown.loc[("m2", "zs"), "EN"] == "25.00"
    # chance: options 3, 3, 4, 4 -> (1/3 + 1/3 + 1/4 + 1/4) / 4 = 29.17%
    assert shown.loc[("chance (1/options)", ""), "EN"] == "29.17"


def test_categories_count_each(folder: Path) -> None:
    data = by_label(load_runs(folder), "categories", "mcr", "MCR").data
    m1 = data[data["run_id"] == "m1/en-zs"].set_index("categories")
    # item 0 (right) is Personal and Identity; item 1 (right) Personal; 2 right, 3 wrong Other
    assert (m1.loc["Personal", "n"], m1.loc["Personal", "accuracy"]) == (2, 1.0)
    assert (m1.loc["Identity", "n"], m1.loc["Other", "accuracy"]) == (1, 0.5)


def test_agreement_table5_with_kappa(folder: Path) -> None:
    row = mcr.agreement(load_runs(folder), reference="m1").data.iloc[0]
    # m1 right 0,1,2; m2 right 0: both 1/4, only m1 2/4, only m2 0, both wrong 1/4
    assert (row["model_a"], row["model_b"]) == ("m1", "m2")
    assert (row["both_right"], row["only_a_right"], row["only_b_right"], row["both_wrong"]) == (
        0.25,
        0.5,
        0.0,
        0.25,
    )
    # observed 0.5; p_a .75, p_b .25: expected .1875 + .1875 = .375; kappa .125/.625 = 0.2
    assert row["kappa"] == pytest.approx(0.2)
    assert row["p_mcnemar"] == pytest.approx(0.5)


def test_exemplar_ablation_table6(folder: Path) -> None:
    shown = mcr.exemplar_ablation(load_runs(folder)).shown.iloc[0]
    assert (shown["fs"], shown["fs-english"]) == ("100.00", "25.00")
    assert shown.isna()["fs-multilingual"]


def test_options_against_chance(folder: Path) -> None:
    data = mcr.by_options(load_runs(folder)).data
    row = data[(data["model"] == "m2") & (data["n_options"] == 3)].iloc[0]
    assert (row["accuracy"], row["chance"]) == (0.5, pytest.approx(1 / 3))


def test_relation_counts_need_questions(folder: Path) -> None:
    runs = load_runs(folder)
    with pytest.raises(NotPossible, match="questions are not available"):
        mcr.relation_counts(runs)
    runs.items["question"] = [
        "A is B's son, B is C's son. Who?",
        "Is my mother's son my brother?",
        "A > B, B > C, C > D. Which?",
        "A > B, B > C, C > D. Which?",
    ] * 5
    table = mcr.relation_counts(runs)
    m1 = table.data[table.data["run_id"] == "m1/en-zs"].set_index("n_relations")
    assert (m1.loc[2, "accuracy"], m1.loc[3, "accuracy"]) == (1.0, 0.5)
    assert table.shown.iloc[0]["not counted"] == 1


def test_no_mcr(tmp_path: Path) -> None:
    from analysis_runs import convre_description

    write_run(tmp_path, "c", "m", convre_description("re2text", 1), answers("A", "A"))
    with pytest.raises(NotPossible, match="no MCR run"):
        mcr.table4(load_runs(tmp_path))
