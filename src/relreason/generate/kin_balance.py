"""Kinship and position options balanced against surface probes: how often each kin word (or
direction) was the right option and a wrong one, overall and beside what a probe sees of an
item's premises."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import relreason.generate.chains as chains
from relreason.generate import balance, heuristics, kin_words


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
    (one language), overall and beside each direction the asked person's own premises name
    (``own_directions``), as ``WordUsage`` counts kin words."""

    def word(self, item: dict[str, Any], label: str) -> str:
        """The label itself (a direction: ``front_left``, ``north``)."""
        return label


def own_directions(premises: Any, head: str = "P0") -> list[str]:
    """Position: the relations of the asked person's own premises, read from them (the same
    whichever way a premise is worded), as contexts of ``LabelUsage``."""
    from relreason.generate.balance import _turn

    found = []
    for a, relation, b in premises:
        if head in (a, b):
            read = relation if a == head else _turn(str(relation))
            found.append(f"own={read}")
    return found


def named_at_head(premises: list[chains.Triple], head: str) -> Callable[[str], float]:
    """Position: prefer the wrong directions the asked person's own premises name (read from
    them: the fillers'), so that those premises name the right option no more than the others."""
    named: set[str] = set()
    for a, relation, b in premises:
        if head in (a, b):
            read = relation if a == head else balance._turn(relation)
            named |= set(heuristics.named_label(str(read)))
    return lambda label: float(label in named)


def direction_rank(
    premises: list[chains.Triple], usage: WordUsage | None
) -> Callable[[str], float]:
    """Position: rank the wrong directions: those due as wrong options (right more than one
    time in n of their showings) beside the asked person's own premises, then overall, then
    those these premises name (``named_at_head``), then by how due they are."""
    named = named_at_head(premises, "P0")
    if usage is None:
        return named
    keys = own_directions(premises)

    def rank(label: str) -> float:
        deficit = usage.deficit(label)
        return (
            1e9 * usage.due_in(keys, label)
            + 1e6 * (deficit > 0)
            + 1e3 * named(label)
            + max(-500.0, min(500.0, deficit))
        )

    return rank
