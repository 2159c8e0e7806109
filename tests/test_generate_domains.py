"""Quantity, identity and containment: each solver equals brute force over the worlds; the
generated items are proved, balanced in their answers, and verify flags a corrupted one."""

from __future__ import annotations

import copy
import itertools
import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relreason.generate import containment, depth, identity, quantity, units
from relreason.generate.assemble import question_text
from relreason.generate.compose import ComposeOptions, compose
from relreason.generate.lexicon import LANGUAGES
from relreason.generate.solver import solve
from relreason.generate.verify import verify_items

NEW = ("quantity", "identity", "containment")


def _tree(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """A random tree over E0..En-1 (each new entity linked to an earlier one), either way."""
    pairs = []
    for i in range(1, n):
        j = rng.randrange(i)
        pairs.append((f"E{i}", f"E{j}") if rng.random() < 0.5 else (f"E{j}", f"E{i}"))
    return pairs


# ---- containment: every forest of the boxes -----------------------------------------------


def _brute_boxes(premises: list[tuple[str, str, str]], head: str, tail: str) -> set[str]:
    boxes = sorted({x for a, _, b in premises for x in (a, b)})
    found = set()
    for parents in itertools.product([None, *boxes], repeat=len(boxes)):
        up = dict(zip(boxes, parents, strict=True))

        def above(x: str, up: dict[str, str | None] = up) -> set[str] | None:
            seen: set[str] = set()
            while (p := up[x]) is not None:
                if p in seen or p == x:
                    return None
                seen.add(p)
                x = p
            return seen

        ancestors = {b: above(b) for b in boxes}
        if any(a is None for a in ancestors.values()):
            continue

        def rel(x: str, y: str, ancestors: dict[str, Any] = ancestors) -> str:
            if y in ancestors[x]:
                return "inside"
            return "contains" if x in ancestors[y] else "apart"

        if all(rel(a, b) == containment.STATES[r] for a, r, b in premises):
            found.add(rel(head, tail))
    return found


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 5))
def test_containment_solver_equals_every_forest(seed: int, n: int) -> None:
    rng = random.Random(seed)
    premises = [(a, rng.choice(sorted(containment.STATES)), b) for a, b in _tree(rng, n)]
    head, tail = rng.sample([f"E{i}" for i in range(n)], 2)
    assert solve(premises, (head, "?", tail)) == _brute_boxes(premises, head, tail)


def test_containment_examples() -> None:
    chain = [("A", "inside", "B"), ("C", "holds", "B")]  # A in B in C
    assert solve(chain, ("A", "?", "C")) == {"inside"}
    assert solve(chain, ("C", "?", "A")) == {"contains"}
    apart = [("A", "inside", "B"), ("B", "apart", "C"), ("D", "inside", "C")]
    assert solve(apart, ("A", "?", "D")) == {"apart"}
    siblings = [("A", "inside", "B"), ("C", "inside", "B")]
    assert solve(siblings, ("A", "?", "C")) == {"inside", "contains", "apart"}
    both = [("B", "holds", "A"), ("C", "holds", "A")]  # two boxes around A are nested
    assert solve(both, ("B", "?", "C")) == {"inside", "contains"}


# ---- identity: every assignment of people to descriptions ---------------------------------


def _brute_people(premises: list[tuple[str, str, str]], head: str, people: list[str]) -> set[str]:
    described = sorted({x for a, _, b in premises for x in (a, b)} - set(people))
    found = set()
    for fits in itertools.product(people, repeat=len(described)):
        who = dict(zip(described, fits, strict=True)) | {p: p for p in people}
        if all((who[a] == who[b]) == (r == "is") for a, r, b in premises):
            found.add(who[head])
    return found


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**31), hops=st.integers(1, 5))
def test_identity_solver_equals_every_assignment(seed: int, hops: int) -> None:
    chain = identity.chain(random.Random(seed), hops, "determined")
    assert chain.query is not None
    people = identity.roster(chain.query)
    premises = list(chain.premises)
    assert solve(premises, chain.query) == _brute_people(premises, chain.query[0], people)
    wrong = [(a, "is_not" if r == "is" else "is", b) for a, r, b in premises]
    assert solve(wrong, chain.query) == _brute_people(wrong, chain.query[0], people)


def test_identity_by_elimination() -> None:
    premises = [("letter", "is_not", "Ben"), ("letter", "is", "cat"), ("cat", "is_not", "Dan")]
    assert solve(premises, ("letter", "?", "Ben|Carl|Dan")) == {"Carl"}
    assert solve(premises[:2], ("letter", "?", "Ben|Carl|Dan")) == {"Carl", "Dan"}


# ---- quantity: every small count ----------------------------------------------------------


def _brute_coins(premises: list[tuple[str, str, str]], head: str, bound: int) -> set[str]:
    people = sorted({x for a, r, b in premises for x in ((a,) if r == "has" else (a, b))})
    found = set()
    for counts in itertools.product(range(bound), repeat=len(people)):
        c = dict(zip(people, counts, strict=True))
        if all(
            c[a] == int(b) if r == "has" else Fraction(c[a]) == quantity.apply(r, Fraction(c[b]))
            for a, r, b in premises
        ):
            found.add(str(c[head]))
    return found


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 3), anchored=st.booleans())
def test_quantity_solver_equals_every_small_count(seed: int, n: int, anchored: bool) -> None:
    rng = random.Random(seed)
    premises = []
    for a, b in _tree(rng, n):
        kind = rng.choice(("more", "fewer", "times", "part"))
        k = rng.randint(2, 4) if kind in ("times", "part") else rng.randint(2, 9)
        premises.append((a, f"{kind}:{k}", b))
    if anchored:
        premises.append((f"E{rng.randrange(n)}", "has", str(rng.randint(0, 12))))
    bound = 30 if n == 3 else 80
    found = _brute_coins(premises, "E0", bound)  # every world with counts below the bound
    solved = solve(premises, ("E0", "?", "coins"))
    assert anchored or len(solved) == 2  # no count given: two worlds that differ
    if anchored:
        assert found <= solved and len(solved) <= 1
    for count in solved:  # each answer's world, when within the bound, is among those found
        world = quantity.values(premises, "E0", Fraction(int(count)))
        if max(world.values()) < bound:
            assert count in found


def _brute_rates(
    premises: list[tuple[str, str, str]], head: str, tail: str, bound: int
) -> set[Fraction]:
    colours = sorted({x for a, _, b in premises for x in (a, b)})
    found = set()
    for worth in itertools.product(range(1, bound), repeat=len(colours)):
        v = dict(zip(colours, worth, strict=True))
        if all(Fraction(v[a], v[b]) == units.ratio(r) for a, r, b in premises):
            found.add(Fraction(v[head], v[tail]))
    return found


def _linked(premises: list[tuple[str, str, str]], start: str) -> set[str]:
    """The entities a chain of premises links to ``start`` (the test's own walk)."""
    seen, grew = {start}, True
    while grew:
        grew = False
        for a, _, b in premises:
            if (a in seen) != (b in seen):
                seen |= {a, b}
                grew = True
    return seen


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), linked=st.booleans())
def test_exchange_solver_equals_every_small_world(seed: int, linked: bool) -> None:
    chain = units.chain(random.Random(seed), 2, "determined" if linked else "uncertain")
    assert chain.query is not None
    head, _, tail = chain.query
    premises = list(chain.premises)
    solved = solve(premises, chain.query)
    part = _linked(premises, head)
    # two parts: the head's path of two rates and one rate beside it; the tail in head's or not
    assert len(premises) == 3 and (tail in part) == linked
    if linked:  # values up to 25 reach every rate; the other part's values do not matter
        found = _brute_rates([p for p in premises if p[0] in part], head, tail, 26)
        assert {Fraction(x) for x in solved} == found
    else:  # each part on its own (they share no colour): the head's value against the tail's
        mine = [p for p in premises if p[0] in part]
        ratios = _brute_rates(mine, head, mine[0][0], 26) | _brute_rates(mine, head, mine[0][2], 26)
        assert len(solved) == 2 and len(ratios) >= 1 and tail not in part


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), size=st.integers(2, 3), counts=st.integers(0, 3))
def test_quantity_solver_on_two_parts_equals_every_small_count(
    seed: int, size: int, counts: int
) -> None:
    """Two parts: E0's (``size`` people) and the rest; counts bit 1: one given in E0's part,
    bit 2 (or a part of one person): one given in the other part."""
    rng = random.Random(seed)
    premises = []
    pairs = [(a, b) for a, b in _tree(rng, size)]
    rest = [f"E{i}" for i in range(size, 4)]
    pairs += [(rest[i], rest[rng.randrange(i)]) for i in range(1, len(rest))]
    for a, b in pairs:
        kind = rng.choice(("more", "fewer", "times", "part"))
        k = rng.randint(2, 4) if kind in ("times", "part") else rng.randint(2, 9)
        premises.append((a, f"{kind}:{k}", b))
    anchored = bool(counts & 1)
    if anchored:
        premises.append((f"E{rng.randrange(size)}", "has", str(rng.randint(0, 12))))
    if counts & 2 or len(rest) == 1:
        premises.append((rng.choice(rest), "has", str(rng.randint(0, 12))))
    found = _brute_coins(premises, "E0", 16)  # every world with counts below 16
    solved = solve(premises, ("E0", "?", "coins"))
    if found:  # a world exists: the solver finds the head's count, or two when open
        assert len(solved) == (1 if anchored else 2)
        if anchored:
            assert found == solved
    if not solved:  # the solver finds no world: there is none
        assert not found


def test_quantity_examples() -> None:
    premises = [("A", "times:3", "B"), ("B", "fewer:4", "C"), ("C", "has", "10")]
    assert solve(premises, ("A", "?", "coins")) == {"18"}
    assert solve([("A", "part:4", "B"), ("B", "has", "10")], ("A", "?", "coins")) == set()
    assert len(solve(premises[:2], ("A", "?", "coins"))) == 2  # no count given: uncertain
    rates = [("red", "worth:3", "blue"), ("green", "worth:4", "blue")]  # red = 3/4 green
    assert solve(rates, ("red", "?", "green")) == {"3/4"}
    assert solve(rates, ("green", "?", "red")) == {"4/3"}
    assert solve([*rates[:1], ("green", "per:4", "blue")], ("red", "?", "green")) == {"12"}


# ---- generated items ----------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_answers_are_spread_and_every_item_proved(language: str) -> None:
    items = compose(ComposeOptions(language=language, domains=NEW, seed=5, count=60))
    assert verify_items(items) == []
    for domain in NEW:
        mine = [i for i in items if i["domain"] == domain]
        assert 3 <= sum(i["answer"] == "uncertain" for i in mine) <= 7
        assert len({i["options"].index(i["correct"]) for i in mine}) == 4
        assert all(len(set(i["option_labels"])) == len(i["option_labels"]) for i in mine)
    boxes = [i["answer"] for i in items if i["domain"] == "containment"]
    assert {a: boxes.count(a) for a in set(boxes)} == {
        "inside": 5,
        "contains": 5,
        "apart": 5,
        "uncertain": 5,
    }


def _corrupted(item: dict[str, Any]) -> dict[str, Any]:
    """The item with a premise naming the head (else the first) turned (the fact changes),
    re-worded."""
    changed = copy.deepcopy(item)
    head = item["query"][0]  # quantity: the head's own premise (another part's does not matter)
    on_path = set(depth.path(changed["premises"], head, item["query"][2]) or [])  # not filler
    order = sorted(
        range(len(changed["premises"])),
        key=lambda i: (i not in on_path, head not in changed["premises"][i]),
    )
    for premise in (changed["premises"][i] for i in order):
        relation = premise[1]
        turned = {"is": "is_not", "is_not": "is", "inside": "holds", "holds": "inside"}.get(
            relation, quantity.converse(relation)
        )
        if turned is not None and relation != "apart":
            premise[1] = turned
            break
    changed["question"] = question_text(
        item["language"],
        item["domain"],
        item["frame"],
        changed["premises"],
        item["query"],
        item["sexes"],
    )
    return changed


@pytest.mark.parametrize("domain", NEW)
def test_verify_flags_a_corrupted_item(domain: str) -> None:
    items = compose(ComposeOptions(language="en", domains=(domain,), seed=3, count=12))
    item = next(
        i
        for i in items
        if i["answer"] != "uncertain" and any(p[1] != "apart" for p in i["premises"])
    )
    assert verify_items([item]) == []
    fields = {p.field for p in verify_items([_corrupted(item)])}
    assert fields & {"answer", "premises", "options"}, fields
    wrong = next(label for label in item["option_labels"] if label != item["answer"])
    lying = dict(copy.deepcopy(item), answer=wrong)
    assert "answer" in {p.field for p in verify_items([lying])}
    twice = copy.deepcopy(item)
    at = twice["option_labels"].index(wrong)
    twice["option_labels"][at] = item["answer"]
    assert "options" in {p.field for p in verify_items([twice])}
    no_sexes = dict(copy.deepcopy(item), sexes={"Nobody": "M"})
    if domain != "containment":
        assert "sexes" in {p.field for p in verify_items([no_sexes])}
