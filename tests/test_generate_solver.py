"""The solver on hand-made premises: determined, uncertain and contradictory cases."""

from __future__ import annotations

import pytest

from relreason.generate.errors import SolverError
from relreason.generate.kin_terms import term
from relreason.generate.solver import solve


def kin(*premises: tuple[str, str, str], head: str = "A", tail: str = "C") -> frozenset[str]:
    return solve(list(premises), (head, "?", tail))


def words(language: str, labels: frozenset[str]) -> set[str | None]:
    return {term(language, label) for label in labels}


def test_mother_of_older_brother_is_mother() -> None:
    labels = kin(("A", "mother", "B"), ("B", "older_brother", "C"))
    assert {label.split("@")[0] for label in labels} == {"anc:F"}
    assert words("en", labels) == {"mother"}
    assert words("zh", labels) == {"母亲"}


def test_father_of_mother_is_maternal_grandfather() -> None:
    labels = kin(("A", "father", "B"), ("B", "mother", "C"))
    assert words("en", labels) == {"grandfather"}
    assert words("zh", labels) == {"外公"}
    assert words("ko", labels) == {"외할아버지"}
    assert words("ja", labels) == {"祖父"}


def test_sibling_order_left_open_is_uncertain_in_chinese_only() -> None:
    labels = kin(("A", "younger_brother", "B"), ("B", "older_brother", "C"), ("C", "sex", "male"))
    assert words("en", labels) == {"brother"}
    assert words("fr", labels) == {"frère"}
    assert words("zh", labels) == {"哥哥", "弟弟"}
    assert words("ja", labels) == {"兄", "弟"}


def test_korean_older_brother_depends_on_the_sex_of_the_younger_sibling() -> None:
    assert words("ko", kin(("A", "older_brother", "C"), head="A", tail="C")) == {"형", "오빠"}
    stated = kin(("A", "older_brother", "C"), ("C", "sex", "female"))
    assert words("ko", stated) == {"오빠"}


def test_distinct_names_force_the_other_parent() -> None:
    # A is B's father and B is C's son: A cannot be C, so C is B's mother and A her husband.
    labels = kin(("A", "father", "B"), ("B", "son", "C"))
    assert words("en", labels) == {"husband"}


def test_uncle_side_and_age() -> None:
    labels = kin(("A", "older_brother", "B"), ("B", "father", "C"))
    assert words("zh", labels) == {"伯父"}
    assert words("ja", labels) == {"伯父"}
    assert words("ko", labels) == {"큰아버지"}
    younger = kin(("A", "younger_brother", "B"), ("B", "mother", "C"))
    assert words("zh", younger) == {"舅舅"}
    assert words("ja", younger) == {"叔父"}


def test_in_laws_depend_on_whose_spouse() -> None:
    wife_side = kin(("A", "father", "B"), ("B", "wife", "C"))
    husband_side = kin(("A", "father", "B"), ("B", "husband", "C"))
    assert words("zh", wife_side) == {"岳父"}
    assert words("zh", husband_side) == {"公公"}
    assert words("en", wife_side) == words("en", husband_side) == {"father-in-law"}


def test_contradiction_has_no_model() -> None:
    assert kin(("A", "father", "B"), ("A", "sex", "female"), ("B", "son", "C")) == frozenset()


def test_compass_composition_and_uncertainty() -> None:
    assert solve([("A", "north_of", "B"), ("B", "east_of", "C")], ("A", "?", "C")) == {"northeast"}
    assert solve([("A", "north_of", "B"), ("C", "north_of", "B")], ("A", "?", "C")) == {
        "north",
        "south",
        "same_place",
    }
    # Diagonal then its own axis only: x stays positive, y could be anything.
    found = solve(
        [("A", "northeast_of", "B"), ("B", "north_of", "C"), ("D", "north_of", "C")],
        ("A", "?", "D"),
    )
    assert found == {"northeast", "east", "southeast"}


def test_relative_frame() -> None:
    premises = [("A", "left_of", "B"), ("C", "behind", "B")]
    assert solve(premises, ("A", "?", "C")) == {"front_left"}


def test_order_with_ties_and_undetermined_pairs() -> None:
    tie = [("A", "taller_than", "B"), ("B", "same_height_as", "C")]
    assert solve(tie, ("A", "?", "C")) == {"taller"}
    assert solve(tie, ("C", "?", "A")) == {"shorter"}
    open_pair = [("A", "older_than", "B"), ("C", "older_than", "B")]
    assert solve(open_pair, ("A", "?", "C")) == {"older", "younger", "same_age"}
    chain = [("A", "arrived_before", "B"), ("B", "arrived_with", "C"), ("C", "arrived_before", "D")]
    assert solve(chain, ("D", "?", "A")) == {"after"}


def test_long_mixed_chain_can_come_back_to_equal() -> None:
    # +1 step then five -1 steps: magnitudes up to the number of premises reach every sign.
    premises = [("P0", "taller_than", "P1")] + [
        (f"P{i}", "shorter_than", f"P{i + 1}") for i in range(1, 6)
    ]
    assert solve(premises, ("P0", "?", "P6")) == {"taller", "shorter", "same_height"}


@pytest.mark.parametrize(
    ("premises", "query"),
    [
        ([("A", "knows", "B")], ("A", "?", "B")),
        ([("A", "north_of", "B"), ("B", "taller_than", "C")], ("A", "?", "C")),
        ([("A", "north_of", "B"), ("B", "north_of", "C"), ("C", "north_of", "A")], ("A", "?", "C")),
        ([("A", "north_of", "B")], ("A", "?", "Z")),
        ([("A", "father", "B")], ("A", "?", "Z")),
        ([("A", "father", "B")], ("A", "is", "B")),
    ],
)
def test_unreadable_premises_raise(
    premises: list[tuple[str, str, str]], query: tuple[str, ...]
) -> None:
    with pytest.raises(SolverError):
        solve(premises, query)
