"""What a domain of its own module (quantity, identity, containment) gives ``compose``.

Kinship, position and order are wired into ``compose``, ``render`` and ``verify`` directly; the
later domains each bring a ``DomainSpec``: their relations, how to draw a chain, solve it, word
it and pick wrong options. ``domains.SPECS`` holds them by name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from relreason.generate.chains import Chain
from relreason.generate.errors import SolverError

Triple = tuple[str, str, str]
Premises = Sequence[Sequence[str]]


@dataclass(frozen=True)
class DomainSpec:
    """One domain: relations, chains, solver, wording and wrong options (see each field)."""

    name: str
    is_relation: Callable[[str], bool]
    """Whether a premise relation belongs to the domain."""
    converse: Callable[[str], str | None]
    """The same fact stated from the other entity (None: a premise that cannot be turned)."""
    named: Mapping[str, str]
    """Relation -> the answer label it names on its face (for the audit's premise rules)."""
    classes: tuple[str, ...]
    """Determined answer classes spread evenly over a set (empty: not steered)."""
    definite: int
    """How many definite options an item can have at most."""
    chain: Callable[[random.Random, int, str], Chain]
    """Draw a chain of n hops; want = a class, "determined" or "uncertain"."""
    solve: Callable[[Sequence[Triple], Sequence[str]], frozenset[str]]
    """Every answer label the premises allow (more than one: undetermined)."""
    question: Callable[[str, str, Premises, Sequence[str], Mapping[str, str]], str]
    """(language, frame, premises, query, sexes) -> the question text."""
    option: Callable[[str, str], str | None]
    """(language, label) -> option text."""
    distractors: Callable[[random.Random, Chain, str, frozenset[str], int], list[str]]
    """(rng, chain, answer, labels the models allow, how many) -> wrong option labels."""
    frame: Callable[[Premises, Sequence[str]], str]
    """The item's frame, read off its premises."""
    persons: Callable[[Premises, Sequence[str]], set[str]]
    """The persons an item's ``sexes`` must name (empty: no persons)."""
    rename: Callable[[random.Random, str, Chain, bool], dict[str, str]]
    """(rng, language, chain, fictional) -> placeholder -> final name."""


def walk(
    premises: Sequence[Triple],
    head: str,
    tail: str,
    state: Mapping[str, str],
    flip: Mapping[str, str],
) -> list[str]:
    """Return the labels of each step on the path from ``head`` to ``tail``.

    A premise ``(a, r, b)`` walked from a to b reads ``state[r]``, from b to a ``flip`` of it.
    Raises ``SolverError`` unless the premises form a tree over the entities holding both ends.
    """
    links: dict[str, list[tuple[str, str]]] = {}
    for a, relation, b in premises:
        if a == b:
            raise SolverError(f"premise {[a, relation, b]} relates an entity to itself")
        if relation not in state:
            raise SolverError(f"unknown relation {relation!r}")
        links.setdefault(a, []).append((b, state[relation]))
        links.setdefault(b, []).append((a, flip[state[relation]]))
    if head not in links or tail not in links:
        raise SolverError("the query names an entity no premise mentions")
    came: dict[str, tuple[str, str] | None] = {head: None}
    todo = [head]
    while todo:
        here = todo.pop()
        for other, label in links[here]:
            if other not in came:
                came[other] = (here, label)
                todo.append(other)
    if len(came) != len(links) or len(premises) != len(links) - 1:
        raise SolverError("the premises must form a tree (a chain) over the entities")
    steps: list[str] = []
    at = tail
    while (step := came[at]) is not None:
        at, label = step
        steps.append(label)
    return list(reversed(steps))


def shuffled(rng: random.Random, premises: list[Triple]) -> tuple[Triple, ...]:
    """Return the premises in random order."""
    rng.shuffle(premises)
    return tuple(premises)


def wrong_labels(
    rng: random.Random,
    labels: Sequence[str],
    answer: str,
    possible: frozenset[str],
    prefer: Callable[[str], float] | None = None,
) -> list[str]:
    """Return the wrong labels in the order they are tried: for an uncertain answer those the
    models allow first, then the rest (each group shuffled; ``prefer`` ranks the rest, highest
    first)."""
    first = [x for x in labels if x in possible and x != answer]
    rest = [x for x in labels if x not in possible]
    rng.shuffle(first)
    rng.shuffle(rest)
    if prefer is not None:
        rest.sort(key=lambda label: -prefer(label))
    return (first if answer == "uncertain" else []) + rest
