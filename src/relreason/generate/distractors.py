"""Wrong options: answers the solved models rule out (or, for "uncertain", do not entail)."""

from __future__ import annotations

import functools
import itertools
import random
from typing import Any

import relreason.generate.render as render
from relreason.generate.kin_terms import term as kin_term
from relreason.generate.spatial import COMPASS_LABELS, ORDER_LABELS, RELATIVE_LABELS


def _sex_strings(max_len: int) -> list[str]:
    return ["".join(p) for n in range(1, max_len + 1) for p in itertools.product("MF", repeat=n)]


@functools.lru_cache(maxsize=1)
def kin_labels() -> tuple[str, ...]:
    """Return every kinship label the vocabulary could name (both sexes of Y)."""
    blood: list[str] = []
    for sexes in _sex_strings(3):
        blood += [f"anc:{sexes}", f"desc:{sexes}"]
    for up in ["-", *_sex_strings(2)]:
        for order in "oy":
            blood += [f"col:{up}:{order}:{down}" for down in _sex_strings(2)]
    cores = [*blood, "spouse:M", "spouse:F"]
    small = [b for b in blood if b.count(":") == 1 and len(b.split(":")[1]) == 1]
    small += [b for b in blood if b.startswith(("col:-:", "col:M:", "col:F:")) and len(b) <= 9]
    for inner in small:
        cores += [f"sp[{inner}]:M", f"sp[{inner}]:F", f"ofsp[{inner}]"]
    return tuple(f"{core}@{y}" for core in cores for y in "MF")


@functools.lru_cache(maxsize=8)
def kin_inventory(language: str) -> tuple[tuple[str, str], ...]:
    """Return (label, word) for each distinct kinship word of ``language`` (first label wins)."""
    seen: dict[str, str] = {}
    for label in kin_labels():
        word = kin_term(language, label)
        if word is not None and word not in seen:
            seen[word] = label
    return tuple((label, word) for word, label in seen.items())


def _kind(label: str) -> str:
    return label.split("[")[0].split(":")[0]


def pick_distractors(
    rng: random.Random,
    language: str,
    domain: str,
    frame: str,
    answer: str,
    possible: frozenset[str],
    options: Any,
    sex_head: str,
) -> list[str]:
    """Return the formal labels of the wrong options (distinct texts, none equal to the answer).

    Determined answers: every label is false in every model. Uncertain: definite labels the
    models allow come first (each is false in some other model), then impossible ones.
    """
    wanted = options.n_options - 1
    if options.uncertain and answer != "uncertain":
        wanted -= 1
    if domain == "kinship":
        ruled = {kin_term(language, label) for label in possible}
        pool = [label for label, word in kin_inventory(language) if word not in ruled]
        near = [label for label in pool if _kind(label) == _kind(sorted(possible)[0])]
        far = [label for label in pool if label not in near]
        rng.shuffle(near)
        rng.shuffle(far)
        first: list[str] = []
        if answer == "uncertain":
            allowed = {kin_term(language, label): label for label in sorted(possible)}
            first = list(allowed.values())
            rng.shuffle(first)
        ordered = first + near[: max(wanted, 2)] + far
    else:
        if domain == "position":
            table = COMPASS_LABELS if frame == "compass" else RELATIVE_LABELS
            labels = [label for label in table.values() if label != "same_place"]
        else:
            labels = list(ORDER_LABELS[frame].values())
        allowed_first = [label for label in labels if label in possible]
        rest = [label for label in labels if label not in possible]
        rng.shuffle(allowed_first)
        rng.shuffle(rest)
        ordered = (allowed_first if answer == "uncertain" else []) + rest
    chosen: list[str] = []
    if wanted <= 0:
        return chosen
    texts: set[str | None] = {render.option_text(language, domain, answer, sex_head)}
    for label in ordered:
        text = render.option_text(language, domain, label, sex_head)
        if text is None or text in texts or label == answer:
            continue
        chosen.append(label)
        texts.add(text)
        if len(chosen) == wanted:
            break
    return chosen
