"""Hand rules an independent audit found beating chance on the compose set (before 2026-12),
kept in the audit's battery beside ``heuristics`` so a set that lets them through fails it.

Each maps an item to the options it favours (indices) or None (no opinion: chance).
"""

from __future__ import annotations

from fractions import Fraction

from relreason.generate.balance import _turn
from relreason.generate.heuristics import Heuristic, Item, _names, _uncertain_index, named_label
from relreason.generate.probes import _NUMBER


def _people(item: Item) -> dict[str, int]:
    return {
        str(label): i
        for i, label in enumerate(item["option_labels"])
        if item["domain"] == "identity" and label != "uncertain"
    }


def _or_uncertain(item: Item, found: set[int]) -> set[int] | None:
    unsure = _uncertain_index(item)
    return found or ({unsure} if unsure is not None else None)


def asked_is_sentence(item: Item) -> set[int] | None:
    """Identity: the person an *is* premise names beside the asked description, else
    "Uncertain"."""
    people = _people(item)
    if not people:
        return None
    head = item["query"][0]
    found = {
        people[x]
        for a, relation, b in item["premises"]
        if relation == "is" and head in (a, b)
        for x in (a, b)
        if x in people
    }
    return _or_uncertain(item, found)


def any_is_sentence(item: Item) -> set[int] | None:
    """Identity: any person an *is* premise names, else "Uncertain"."""
    people = _people(item)
    if not people:
        return None
    found = {people[x] for a, r, b in item["premises"] if r == "is" for x in (a, b) if x in people}
    return _or_uncertain(item, found)


def never_named(item: Item) -> set[int] | None:
    """Identity: the people no premise names (the one left when the others are ruled out)."""
    people = _people(item)
    named = {x for a, _, b in item["premises"] for x in (a, b)}
    found = {i for person, i in people.items() if person not in named}
    return found or None


def asked_first_premise(item: Item) -> set[int] | None:
    """The relation of the first premise naming the asked entity, read from it."""
    head = item["query"][0]
    for a, relation, b in item["premises"]:
        if head == a:
            return _names(item, named_label(relation))
        if head == b:
            turned = _turn(relation)
            return None if turned is None else _names(item, named_label(turned))
    return None


def _values(item: Item) -> list[tuple[Fraction, int]]:
    return [
        (Fraction(str(o)), i) for i, o in enumerate(item["options"]) if _NUMBER.fullmatch(str(o))
    ]


def median_option(item: Item) -> set[int] | None:
    """Numbers: the median of the numeric options (the two middle ones of an even count)."""
    values = sorted(_values(item))
    if len(values) < 3:
        return None
    middle = {values[(len(values) - 1) // 2][1], values[len(values) // 2][1]}
    return middle


def reciprocal_pair(item: Item) -> set[int] | None:
    """Exchange: an option whose reciprocal is an option too (a rate read the other way)."""
    values = _values(item)
    given = {v for v, _ in values}
    found = {i for v, i in values if v != 0 and 1 / v in given and v != 1}
    return found or None


RULES: dict[str, Heuristic] = {
    "identity: asked is-sentence, else Uncertain": asked_is_sentence,
    "identity: any name in an is-sentence": any_is_sentence,
    "identity: the person never named": never_named,
    "asked entity's first premise": asked_first_premise,
    "median option (numbers)": median_option,
    "reciprocal pair (numbers)": reciprocal_pair,
}
