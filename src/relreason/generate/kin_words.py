"""Kinship option words as meanings: the formal labels each word covers, in each language.

A word covers the labels whose term (``kin_terms.term``) it is, and a *cover word* (declared in
``COVERS``) also covers those of narrower words: Korean 삼촌 is any brother of the father
(큰아버지 or 작은아버지), 조카 a nephew or a niece (조카딸). From these meanings come:

- the answer of an item: the narrowest word covering every label the models allow (else
  "uncertain"), so an answer a language can name is never called uncertain;
- whether two option words can both be true in some world (their meanings meet): never offered
  together (checked by ``compose`` when drawing and by ``verify`` on any file);
- the formal label of an option: a pattern (``label_patterns``) of the labels the word covers
  for the item's persons (the sex of the person asked about and of the one asked from), so it
  holds no more than the word says and agrees with the item's ``sexes``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from relreason.generate import label_patterns
from relreason.generate.kin_terms import term
from relreason.generate.label_universe import kin_labels

COVERS: dict[str, dict[str, tuple[str, ...]]] = {
    "ko": {"삼촌": ("큰아버지", "작은아버지"), "조카": ("조카", "조카딸")},
}
"""Cover words: word -> the narrower words it also means (besides its own labels)."""

UNCERTAIN = "uncertain"


def base_terms(language: str, word: str) -> frozenset[str]:
    """Return the terms ``word`` stands for: itself and the narrower words it covers."""
    return frozenset({word, *COVERS.get(language, {}).get(word, ())})


def covers(language: str, word: str, label: str) -> bool:
    """Return whether ``word`` is true of a person with kinship ``label``."""
    found = term(language, label)
    return found is not None and found in base_terms(language, word)


def overlap(language: str, first: str, second: str) -> bool:
    """Return whether two words are both true of some person in some world."""
    return bool(base_terms(language, first) & base_terms(language, second))


@functools.lru_cache(maxsize=8)
def words(language: str) -> tuple[str, ...]:
    """Return every option word of ``language``: the terms of the labels, then cover words."""
    seen: dict[str, None] = {}
    for label in kin_labels():
        found = term(language, label)
        if found is not None:
            seen.setdefault(found)
    for cover in COVERS.get(language, {}):
        seen.setdefault(cover)
    return tuple(seen)


def answer_word(language: str, labels: Iterable[str]) -> str | None:
    """Return the narrowest word covering every label, ``"uncertain"`` when none does, or None
    when a label has no word (the item cannot be asked in ``language``)."""
    terms = {term(language, label) for label in labels}
    if not terms or None in terms:
        return None
    fitting = [w for w in words(language) if terms <= base_terms(language, w)]
    if not fitting:
        return UNCERTAIN
    return min(fitting, key=lambda w: (len(base_terms(language, w)), w))


def head_sex(label: str) -> str | None:
    """Return the sex of X in a label ``X is Y's ...`` (None for ``none``)."""
    core = label.rpartition("@")[0]
    if core.startswith("none"):
        return None
    if core.endswith("]"):  # ofsp[inner]: X is the spouse's blood relative
        core = core[:-1]
    return core[-1] if core[-1] in "MF" else None


@functools.lru_cache(maxsize=8)
def context(y_sex: str, x_sex: str) -> tuple[str, ...]:
    """Return the labels of the universe with Y's sex ``y_sex`` and X's sex ``x_sex``."""
    return tuple(
        label for label in kin_labels() if label.endswith("@" + y_sex) and head_sex(label) == x_sex
    )


@functools.lru_cache(maxsize=4096)
def pattern(language: str, word: str, y_sex: str, x_sex: str) -> str | None:
    """Return the formal label of ``word`` for persons of these sexes (None: never true)."""
    universe = context(y_sex, x_sex)
    meant = [label for label in universe if covers(language, word, label)]
    if not meant:
        return None
    return label_patterns.describe(meant, universe)


@functools.lru_cache(maxsize=8192)
def word_of(language: str, label: str) -> str | None:
    """Return the word a formal label or pattern stands for (None: no word, or not kinship)."""
    if label == UNCERTAIN:
        return None
    meant = label_patterns.expand(label, kin_labels())
    if not meant:
        meant = (label,)
    found = answer_word(language, meant)
    return None if found in (None, UNCERTAIN) else found
