"""Choosing a reader (``--reader sound|official:FAMILY``) and auditing two readings of a run.

Every record can carry two readings of the same output: the sound reader's and the official
rule's. :func:`reading_audit` sums them up: accuracy under each and the number of items where
the two answers differ, which shows how much of a score is the reading rule's doing.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from relreason.benchmarks.convre.official import FAMILIES, infer_family, score_convre_official
from relreason.benchmarks.convre.scoring import score_convre
from relreason.errors import UsageError
from relreason.types import Extraction, Scorer

__all__ = [
    "DEFAULT_FAMILY",
    "ReadingAudit",
    "chosen_family",
    "convre_scorer",
    "official_family",
    "parse_reader",
    "reading_audit",
    "reading_note",
]

DEFAULT_FAMILY = "gpt-chat"
"""The official rule used for the second reading when no family is given or inferred."""


def parse_reader(value: str) -> tuple[str, str | None]:
    """Return ("sound", None) or ("official", FAMILY) for a ``--reader`` value.

    ``official`` alone means: the family inferred from the model spec. Raises UsageError
    naming the valid values for anything else.
    """
    key = value.strip().lower()
    if key == "sound":
        return "sound", None
    if key == "official":
        return "official", None
    if key.startswith("official:") and key[len("official:") :] in FAMILIES:
        return "official", key[len("official:") :]
    valid = ", ".join(["sound", "official", *(f"official:{f}" for f in FAMILIES)])
    raise UsageError(f"unknown reader {value!r}; valid: {valid}")


def chosen_family(
    reader: str, family: str | None, family_from: str | None = None
) -> tuple[str, str, str]:
    """Return (reader kind, the official rule's family, how it was chosen: "given",
    "inferred" or "default") for ``--reader`` and ``--family``.

    ``--reader official`` with no family (none given, none inferred from the model) is refused:
    a responses file or a model whose name says no family would otherwise be read by
    gpt-chat's rule without a word. For the sound reader the second reading (the reading audit)
    falls back to :data:`DEFAULT_FAMILY`. Raises UsageError for an unknown family, or one that
    differs from the family ``official:FAMILY`` names.
    """
    kind, named = parse_reader(reader)
    if family is not None and family not in FAMILIES:
        raise UsageError(f"unknown ConvRe family {family!r}; valid: {', '.join(FAMILIES)}")
    if named is not None and family is not None and named != family and family_from != "inferred":
        raise UsageError(f"--reader official:{named} and --family {family} name two families")
    if named is not None:
        return kind, named, "given"
    if family is not None:
        return kind, family, family_from or "given"
    if kind == "official":
        raise UsageError(
            "--reader official needs the model's family, which cannot be inferred here (a "
            "responses file, or a model whose name names none): give --family FAMILY or "
            f"--reader official:FAMILY; families: {', '.join(FAMILIES)}"
        )
    return kind, DEFAULT_FAMILY, "default"


def reading_note(kind: str, family: str, how: str) -> str:
    """One line saying which rule reads the answers and which gives the second reading."""
    why = {
        "given": "the family given",
        "inferred": "the family inferred from the model's name",
        "default": f"the model's family is not known, so {DEFAULT_FAMILY}'s; --family names "
        "another",
    }[how]
    if kind == "official":
        return f"answers read by official:{family} ({why}); second reading: sound"
    return f"answers read by sound; second reading (reading audit): official:{family} ({why})"


def official_family(
    explicit: str | None, model_spec: str | None, *, api: str = "chat"
) -> tuple[str, str]:
    """Return (family, how it was chosen: "given", "inferred" or "default").

    The explicit family wins; else :func:`infer_family` on the model spec; else
    :data:`DEFAULT_FAMILY`. Raises UsageError for an unknown explicit family.
    """
    if explicit is not None:
        if explicit not in FAMILIES:
            raise UsageError(f"unknown ConvRe family {explicit!r}; valid: {', '.join(FAMILIES)}")
        return explicit, "given"
    inferred = infer_family(model_spec, api=api) if model_spec else None
    if inferred is not None:
        return inferred, "inferred"
    return DEFAULT_FAMILY, "default"


def convre_scorer(
    reader: str, *, cot: bool, logprob_fallback: bool = True, family: str | None = None
) -> Scorer:
    """Return the ConvRe scorer for a reader kind ("sound" or "official").

    Sound: :func:`~relreason.benchmarks.convre.scoring.score_convre`; official: the family's rule
    (:func:`~relreason.benchmarks.convre.official.score_convre_official`; ``family`` required).
    Raises UsageError for an unknown reader or a missing/unknown family.
    """
    if reader == "sound":
        return functools.partial(score_convre, cot=cot, logprob_fallback=logprob_fallback)
    if reader == "official":
        if family not in FAMILIES:
            raise UsageError(f"the official reader needs a family: {', '.join(FAMILIES)}")
        return functools.partial(score_convre_official, family=family, cot=cot)
    raise UsageError(f"unknown reader {reader!r}; valid: sound, official")


@dataclass(frozen=True)
class ReadingAudit:
    """Two readings of the same outputs: accuracy under each and where they differ."""

    n: int
    correct_first: int
    correct_second: int
    answers_differ: int
    only_first_correct: int
    only_second_correct: int

    def to_json(self) -> dict[str, float | int | None]:
        """Return the audit as a JSON-ready dict (accuracies None when there are no items)."""
        return {
            "n": self.n,
            "accuracy_first": self.correct_first / self.n if self.n else None,
            "accuracy_second": self.correct_second / self.n if self.n else None,
            "answers_differ": self.answers_differ,
            "only_first_correct": self.only_first_correct,
            "only_second_correct": self.only_second_correct,
        }


def reading_audit(pairs: Iterable[tuple[Extraction, Extraction]]) -> ReadingAudit:
    """Sum up (first reading, second reading) pairs, one per item. Never raises."""
    n = first = second = differ = only_first = only_second = 0
    for a, b in pairs:
        n += 1
        first += a.correct
        second += b.correct
        differ += a.answer != b.answer
        only_first += a.correct and not b.correct
        only_second += b.correct and not a.correct
    return ReadingAudit(n, first, second, differ, only_first, only_second)
