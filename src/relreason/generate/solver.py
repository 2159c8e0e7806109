"""The solver: every answer the premises allow, found by enumerating their models.

``solve(premises, query)`` returns the set of formal answer labels, one per class of models
(worlds) consistent with the premises; the answer is determined exactly when the set has one
label (in a given language: when all labels have one term there). No answer tables: kinship
labels come from the structure of each enumerated family (``kin_labels``), positions and orders
from the enumerated offsets (``spatial``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import relreason.generate.kin_world as kin_world
from relreason.generate.domains import SPECS, spec_of_relation
from relreason.generate.errors import SolverError
from relreason.generate.kin_labels import UnknownSex, kin_label
from relreason.generate.kin_world import FEMALE, MALE, World
from relreason.generate.spatial import COMPASS, ORDER, RELATIVE, solve_order, solve_position

Triple = tuple[str, str, str]
SEX = "sex"
SEX_VALUES: dict[str, str] = {"male": MALE, "female": FEMALE}
DOMAINS: tuple[str, ...] = ("kinship", "position", "order")
MAX_WORLDS = 200_000


def domain_of(premises: Sequence[Triple]) -> str:
    """Return the domain of a premise list; raises ``SolverError`` for unknown or mixed ones."""
    found: set[str] = set()
    for triple in premises:
        if len(triple) != 3 or not all(isinstance(part, str) for part in triple):
            raise SolverError(f"a premise must be three strings, got {triple!r}")
        relation = triple[1]
        if relation in kin_world.PREMISE_RELATIONS or relation == SEX:
            found.add("kinship")
        elif relation in COMPASS or relation in RELATIVE:
            found.add("position")
        elif relation in ORDER:
            found.add("order")
        elif (spec := spec_of_relation(relation)) is not None:
            found.add(spec.name)
        else:
            raise SolverError(f"unknown relation {relation!r} in premise {list(triple)}")
    if len(found) != 1:
        raise SolverError(f"premises must belong to one domain, got {sorted(found) or 'none'}")
    return found.pop()


def _order_premises(premises: Sequence[Triple], start: str) -> list[Triple]:
    """Return the kinship premises in an order where each touches an already placed name."""
    placed = {start}
    pending = list(premises)
    ordered: list[Triple] = []
    while pending:
        for i, (a, relation, b) in enumerate(pending):
            if a in placed or (relation != SEX and b in placed):
                ordered.append(pending.pop(i))
                placed.add(a)
                if relation != SEX:
                    placed.add(b)
                break
        else:
            raise SolverError("the premises do not connect every person to the query")
    return ordered


def _apply(world: World, triple: Triple) -> list[World]:
    a, relation, b = triple
    if relation == SEX:
        if b not in SEX_VALUES:
            raise SolverError(f"sex must be 'male' or 'female', got {b!r}")
        node = world.node(a)
        assert node is not None
        fixed = kin_world.check_sex(world, node, SEX_VALUES[b])
        return [] if fixed is None else [fixed]
    if a == b:
        raise SolverError(f"premise {list(triple)} relates a person to itself")
    na, nb = world.node(a), world.node(b)
    if na is not None and nb is not None:
        checked = kin_world.holds(world, na, relation, nb)
        return [] if checked is None else [checked]
    if nb is not None:
        return list(kin_world.place(world, a, relation, nb, inverse=False))
    assert na is not None
    return list(kin_world.place(world, b, relation, na, inverse=True))


def kinship_worlds(premises: Sequence[Triple], anchor: str) -> list[World]:
    """Return every world consistent with the kinship premises, built from ``anchor``.

    Raises ``SolverError`` when the premises are unreadable or do not connect.
    """
    start, node = kin_world._new_person(World(), None)
    worlds = [dataclasses.replace(start, names=((anchor, node),))]
    for triple in _order_premises(premises, anchor):
        worlds = [grown for world in worlds for grown in _apply(world, triple)]
        if len(worlds) > MAX_WORLDS:
            raise SolverError(f"more than {MAX_WORLDS} worlds: premises too loose to enumerate")
    return worlds


def _labels(world: World, x: int, y: int) -> set[str]:
    try:
        return {kin_label(world, x, y)}
    except UnknownSex as missing:
        found: set[str] = set()
        for sex in (MALE, FEMALE):
            fixed = kin_world.check_sex(world, missing.node, sex)
            assert fixed is not None
            found |= _labels(fixed, x, y)
        return found


def solve_kinship(premises: Sequence[Triple], head: str, tail: str) -> frozenset[str]:
    """Return the labels of ``head`` relative to ``tail`` over every consistent world.

    An empty set means the premises contradict each other.
    """
    found: set[str] = set()
    for world in kinship_worlds(premises, tail):
        x, y = world.node(head), world.node(tail)
        if x is None:
            raise SolverError(f"no premise connects {head!r} to {tail!r}")
        assert y is not None
        found |= _labels(world, x, y)
    return frozenset(found)


def solve(premises: Sequence[Sequence[str]], query: Sequence[str]) -> frozenset[str]:
    """Return every formal answer label the premises allow for ``query = (head, "?", tail)``.

    Raises ``SolverError`` for premises or queries the solver cannot read.
    """
    triples = [tuple(p) for p in premises]
    if len(query) != 3 or query[1] != "?":
        raise SolverError(f"a query is [head, '?', tail], got {list(query)!r}")
    head, _, tail = query
    if head == tail:
        raise SolverError("the query relates an entity to itself")
    domain = domain_of(triples)  # type: ignore[arg-type]
    if domain == "kinship":
        return solve_kinship(triples, head, tail)  # type: ignore[arg-type]
    if domain in SPECS:
        return SPECS[domain].solve(triples, query)  # type: ignore[arg-type]
    if domain == "position":
        return solve_position(triples, head, tail)  # type: ignore[arg-type]
    return solve_order(triples, head, tail)  # type: ignore[arg-type]
