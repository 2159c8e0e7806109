"""Kinship sexes: which persons' sex a question says, and the sex sentences kinship items add
(their words and names leave sexes open)."""

from __future__ import annotations

import random

import relreason.generate.chains as chains
import relreason.generate.kin_world as kin_world


def _sex_word(sex: str) -> str:
    return "male" if sex == "M" else "female"


def stated(premises: list[chains.Triple]) -> set[str]:
    """Kinship: the persons whose sex the question says (a premise word or a sex sentence)."""
    return {a for a, r, _ in premises if _gives_sex(r)}


def _gives_sex(relation: str) -> bool:
    return relation == "sex" or kin_world.PREMISE_RELATIONS[relation][1] is not None


def open_sexes(
    rng: random.Random, chain: chains.Chain, hops: int
) -> tuple[list[chains.Triple], list[chains.Triple]] | None:
    """Kinship: the premises with two sex sentences, shuffled, twice: for an
    "Uncertain" item and for a determined one, alike but for one sentence.

    The asked person P0's own premise leaves their sex open (``chains.kinship_chain``), and so
    does every name (``names.UNISEX``). One sentence gives the sex of the person asked from;
    the other that of a person between them (P0's stays open: the first list; their own word
    may already give it, so that every chain, of any depth, can make an "Uncertain" item) or
    that of P0 (their words then name one answer: the second). Both lists put the premises in
    the same order; every item has two sex sentences, so their number says nothing, and the
    second is about a person some premise already has as its subject (P0, or the person between
    as the subject of their own premise), so neither kind adds a word pair. None: no person
    between them (redraw)."""
    premises = list(chain.premises)
    tail = f"P{hops}"
    between = [f"P{i}" for i in range(1, hops)]
    if not between:
        return None
    order = rng.sample(range(len(premises) + 2), len(premises) + 2)
    told = []
    for other in (rng.choice(between), "P0"):
        said = [(p, "sex", _sex_word(chain.sexes[p])) for p in (tail, other)]
        told.append([[*premises, *said][i] for i in order])
    return told[0], told[1]
