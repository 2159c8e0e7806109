"""Wording that gives surface rules nothing to go on, without changing what an item says.

A position, order, quantity, identity or containment premise can be stated from either side
(``A is taller than B`` = ``B is shorter than A``, ``A has 3 more coins than B`` = ``B has 3
fewer coins than A``) and the premises in any order; the facts, the solver's answer and the options
stay the same. For each item, every rule of ``BALANCED`` gets a target (to hit the gold option
while it has done so on fewer than one item in n of its domain so far, else to miss it, weighed
by how far behind or ahead it is), and of a few dozen
wordings (and a few draws of the wrong options) the one meeting the most targets is kept: over
a set, each rule is then right about as often as chance. The option-length rules are balanced
the same way. Kinship premises keep their order (each names the next person); their options
avoid the words the premises use instead (``distractors``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from relreason.generate import render
from relreason.generate.assemble import question_text
from relreason.generate.chains import _COMPASS_OPPOSITE, _ORDER_OPPOSITE, _RELATIVE_OPPOSITE
from relreason.generate.domains import spec_of_relation
from relreason.generate.heuristics import (
    SURFACE,
    Heuristic,
    gold_index,
    longest_option,
    score,
    shortest_option,
)

TRIES = 16
OPTION_TRIES = 3
_OPPOSITE: dict[str, str] = {**_COMPASS_OPPOSITE, **_RELATIVE_OPPOSITE, **_ORDER_OPPOSITE}
BALANCED: dict[str, Heuristic] = {
    **SURFACE,
    "longest option": longest_option,
    "shortest option": shortest_option,
}
"""The rules each item's wording and options are chosen against."""


def kin_premise_text(
    language: str,
    premises: Sequence[Sequence[str]],
    rename: Mapping[str, str],
    sexes: Mapping[str, str],
) -> str:
    """Return the kinship premises as the question words them (case-folded), for ``avoid``."""
    named = {rename.get(p, p): s for p, s in sexes.items()}
    sentences = [
        render.kin_premise(language, (rename[a], r, rename.get(b, b)), named)
        for a, r, b in premises
    ]
    return render.join(language, sentences).casefold()


def _turn(relation: str) -> str | None:
    """Return the relation stated from the other entity (None: the premise stays as it is)."""
    if relation in _OPPOSITE:
        return _OPPOSITE[relation]
    spec = spec_of_relation(relation)
    return None if spec is None else spec.converse(relation)


def scores(item: Mapping[str, Any]) -> dict[str, float]:
    """Return each balanced rule's score on ``item`` (1: picks the gold option)."""
    gold, n = gold_index(item), len(item["options"])
    return {name: score(rule(item), gold, n) for name, rule in BALANCED.items()}


def target(behind: float) -> float:
    """Return a rule's target from how many gold picks it is behind its share (negative: ahead):
    positive = should pick the gold option, negative = should not; the size weighs it."""
    gap = behind - 0.5
    return (1.0 + gap) if gap > 0 else -(1.0 - gap)


def _cost(item: Mapping[str, Any], targets: Mapping[str, float]) -> float:
    got = scores(item)
    return sum(
        t * (1.0 - got[name]) if t > 0 else -t * got[name]
        for name, t in ((name, targets[name]) for name in BALANCED)
    )


def _worded(item: dict[str, Any], premises: list[list[str]]) -> dict[str, Any]:
    """The item with ``premises`` (same facts, other wording or order) and its question."""
    question = question_text(
        item["language"], item["domain"], item["frame"], premises, item["query"], item["sexes"]
    )
    return {**item, "question": question, "premises": premises}


def _at_ends(
    rng: random.Random, premises: list[list[str]], item: Mapping[str, Any]
) -> list[list[str]]:
    """The premises with chosen ones first and last, so that what a probe reads off the first
    and the last premise is drawn alike whatever the answer. Position: two of the asked
    person's own (each leaning towards one definite option, ``kin_balance.lean_fillers``; the
    path's other steps all lean towards the right one). Identity: an *is* premise first and an
    *is not* one last (an "Uncertain" item's premises hold more *is*). Others: as they are."""
    if item["domain"] == "position":
        head = item["query"][0]
        ends = [p for p in premises if head in (p[0], p[2])]
        firsts = lasts = ends
    elif item["domain"] == "identity":
        firsts = [p for p in premises if p[1] == "is"]
        lasts = [p for p in premises if p[1] == "is_not"]
    else:
        return premises
    if not firsts or not [p for p in lasts if p is not firsts[0]] or len(firsts + lasts) < 2:
        return premises
    first = rng.choice(firsts)
    last = rng.choice([p for p in lasts if p is not first])
    middle = [p for p in premises if p is not first and p is not last]
    return [first, *middle, last]


def balance_surface(
    rng: random.Random, item: dict[str, Any], targets: Mapping[str, float] | None = None
) -> tuple[dict[str, Any], float]:
    """Return ``item`` with its position/order premises worded to meet the rule targets, and
    the cost left (rules missing their target)."""
    goal = targets if targets is not None else dict.fromkeys(BALANCED, -1.0)
    if item["domain"] == "kinship":
        return item, _cost(item, goal)
    base = [tuple(p) for p in item["premises"]]
    item = _worded(item, _at_ends(rng, [list(p) for p in base], item))
    best, best_cost = item, _cost(item, goal)
    for _ in range(TRIES):
        if best_cost == 0:
            break
        premises = [
            [b, turned, a] if (turned := _turn(r)) is not None and rng.random() < 0.5 else [a, r, b]
            for a, r, b in base
        ]
        rng.shuffle(premises)
        premises = _at_ends(rng, premises, item)
        candidate = _worded(item, premises)
        cost = _cost(candidate, goal)
        if cost < best_cost:
            best, best_cost = candidate, cost
    return best, best_cost


def choose(
    rng: random.Random, candidates: Sequence[dict[str, Any]], goal: Mapping[str, float]
) -> tuple[dict[str, Any], float]:
    """Return the candidate (same facts, other options or wording) meeting the most targets
    (``goal``: rule name -> ``target``) and its cost (targets missed, weighed)."""
    best: tuple[float, dict[str, Any]] | None = None
    for candidate in candidates:
        worded, cost = balance_surface(rng, candidate, goal)
        if best is None or cost < best[0]:
            best = (cost, worded)
        if cost == 0:
            break
    assert best is not None
    return best[1], best[0]
