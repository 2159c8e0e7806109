"""Kinship and position options balanced against surface probes: how often each kin word (or
direction) was the right option and a wrong one, overall and beside what a probe sees of an
item's premises."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import relreason.generate.chains as chains
from relreason.generate import balance, kin_words
from relreason.generate.spatial import COMPASS, COMPASS_LABELS, RELATIVE, RELATIVE_LABELS


@dataclass
class WordUsage:
    """Kinship: how often each word was the right option and a wrong one so far (one language),
    overall and beside each surface context of an item (``contexts``: the relation of the first,
    the last and the asked person's own premise, the number of premises).

    Wrong options go first to the words due most (right more often than one time in n of their
    showings) in the item's contexts, then overall; an item whose right word is already right
    too often there is drawn again first (``ahead``). So neither which words an item offers nor
    its premises' relations or count tell which word is right."""

    n_options: int
    right: Counter[str] = field(default_factory=Counter)
    wrong: Counter[str] = field(default_factory=Counter)
    right_by: Counter[tuple[str, str]] = field(default_factory=Counter)
    wrong_by: Counter[tuple[str, str]] = field(default_factory=Counter)

    def deficit(self, word: str) -> float:
        """How many more showings as a wrong option the word is due."""
        return self.right[word] * (self.n_options - 1) - self.wrong[word]

    def due_in(self, keys: list[str], word: str) -> int:
        """In how many of ``keys`` (contexts) the word is due as a wrong option."""
        n = self.n_options - 1
        return sum(self.right_by[(k, word)] * n > self.wrong_by[(k, word)] for k in keys)

    def due(self, keys: list[str]) -> Callable[[str], float]:
        """Rank wrong words for an item of contexts ``keys``: by the contexts they are due in
        (``PAIRED`` each), then by how due they are overall."""
        return lambda word: PAIRED * self.due_in(keys, word) + self.deficit(word)

    def ahead(self, item: dict[str, Any], keys: list[str]) -> float:
        """A cost for an item whose right word is already right more than one time in n of its
        showings (overall, and in each of the item's contexts ``keys``)."""
        if item["answer"] == "uncertain":
            return 0.0
        word = self.word(item, str(item["answer"]))
        return float(self.deficit(word) > 0) + self.due_in(keys, word)

    def word(self, item: dict[str, Any], label: str) -> str:
        """The word an option label shows (kinship: its kin word)."""
        return str(kin_words.word_of(item["language"], label))

    def count(self, item: dict[str, Any], keys: list[str]) -> None:
        """Count the words of a finished item (``keys``: its contexts)."""
        for label in item["option_labels"]:
            if label != "uncertain":
                word = self.word(item, label)
                right = label == item["answer"]
                (self.right if right else self.wrong)[word] += 1
                for key in keys:
                    (self.right_by if right else self.wrong_by)[(key, word)] += 1


PAIRED = 1e6
"""``WordUsage.due``: the weight of each context a word is due in, above any overall deficit."""


def contexts(premises: Any, head: str = "P0") -> list[str]:
    """Kinship: what a surface probe sees of an item's premises beside the options (the
    relations of the first and the last premise and of the asked person's own, their count)."""
    told = [p for p in premises if p[1] != "sex"]
    own = [f"own={p[1]}" for p in told if head in (p[0], p[2])]
    return [f"first={told[0][1]}", f"last={told[-1][1]}", *own, f"n={len(premises)}"]


@dataclass
class LabelUsage(WordUsage):
    """Position: how often each direction label was the right option and a wrong one so far
    (one language), as ``WordUsage`` counts kin words (overall only: the asked person's own
    premises follow the options, ``lean_fillers``)."""

    def word(self, item: dict[str, Any], label: str) -> str:
        """The label itself (a direction: ``front_left``, ``north``)."""
        return label


def _table(frame: str) -> tuple[dict[str, tuple[int, int]], dict[tuple[int, int], str]]:
    return (COMPASS, COMPASS_LABELS) if frame == "compass" else (RELATIVE, RELATIVE_LABELS)


def leans(frame: str, label: str) -> list[str]:
    """Position: the relations (read from the asked person) a determined item's path premise
    there can have when ``label`` is its answer (``chains.leaning``)."""
    table, labels = _table(frame)
    return chains.leaning(table, next(s for s, name in labels.items() if name == label))


def leaned_to(rng: random.Random, frame: str, relation: str) -> str:
    """Position: a direction ``relation`` (the asked person's path step) leans towards, drawn
    as a determined item's answer is given that step (each direction weighed by 1 / the
    number of steps leaning to it): the definite option an "Uncertain" item's path supports."""
    _, labels = _table(frame)
    found = [
        name for name in labels.values() if name != "same_place" and relation in leans(frame, name)
    ]
    return rng.choices(found, weights=[1 / len(leans(frame, name)) for name in found])[0]


def lean_fillers(
    rng: random.Random, premises: list[chains.Triple], hops: int, frame: str, wrong: list[str]
) -> list[chains.Triple]:
    """Position: the premises with the asked person's filler premises (``filler.mirror``: to
    new people, P(hops+1) on) each leaning towards one of the ``wrong`` options, as the path
    premise leans towards the right one (or, in an "Uncertain" item, towards ``leaned_to``'s
    option). Every definite option then has one premise of the asked person leaning to it,
    drawn alike, so those premises say nothing of which is right."""
    found = list(premises)
    at = [
        i
        for i, (a, _, b) in enumerate(found)
        if "P0" in (a, b) and int((b if a == "P0" else a)[1:]) > hops
    ]
    for i, label in zip(at, wrong, strict=False):
        a, _, b = found[i]
        relation = rng.choice(leans(frame, label))
        found[i] = (a, relation, b) if a == "P0" else (a, balance._OPPOSITE[relation], b)
    return found
