"""Patterns over formal labels: a set of labels written as one string, exactly.

A pattern is one or more alternatives joined by ``|``; an alternative is a label in which ``*``
stands for any one character (``col:-:*:M@F``: a brother of a woman, older or younger). The
pattern of a set, over a universe of labels, matches exactly the labels of the set there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def _alt_matches(alternative: str, label: str) -> bool:
    return len(alternative) == len(label) and all(
        a == "*" or a == b for a, b in zip(alternative, label, strict=True)
    )


def matches(pattern: str, label: str) -> bool:
    """Return whether ``label`` is one of the labels ``pattern`` stands for."""
    return any(_alt_matches(alternative, label) for alternative in pattern.split("|"))


def expand(pattern: str, universe: Iterable[str]) -> tuple[str, ...]:
    """Return the labels of ``universe`` that ``pattern`` matches, in universe order."""
    return tuple(label for label in universe if matches(pattern, label))


def _join(first: str, second: str) -> str:
    return "".join(a if a == b else "*" for a, b in zip(first, second, strict=True))


def describe(labels: Iterable[str], universe: Sequence[str]) -> str:
    """Return the pattern matching exactly ``labels`` among ``universe`` (and ``labels``).

    Greedy and deterministic: alternatives grow from the smallest label left by joining others
    of the same length while the join matches nothing outside the set.
    """
    wanted = set(labels)
    pool = set(universe) | wanted
    remaining = sorted(wanted)
    parts: list[str] = []
    while remaining:
        alternative = remaining[0]
        for other in remaining[1:]:
            if len(other) != len(alternative):
                continue
            trial = _join(alternative, other)
            if all(label in wanted for label in pool if _alt_matches(trial, label)):
                alternative = trial
        parts.append(alternative)
        remaining = [label for label in remaining if not _alt_matches(alternative, label)]
    return "|".join(parts)
