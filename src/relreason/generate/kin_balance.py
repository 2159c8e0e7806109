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
import relreason.generate.lexicon as lexicon
from relreason.generate import balance, kin_words
from relreason.generate.kin_world import NEUTRAL
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
    steps: Counter[tuple[str, str]] = field(default_factory=Counter)
    """Kinship: (right word, relation of the asked person's path premise) so far."""
    late_unseen = True
    """``due``: words never right beside the item's premise count come last (kinship)."""

    def step_weight(self, word: str, relation: str) -> float:
        """How often ``relation`` began the path to ``word`` when it was right (a filler
        premise leaning to ``word`` is drawn alike, ``kin_fillers``)."""
        return self.steps[(word, relation)]

    def deficit(self, word: str) -> float:
        """How many more showings as a wrong option the word is due."""
        return self.right[word] * (self.n_options - 1) - self.wrong[word]

    def due_in(self, keys: list[str], word: str) -> int:
        """In how many of ``keys`` (contexts) the word is due as a wrong option."""
        n = self.n_options - 1
        return sum(self.right_by[(k, word)] * n > self.wrong_by[(k, word)] for k in keys)

    def due(self, keys: list[str]) -> Callable[[str], float]:
        """Rank wrong words for an item of contexts ``keys``: by the contexts they are due in
        (``PAIRED`` each), then by how due they are overall; once a few words have been right
        beside the item's premise count, words never right there come last (a word no chain
        of this depth ends on would be a wrong option a probe learns from the count)."""
        seen = {w for (k, w) in self.right_by if k in keys and k.startswith("n=")}

        def rank(word: str) -> float:
            late = self.late_unseen and len(seen) >= _SEEN and word not in seen
            return PAIRED * (self.due_in(keys, word) - _LATE * late) + self.deficit(word)

        return rank

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
        """Count the words of a finished item (``keys``: its contexts) and, kinship, the
        relation its path starts with (P0's premise to a person named again: not a filler)."""
        if item.get("domain") == "kinship" and item["answer"] != "uncertain":
            head = item["query"][0]
            leaves = filler_premises(item["premises"], head)
            path = [p for p in item["premises"] if p[0] == head and p[1] != "sex"]
            step = [p[1] for p in path if p not in leaves]
            self.steps[(self.word(item, str(item["answer"])), step[0])] += 1
        for label in item["option_labels"]:
            if label != "uncertain":
                word = self.word(item, label)
                right = label == item["answer"]
                (self.right if right else self.wrong)[word] += 1
                for key in keys:
                    (self.right_by if right else self.wrong_by)[(key, word)] += 1


PAIRED = 1e6
"""``WordUsage.due``: the weight of each context a word is due in, above any overall deficit."""
_SEEN, _LATE = 4, 100
"""``WordUsage.due``: how many words right beside a premise count make the others late, and
how many contexts being late weighs."""


def contexts(premises: Any, head: str = "P0") -> list[str]:
    """Kinship: what a surface probe sees of an item's premises beside the options, without
    the asked person's filler premises (``kin_fillers``: to a person named once; drawn after
    the options, so they are not there when the options are chosen): the relation of the
    asked person's path premise and the number of premises."""
    leaves = filler_premises(premises, head)
    kept = [p for p in premises if p not in leaves]
    own = [f"own={p[1]}" for p in kept if p[1] != "sex" and head in (p[0], p[2])]
    return [*own, f"n={len(kept)}"]


def filler_premises(premises: Any, head: str = "P0") -> list[Any]:
    """Kinship: the asked person's filler premises (``kin_fillers``: to a person no other
    relation names; a sex sentence may give that person's sex)."""
    named = Counter(x for p in premises if p[1] != "sex" for x in (p[0], p[2]))
    return [p for p in premises if p[0] == head and p[1] != "sex" and named[p[2]] == 1]


@dataclass
class LabelUsage(WordUsage):
    """Position: how often each direction label was the right option and a wrong one so far
    (one language), as ``WordUsage`` counts kin words (overall only: the asked person's own
    premises follow the options, ``lean_fillers``)."""

    late_unseen = False  # every direction can be right at every depth

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


def kin_leans(pattern: str) -> list[str]:
    """Kinship: the relations open as to sex (``parent child spouse sibling``) that the asked
    person's own premise can have on a path to an answer of ``pattern`` (a word's labels)."""
    core = pattern.split("|")[0].rpartition("@")[0]
    if core.startswith(("sp[", "spouse")):
        return ["spouse"]
    kind, _, rest = (core[5:-1] if core.startswith("ofsp[") else core).partition(":")
    if kind == "anc":
        return ["parent", "spouse"]
    if kind == "desc" or len(rest.split(":")[-1]) > 1:
        return ["child"]
    return ["child", "sibling"]


def kin_fillers(
    rng: random.Random,
    language: str,
    premises: list[chains.Triple],
    hops: int,
    wrong: list[tuple[str, str]],
    possible: frozenset[str],
    weight: Callable[[str, str], float],
) -> list[chains.Triple] | None:
    """Kinship: the premises with one filler premise of the asked person P0 per (word, pattern)
    in ``wrong`` (to a new person, P(hops+1) on, in a word that leaves P0's sex open), each in
    a relation drawn as the paths to that word started when it was right (``weight``; at first
    the relations that can start one, ``kin_leans``), placed at random. Every definite option
    then has a premise of P0 leaning to it, drawn alike, so P0's own premises say nothing of
    which is right. None: no such fillers leave the answers ``possible`` as they are."""
    from relreason.generate.errors import SolverError
    from relreason.generate.solver import solve

    query = ("P0", "?", f"P{hops}")
    usable = [r for r in sorted(NEUTRAL) if r in lexicon.KIN_PREMISE[language]]
    for _ in range(4):
        found = list(premises)
        for k, (word, pattern) in enumerate(wrong):
            leans = kin_leans(pattern)
            weights = [weight(word, r) + 0.5 * (r in leans) for r in usable]
            relation = rng.choices(usable, weights=weights)[0]
            found.insert(rng.randrange(len(found) + 1), ("P0", relation, f"P{hops + 1 + k}"))
        try:
            if solve(found, query) == possible:
                return found
        except SolverError:
            continue
    return None


def kin_shown(
    rng: random.Random,
    language: str,
    premises: list[chains.Triple],
    hops: int,
    answer: str,
    distractors: list[str],
    possible: frozenset[str],
    sexes: tuple[str, str],
    usage: WordUsage | None,
    count: int,
) -> list[chains.Triple] | None:
    """Kinship: the premises with ``count`` filler premises of P0, one leaning to each wrong
    definite option (in an "Uncertain" item, to all but one its path premise leans to), or
    None (too few wrong options, or no fillers that leave the answers as they are)."""
    wrong = [(w, str(kin_words.pattern(language, w, *sexes))) for w in distractors]
    if answer == "uncertain":
        step = next(r for a, r, b in premises if (a, b) == ("P0", "P1"))
        leant = [x for x in wrong if step in kin_leans(x[1])] or wrong
        wrong.remove(rng.choice(leant))
    weight = usage.step_weight if usage is not None else (lambda word, relation: 0.0)
    if len(wrong) < count:
        return None
    return kin_fillers(rng, language, premises, hops, wrong[:count], possible, weight)
