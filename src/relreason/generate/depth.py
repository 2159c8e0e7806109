"""Proof depth: how many premises an item's answer takes, measured by the solver.

A determined item's depth is the least number of relational premises from which its answer
follows: some subset of that size (with every attribute statement, a sex or a count, beside
it) decides the gold, and no smaller subset does. Premises a subset leaves unlinked to the
asked entity are set aside before solving (they cannot bear on it), so adding premises never
undoes a decision and the least size is found level by level from the top. An undetermined
item's depth is the number of premises on the path from the asked entity to the other one
(or, where the question names no other entity, those linked to the asked one): what a reader
must go through to see that nothing fixes the answer. ``compose`` keeps only items whose depth
is their ``hops``; ``verify`` measures it again.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from relreason.generate import kin_words
from relreason.generate.errors import SolverError
from relreason.generate.solver import solve

Triple = tuple[str, ...]
ATTRIBUTES = frozenset({"sex", "has"})
"""Relations stating a fact of one entity (not a link between two): never counted."""


def expected(language: str, domain: str, labels: frozenset[str]) -> str | None:
    """Return the answer the labels give (a kinship word, a label or 'uncertain'); None: none."""
    if not labels:
        return None
    if domain == "kinship":
        return kin_words.answer_word(language, labels)
    return next(iter(labels)) if len(labels) == 1 else "uncertain"


def constants(domain: str, query: Sequence[str]) -> frozenset[str]:
    """Return the entities that link nothing (identity: the named people, fixed by name)."""
    return frozenset(str(query[2]).split("|")) if domain == "identity" else frozenset()


def _links(premises: Sequence[Triple]) -> dict[str, list[int]]:
    links: dict[str, list[int]] = {}
    for i, (a, relation, b) in enumerate(premises):
        if relation not in ATTRIBUTES:
            links.setdefault(a, []).append(i)
            links.setdefault(b, []).append(i)
    return links


def linked(premises: Sequence[Triple], head: str, fixed: frozenset[str]) -> list[int]:
    """Return the indices of the relational premises linked to ``head`` (not through ``fixed``)."""
    links = _links(premises)
    seen, found, todo = {head}, set(), [head]
    while todo:
        for i in links.get(todo.pop(), []):
            found.add(i)
            for x in (premises[i][0], premises[i][2]):
                if x not in seen and x not in fixed:
                    seen.add(x)
                    todo.append(x)
    return sorted(found)


def path(premises: Sequence[Triple], head: str, tail: str) -> list[int] | None:
    """Return the indices of the relational premises on the path from head to tail, or None."""
    links = _links(premises)
    came: dict[str, int | None] = {head: None}
    todo = [head]
    while todo:
        here = todo.pop(0)
        for i in links.get(here, []):
            a, _, b = premises[i]
            other = b if a == here else a
            if other not in came:
                came[other] = i
                todo.append(other)
    if tail not in came:
        return None
    steps: list[int] = []
    at = tail
    while (step := came[at]) is not None:
        steps.append(step)
        a, _, b = premises[step]
        at = a if b == at else b
    return steps


def _relevant(premises: Sequence[Triple], query: Sequence[str], domain: str) -> list[Triple]:
    """Return the premises linked to the asked entity, with the attributes of what they link."""
    keep = linked(premises, query[0], constants(domain, query))
    reached = {x for i in keep for x in (premises[i][0], premises[i][2])} | {query[0]}
    return [
        p for i, p in enumerate(premises) if i in keep or (p[1] in ATTRIBUTES and p[0] in reached)
    ]


def decides(
    premises: Sequence[Triple], query: Sequence[str], language: str, domain: str, gold: str
) -> bool:
    """Return whether ``premises`` (set aside what is unlinked) give the answer ``gold``."""
    try:
        labels = solve(_relevant(premises, query, domain), query)
    except SolverError:
        return False
    return expected(language, domain, labels) == gold


def proof_depth(
    premises: Sequence[Sequence[str]], query: Sequence[str], language: str, domain: str
) -> int:
    """Return the item's depth (module doc). Raises ``SolverError`` for unreadable premises."""
    triples = [tuple(p) for p in premises]
    gold = expected(language, domain, solve(triples, query))
    if gold is None:
        raise SolverError("the premises contradict each other")
    attributes = [p for p in triples if p[1] in ATTRIBUTES]
    relational = [p for p in triples if p[1] not in ATTRIBUTES]
    if gold == "uncertain":
        steps = path(triples, query[0], str(query[2]))
        if steps is not None:
            return len(steps)
        return len(linked(triples, query[0], constants(domain, query)))
    at = [relational[i] for i in linked(relational, query[0], constants(domain, query))]
    best = len(at)
    for size in range(len(at) - 1, 0, -1):
        if not any(
            decides([*attributes, *subset], query, language, domain, gold)
            for subset in itertools.combinations(at, size)
        ):
            break
        best = size
    return best
