"""Wrong options: answers the solved models rule out (or, for "uncertain", do not entail).

Kinship options are words (``kin_words``): a wrong option's meaning never meets the answer's
nor another option's (no two options are both true in any world), and it can be true of the
person asked about (the sex the premises give them), so no option is ruled out by sex alone.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

import relreason.generate.render as render
from relreason.generate import kin_words
from relreason.generate.domain_spec import wrong_labels
from relreason.generate.spatial import COMPASS_LABELS, ORDER_LABELS, RELATIVE_LABELS


def _kind(label: str) -> str:
    return label.split("[")[0].split(":")[0]


@functools.lru_cache(maxsize=4096)
def kin_candidates(
    language: str, answer: str, possible: frozenset[str], y_sex: str, x_sex: str
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Return (possible, near, far) wrong kinship words for an item.

    ``answer`` is the answer word or ``uncertain``; ``possible`` the labels the models allow.
    Possible words (uncertain items only) are true in some model; near ones share the kind of
    relation (ancestor, collateral, ...) of the models, far ones do not.
    """
    kind = _kind(sorted(possible)[0])
    allowed: list[str] = []
    near: list[str] = []
    far: list[str] = []
    for word in kin_words.words(language):
        label = kin_words.pattern(language, word, y_sex, x_sex)
        if label is None or kin_words.word_of(language, label) != word:
            continue  # never true of this person, or another word for them
        if answer != kin_words.UNCERTAIN and kin_words.overlap(language, answer, word):
            continue
        hits = [kin_words.covers(language, word, p) for p in possible]
        if all(hits):
            continue
        if any(hits):
            allowed.append(word)
        elif _kind(label.split("|")[0]) == kind:
            near.append(word)
        else:
            far.append(word)
    return tuple(allowed), tuple(near), tuple(far)


def _due(rank: float) -> float:
    """Kinship: how due a wrong word is (the contexts it is due in, then 0.5 if due overall)."""
    contexts = round(rank / _PAIRED)
    return contexts + 0.5 * (rank - contexts * _PAIRED > 0)


_PAIRED = 1e6  # compose.PAIRED (compose imports this module)


def pick_distractors(
    rng: random.Random,
    language: str,
    domain: str,
    frame: str,
    answer: str,
    possible: frozenset[str],
    options: Any,
    sexes: tuple[str, str],
    avoid: Callable[[str, str], bool] = lambda label, text: False,
    lengths: str | None = None,
    prefer: Callable[[str], float] | None = None,
) -> list[str]:
    """Return the wrong options (kinship: words; else formal labels), distinct and disjoint.

    Determined answers: every option is false in every model. Uncertain: definite options the
    models allow come first (each is false in some other model), then impossible ones.
    ``sexes`` = (sex of the person asked about, sex of the one asked from); ``avoid`` skips
    options it flags (given label and text; e.g. words the premises use) unless none is left;
    ``lengths`` = ``"shorter"``/``"longer"`` prefers texts shorter/longer than the answer's;
    ``prefer`` ranks the wrong options, highest first (ties stay shuffled).
    """
    wanted = options.n_options - 1
    if options.offers_uncertain(domain) and answer != "uncertain":
        wanted -= 1
    if wanted <= 0:
        return []
    x_sex = sexes[0]
    if domain == "kinship":
        ordered = _kin_order(rng, language, answer, possible, sexes, wanted, prefer)
    else:
        ordered = _label_order(rng, domain, frame, answer, possible, prefer)

    def text(label: str) -> str | None:
        if domain == "kinship":
            return render.kin_word_option(language, label)
        return render.option_text(language, domain, label, x_sex)

    chosen: list[str] = []
    seen: set[str | None] = {text(answer)} if answer != "uncertain" else set()
    if lengths is not None and answer != "uncertain":
        size = len(text(answer) or "")
        first = [x for x in ordered if (len(text(x) or "") < size) == (lengths == "shorter")]
        ordered = first + [x for x in ordered if x not in first]
        if domain == "kinship" and prefer is not None:  # words due first, then the lengths
            ordered.sort(key=lambda word: -_due(prefer(word)))
    late = [label for label in ordered if avoid(label, text(label) or "")]
    for label in [label for label in ordered if label not in late] + late:
        shown = text(label)
        if shown is None or shown in seen or label == answer:
            continue
        if domain == "kinship" and any(kin_words.overlap(language, label, c) for c in chosen):
            continue
        chosen.append(label)
        seen.add(shown)
        if len(chosen) == wanted:
            break
    return chosen


def _kin_order(
    rng: random.Random,
    language: str,
    answer: str,
    possible: frozenset[str],
    sexes: tuple[str, str],
    wanted: int,
    prefer: Callable[[str], float] | None,
) -> list[str]:
    """Kinship's wrong words in the order they are tried (the uncertain answer's allowed first)."""
    x_sex, y_sex = sexes
    allowed, near, far = (
        list(group) for group in kin_candidates(language, answer, possible, y_sex, x_sex)
    )
    for group in (allowed, near, far):
        rng.shuffle(group)
    if rng.random() < 0.5:  # near ones first (tempting), else any (lengths vary)
        tail = near[: max(wanted, 2)] + far + near[max(wanted, 2) :]
    else:
        tail = near + far
        rng.shuffle(tail)
    if prefer is not None:  # the words due most as wrong options first
        tail.sort(key=lambda word: -prefer(word))
    return (allowed if answer == "uncertain" else []) + tail


def _label_order(
    rng: random.Random,
    domain: str,
    frame: str,
    answer: str,
    possible: frozenset[str],
    prefer: Callable[[str], float] | None,
) -> list[str]:
    """Position's or order's wrong labels in the order they are tried."""
    if domain == "position":
        table = COMPASS_LABELS if frame == "compass" else RELATIVE_LABELS
        labels = [label for label in table.values() if label != "same_place"]
    else:
        labels = list(ORDER_LABELS[frame].values())
    return wrong_labels(rng, labels, answer, possible, prefer)
