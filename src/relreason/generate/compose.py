"""``compose``: MCR-style multiple-choice questions over kinship, position and order.

Each item is drawn from its own random stream (seed, language, domain, index), so a set is
deterministic for a seed and any item can be rebuilt alone. Its answer is whatever the solver
finds over every model of its premises: one word of the language (determined) or "uncertain"
(several). Distractors of a determined item are false in every model; the definite options of
an uncertain item are each false in some model (none is entailed).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any

import relreason.generate.chains as chains
import relreason.generate.lexicon as lexicon
import relreason.generate.names as names
from relreason.errors import UsageError
from relreason.generate.distractors import pick_distractors
from relreason.generate.errors import SolverError
from relreason.generate.kin_terms import term as kin_term
from relreason.generate.solver import solve

DOMAINS: tuple[str, ...] = ("kinship", "position", "order")
MIN_HOPS, MAX_HOPS = 2, 8
MAX_OPTIONS = 7
UNCERTAIN_SHARE = 0.25
_ATTEMPTS = 400
_KIN_ORDER_BLIND = frozenset({"en", "fr"})


@dataclass(frozen=True)
class ComposeOptions:
    """What to generate: domains, hop counts (cycled), option count, language, seed, count.

    ``uncertain``: every item offers the language's "Uncertain" option and about a quarter of
    them have it as the answer; without it, no such option and every answer is determined.
    """

    language: str = "en"
    domains: tuple[str, ...] = DOMAINS
    hops: tuple[int, ...] = (2, 3, 4, 5, 6)
    n_options: int = 4
    uncertain: bool = True
    fictional: bool = False
    seed: int = 0
    count: int = 10

    def __post_init__(self) -> None:
        if self.language not in lexicon.LANGUAGES:
            raise UsageError(
                f"unknown language {self.language!r}; valid: {', '.join(lexicon.LANGUAGES)}"
            )
        bad = [d for d in self.domains if d not in DOMAINS]
        if bad or not self.domains:
            raise UsageError(f"unknown domain {bad or '(none)'}; valid: {', '.join(DOMAINS)}")
        if not self.hops or any(not MIN_HOPS <= h <= MAX_HOPS for h in self.hops):
            raise UsageError(f"hops must be {MIN_HOPS}..{MAX_HOPS}, got {list(self.hops)}")
        if not 2 <= self.n_options <= MAX_OPTIONS:
            raise UsageError(f"number of options must be 2..{MAX_OPTIONS}, got {self.n_options}")
        if self.count < 0:
            raise UsageError(f"count must be >= 0, got {self.count}")


def item_rng(seed: int, language: str, domain: str, index: int) -> random.Random:
    """Return the random stream of one item (stable across Python versions and runs)."""
    digest = hashlib.sha256(f"{seed}/{language}/{domain}/{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _answer(
    language: str, domain: str, labels: frozenset[str]
) -> tuple[str, frozenset[str]] | None:
    """Return (answer label or 'uncertain', the labels), None if a kin label has no word."""
    if not labels:
        return None
    if domain == "kinship":
        words = {kin_term(language, label) for label in labels}
        if None in words:
            return None
        return (sorted(labels)[0] if len(words) == 1 else "uncertain"), labels
    return (next(iter(labels)) if len(labels) == 1 else "uncertain"), labels


def _kin_sex_premises(language: str, premises: list[chains.Triple], sexes: dict[str, str]) -> None:
    """Add ``(Pn, sex, ...)`` when Korean words need the sex of a person no premise genders."""
    gendered = {a for a, _, _ in premises}
    for _, relation, b in list(premises):
        word = lexicon.KIN_PREMISE[language][relation]
        if "|" in word and b not in gendered:
            premises.append((b, "sex", "male" if sexes[b] == "M" else "female"))
            gendered.add(b)


def _draw(rng: random.Random, options: ComposeOptions, domain: str, hops: int, want: bool) -> Any:
    """Draw one chain and solve it; return (chain, premises, answer, texts) or None."""
    if domain == "kinship":
        chain = chains.kinship_chain(rng, options.language, hops)
        if chain is None:
            return None
    elif domain == "position":
        chain = chains.position_chain(rng, hops, determined=not want)
    else:
        chain = chains.order_chain(rng, hops, determined=not want)
    premises = list(chain.premises)
    query = ("P0", "?", f"P{hops}")
    if domain == "kinship":
        _kin_sex_premises(options.language, premises, chain.sexes)
    found = _answer(options.language, domain, solve(premises, query))
    if found is None:
        return None
    if domain == "kinship" and found[0] == "uncertain":
        # Never leave an answer open on a sex the names would suggest: state it if that settles it.
        last = f"P{hops}"
        if not any(a == last and r == "sex" for a, r, _ in premises):
            sex = "male" if chain.sexes[last] == "M" else "female"
            stated = _answer(
                options.language, domain, solve([*premises, (last, "sex", sex)], query)
            )
            if stated is not None and stated[0] != "uncertain":
                premises.append((last, "sex", sex))
                found = stated
    return chain, premises, found


def _compose_one(options: ComposeOptions, domain: str, hops: int, index: int) -> dict[str, Any]:
    rng = item_rng(options.seed, options.language, domain, index)
    want_uncertain = options.uncertain and rng.random() < UNCERTAIN_SHARE
    if domain == "kinship" and options.language in _KIN_ORDER_BLIND:
        want_uncertain = False  # their words ignore birth order: kin answers are never open
    fallback = None
    for attempt in range(_ATTEMPTS):
        drawn = _draw(rng, options, domain, hops, want_uncertain)
        if drawn is None:
            continue
        is_uncertain = drawn[2][0] == "uncertain"
        if is_uncertain and not options.uncertain:
            continue
        if is_uncertain == want_uncertain:
            return _build(rng, options, domain, hops, index, *drawn)
        if fallback is None:
            fallback = drawn
        if attempt >= 12 and fallback is not None:
            break
    if fallback is None:
        raise SolverError(f"could not draw a {domain} item with {hops} hops in {options.language}")
    return _build(rng, options, domain, hops, index, *fallback)


def _build(
    rng: random.Random,
    options: ComposeOptions,
    domain: str,
    hops: int,
    index: int,
    chain: chains.Chain,
    premises: list[chains.Triple],
    found: tuple[str, frozenset[str]],
) -> dict[str, Any]:
    from relreason.generate.assemble import assemble

    people = [f"P{i}" for i in range(hops + 1)]
    chosen = names.pick_names(
        rng, options.language, [chain.sexes[p] for p in people], options.fictional
    )
    rename = dict(zip(people, chosen, strict=True))
    answer, possible = found
    distractors = pick_distractors(
        rng, options.language, domain, chain.frame, answer, possible, options, chain.sexes["P0"]
    )
    return assemble(rng, options, domain, hops, index, chain, premises, rename, answer, distractors)


def compose(options: ComposeOptions) -> list[dict[str, Any]]:
    """Return ``options.count`` items (domains cycled, then hop counts), each a JSON-ready dict.

    Raises ``UsageError`` for bad options.
    """
    items: list[dict[str, Any]] = []
    for index in range(options.count):
        domain = options.domains[index % len(options.domains)]
        hops = options.hops[(index // len(options.domains)) % len(options.hops)]
        items.append(_compose_one(options, domain, hops, index))
    return items
