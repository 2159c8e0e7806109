"""``compose``: MCR-style multiple-choice questions over kinship, position, order and the later
domains (quantity, identity, containment: ``domains``), MCR's six categories.

Each item is drawn from its own random stream (seed, language, domain, index), so a set is
deterministic for a seed (the balancing below also looks at the earlier items of a domain).
Its answer is whatever the solver finds over every model of its premises: one word of the
language (determined) or "uncertain" (several). Distractors of a determined item are false in
every model; the definite options of an uncertain item are each false in some model (none is
entailed); no two options are both true in any world.

Sets are balanced so that surface rules (``heuristics``) score chance: within each domain, the
gold position and the "Uncertain" answers follow shuffled blocks (each position once per block,
"Uncertain" the answer of one item in n where it is offered), order answers are spread evenly
over greater, smaller and the same, and the wording of each premise (which of the two persons
it starts from, the order of the premises) and the wrong options are chosen so that each rule
picks the gold option in one item of n (``balance``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from dataclasses import dataclass
from typing import Any

import relreason.generate.chains as chains
import relreason.generate.kin_sexes as kin_sexes
import relreason.generate.lexicon as lexicon
import relreason.generate.names as names
from relreason.errors import UsageError
from relreason.generate import balance, filler, heuristics, kin_words, quantity
from relreason.generate.depth import expected, proof_depth
from relreason.generate.distractors import pick_distractors
from relreason.generate.domains import SPECS
from relreason.generate.errors import SolverError
from relreason.generate.kin_balance import (
    LabelUsage,
    WordUsage,
    contexts,
    kin_shown,
    lean_fillers,
    leaned_to,
)
from relreason.generate.solver import solve

FIRST_DOMAINS: tuple[str, ...] = ("kinship", "position", "order")
"""The domains generated before the later ones came (the shipped set's first part, exemplars)."""
DOMAINS: tuple[str, ...] = (*FIRST_DOMAINS, *SPECS)
MIN_HOPS, MAX_HOPS = 2, 8
MAX_OPTIONS = 7
_ATTEMPTS = 400
_REDRAWS = 3
_KIN_REDRAWS = 8  # kinship: more draws, to find a right word not yet right too often
_KIN_FILLERS = 2  # kinship: P0's filler premises (one per wrong option of a 4-option item)
_DEFINITE = {"kinship": 99, "position": 8, "order": 3} | {
    name: spec.definite for name, spec in SPECS.items()
}


@dataclass(frozen=True)
class ComposeOptions:
    """What to generate: domains, hop counts (cycled), option count, language, seed, count.

    ``uncertain``: items offer the language's "Uncertain" option (last), and it is the answer
    of one item in n (n options); without it, no such option and every answer is determined.
    (Kinship: the asked person's sex is left open in those items.)
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

    def offers_uncertain(self, domain: str) -> bool:
        """Return whether items of ``domain`` offer "Uncertain" (it can be right there)."""
        return self.uncertain

    def option_count(self, domain: str) -> int:
        """Return the number of options items of ``domain`` get (fewer when words run out)."""
        offers = self.offers_uncertain(domain)
        return min(self.n_options, _DEFINITE[domain] + offers)


def item_rng(seed: int, language: str, domain: str, index: int) -> random.Random:
    """Return the random stream of one item (stable across Python versions and runs)."""
    digest = hashlib.sha256(f"{seed}/{language}/{domain}/{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def schedule(options: ComposeOptions, domain: str, k: int, size: int, what: str) -> int:
    """Return the slot of the ``k``-th item of ``domain`` in shuffled blocks of ``size``."""
    block, at = divmod(k, size)
    slots = list(range(size))
    item_rng(options.seed, options.language, f"{domain}/{what}", block).shuffle(slots)
    return slots[at]


def _draw(
    rng: random.Random, options: ComposeOptions, domain: str, hops: int, want: Any
) -> tuple[chains.Chain, list[chains.Triple], str, frozenset[str]] | None:
    """Draw one chain and solve it; return (chain, premises, answer, labels) or None."""
    if domain == "kinship":
        chain = chains.kinship_chain(rng, options.language, hops)
        if chain is None:
            return None
        fillers = {f"P{hops + 1 + k}": rng.choice("MF") for k in range(_kin_fillers(options))}
        chain = dataclasses.replace(chain, sexes={**chain.sexes, **fillers})
    elif domain in SPECS:
        chain = SPECS[domain].chain(rng, hops, str(want))
    elif domain == "position":
        chain = chains.position_chain(rng, hops, determined=want != "uncertain")
    else:
        chain = chains.order_chain(rng, hops, None if want == "uncertain" else want)
    if domain in filler.DOMAINS:
        chain = filler.mirror(rng, chain, hops, domain)
    premises = list(chain.premises)
    query = chain.query or ("P0", "?", f"P{hops}")
    labels: frozenset[str] | None = None
    if domain == "kinship":
        # Only chains whose answer the open sex leaves "Uncertain" and the said sex determines
        # make either kind (so that the words and relations of the two kinds are drawn alike; a
        # spouse of a person whose sex is given, say, is never one; an age left open, Chinese,
        # Japanese, Korean, stays "Uncertain"); a determined item is the same with P0's sex said.
        opened = kin_sexes.open_sexes(rng, chain, hops)
        if opened is None:
            return None
        unsure = solve(opened[0], query)
        if expected(options.language, domain, unsure) != "uncertain":
            return None
        sure = solve(opened[1], query)
        if expected(options.language, domain, sure) in (None, "uncertain"):
            return None
        premises = opened[0] if want == "uncertain" else opened[1]
        labels = unsure if want == "uncertain" else sure
    if labels is None:
        labels = solve(premises, query)
    found = expected(options.language, domain, labels)
    if found is None:
        return None
    if proof_depth(premises, query, options.language, domain) != hops:
        return None
    return chain, premises, found, labels


def _want(options: ComposeOptions, domain: str, k: int) -> tuple[Any, int]:
    """Return (what to draw, gold slot) for the ``k``-th item of ``domain``.

    "Uncertain" is the answer of one item in n where it is offered; order answers go evenly to
    greater, smaller and the same (shuffled blocks); the gold slot follows its own blocks.
    """
    size = options.option_count(domain)
    offers = options.offers_uncertain(domain)
    slot = schedule(options, domain, k, max(size - offers, 1), "slots")
    spread: list[Any] = [1, -1, 0] if domain == "order" else []
    if domain in SPECS:
        spread = list(SPECS[domain].classes)
    if spread:
        classes: list[Any] = [*spread, "uncertain"] if offers else spread
        if offers and size < len(classes):
            classes = [*classes[: size - 1], "uncertain"]
        return classes[schedule(options, domain, k, len(classes), "class")], slot
    unsure = offers and schedule(options, domain, k, size, "class") == 0
    return ("uncertain" if unsure else "determined"), slot


def _compose_one(
    options: ComposeOptions,
    domain: str,
    hops: int,
    index: int,
    goal: dict[str, float],
    usage: WordUsage | None = None,
) -> dict[str, Any]:
    k = index // len(options.domains)
    rng = item_rng(options.seed, options.language, domain, index)
    want, slot = _want(options, domain, k)
    best: tuple[float, dict[str, Any]] | None = None
    fallback = None
    matched = 0
    for attempt in range(_ATTEMPTS):
        drawn = _draw(rng, options, domain, hops, want)
        if drawn is None:
            continue
        is_uncertain = drawn[2] == "uncertain"
        if is_uncertain and not options.offers_uncertain(domain):
            continue
        built = _build(rng, options, domain, hops, index, slot, goal, *drawn, usage)
        if built is None:
            continue
        item, cost = built
        if usage is not None and domain == "kinship":
            cost += usage.ahead(item, contexts(drawn[1]))
        if is_uncertain == (want == "uncertain"):
            # Kinship, identity and containment: another draw when the rules' targets are not
            # all met (the answer decides how long the right option is, which people the
            # premises name). Position, order and quantity keep their first draw (choosing
            # among frames would skew the answers, or tie quantity's frame to its rank).
            matched += 1
            if best is None or cost < best[0]:
                best = (cost, item)
            if cost == 0 or matched >= _redraws(domain):
                return best[1]
            continue
        if fallback is None:
            fallback = item
        if attempt >= 12 and best is None:
            break
    if best is not None:
        return best[1]
    if fallback is None:
        raise SolverError(f"could not draw a {domain} item with {hops} hops in {options.language}")
    return fallback


def _kin_fillers(options: ComposeOptions) -> int:
    """How many filler premises the asked person of a kinship item gets: one per wrong
    definite option (in an "Uncertain" item, all but one), at most ``_KIN_FILLERS``."""
    wrong = options.option_count("kinship") - 1 - options.offers_uncertain("kinship")
    return max(0, min(_KIN_FILLERS, wrong))


def _redraws(domain: str) -> int:
    """How many matching draws an item of ``domain`` compares (position, order and quantity:
    the first; choosing among quantity draws would tie the frame to the right number's rank)."""
    if domain in ("position", "order", "quantity"):
        return 1
    return _KIN_REDRAWS if domain == "kinship" else _REDRAWS


def _told(domain: str, chain: chains.Chain, premises: list[chains.Triple]) -> chains.Chain:
    """The chain with the sexes the question says (kinship: not every one)."""
    if domain != "kinship":
        return chain
    said = kin_sexes.stated(premises)
    return dataclasses.replace(chain, sexes={p: s for p, s in chain.sexes.items() if p in said})


def _build(
    rng: random.Random,
    options: ComposeOptions,
    domain: str,
    hops: int,
    index: int,
    slot: int,
    goal: dict[str, float],
    chain: chains.Chain,
    premises: list[chains.Triple],
    answer: str,
    possible: frozenset[str],
    usage: WordUsage | None = None,
) -> tuple[dict[str, Any], float] | None:
    """Return the item (names, options in their slots, balanced wording) and the rule targets
    it misses (``balance``), or None to redraw."""
    from relreason.generate.assemble import assemble

    rename = _rename(rng, options, domain, chain)
    x_sex, y_sex = chain.sexes.get("P0", "M"), chain.sexes.get(f"P{hops}", "M")
    premise_text = ""
    if domain == "kinship":
        premise_text = balance.kin_premise_text(options.language, premises, rename, chain.sexes)

    def avoid(label: str, text: str) -> bool:
        """Kinship: options the premises name (their words, or their relations' labels)."""
        if domain != "kinship":
            return False
        shown = kin_words.pattern(options.language, label, y_sex, x_sex) or label
        return heuristics.appears(premise_text, text, options.language) or (
            heuristics.named_by_premises(domain, shown, premises)
        )

    prefer = None if usage is None or domain != "kinship" else usage.due(contexts(premises))
    if domain == "position" and usage is not None:
        prefer = usage.due([f"n={len(premises)}"])  # directions due (by premise count) first
    told = _told(domain, chain, premises)
    candidates: list[dict[str, Any]] = []
    for attempt in range(balance.OPTION_TRIES):
        wanted = options.option_count(domain) - 1
        if options.offers_uncertain(domain) and answer != "uncertain":
            wanted -= 1
        if domain == "quantity":  # the right number's rank among the numbers: scheduled
            numbers = options.option_count(domain) - options.offers_uncertain(domain)
            below = schedule(options, domain, index // len(options.domains), numbers, "rank")
            distractors = quantity.distractors(rng, chain, answer, possible, wanted, below)
        elif domain in SPECS:
            distractors = SPECS[domain].distractors(rng, chain, answer, possible, wanted)
        else:
            distractors = pick_distractors(
                rng,
                options.language,
                domain,
                chain.frame,
                answer,
                possible,
                options,
                (x_sex, y_sex),
                avoid=avoid,
                lengths=(None, "shorter", "longer")[attempt % 3],
                prefer=prefer,
            )
        shown = premises
        if domain == "position":  # each definite option leant to by one of P0's premises
            wrong = [x for x in distractors if x != answer]
            if answer == "uncertain":
                path = next(p for p in premises if {p[0], p[2]} == {"P0", "P1"})
                step = path[1] if path[0] == "P0" else str(balance._turn(path[1]))
                lean = leaned_to(rng, chain.frame, step)
                distractors = [lean, *(x for x in wrong if x != lean)][:wanted]
                wrong = distractors[1:]
            shown = lean_fillers(rng, premises, hops, chain.frame, wrong)
        if domain == "kinship":
            found = kin_shown(
                rng,
                options.language,
                premises,
                hops,
                answer,
                distractors,
                possible,
                (y_sex, x_sex),
                usage,
                _kin_fillers(options),
            )
            if found is None:
                continue
            shown = found
        labels = [answer, *distractors] if answer != "uncertain" else list(distractors)
        if domain == "kinship":
            patterns = [kin_words.pattern(options.language, w, y_sex, x_sex) for w in labels]
            if None in patterns:
                return None
            labels = [str(p) for p in patterns]
        gold = labels[0] if answer != "uncertain" else "uncertain"
        rest = labels[1:] if answer != "uncertain" else labels
        rng.shuffle(rest)
        if gold != "uncertain":
            rest.insert(slot if slot <= len(rest) else rng.randrange(len(rest) + 1), gold)
        if options.offers_uncertain(domain):
            rest.append("uncertain")
        item = assemble(options, domain, hops, index, told, shown, rename, gold, rest)
        if domain == "kinship" and gold != "uncertain" and _named(item, gold, premises):
            return None  # the premises name the answer: a shortcut, not a question
        candidates.append(item)
    return balance.choose(rng, candidates, goal) if candidates else None


def _rename(
    rng: random.Random, options: ComposeOptions, domain: str, chain: chains.Chain
) -> dict[str, str]:
    """The name of each placeholder of ``chain`` (kinship, position, order: given names)."""
    if domain in SPECS:
        return SPECS[domain].rename(rng, options.language, chain, options.fictional)
    people = sorted(chain.sexes, key=lambda p: int(p[1:]))
    chosen = names.pick_names(
        rng,
        options.language,
        [chain.sexes[p] for p in people],
        options.fictional,
        unisex=domain == "kinship",
    )
    return dict(zip(people, chosen, strict=True))


def _named(item: dict[str, Any], gold: str, premises: list[chains.Triple]) -> bool:
    """Whether the premises name the right option (its text, or a relation meaning it)."""
    in_text = heuristics.gold_index(item) in (heuristics.word_in_premises(item) or ())
    return in_text or heuristics.named_by_premises("kinship", gold, premises)


def _asked(item: dict[str, Any]) -> str:
    """The name of the person a kinship item asks about (its query's head)."""
    return str(item["query"][0])


def compose(options: ComposeOptions) -> list[dict[str, Any]]:
    """Return ``options.count`` items (domains cycled, then hop counts), each a JSON-ready dict.

    Items are built in order: each rule of ``balance.BALANCED`` is steered to pick the gold
    option of one item in n of each domain, given how often it did on the items before (an
    item depends on the earlier ones of its domain; the same options give the same set).
    Raises ``UsageError`` for bad options.
    """
    items: list[dict[str, Any]] = []
    scored = {domain: dict.fromkeys(balance.BALANCED, 0.0) for domain in DOMAINS}
    made = dict.fromkeys(DOMAINS, 0)
    words = WordUsage(options.option_count("kinship"))
    directions = LabelUsage(options.option_count("position"))
    for index in range(options.count):
        domain = options.domains[index % len(options.domains)]
        hops = options.hops[(index // len(options.domains)) % len(options.hops)]
        due = (made[domain] + 1) / options.option_count(domain)
        goal = {name: balance.target(due - scored[domain][name]) for name in balance.BALANCED}
        usage = directions if domain == "position" else words
        item = _compose_one(options, domain, hops, index, goal, usage)
        if domain == "kinship":
            words.count(item, contexts(item["premises"], _asked(item)))
        elif domain == "position":
            directions.count(item, [f"n={len(item['premises'])}"])
        for name, value in balance.scores(item).items():
            scored[domain][name] += value
        made[domain] += 1
        items.append(item)
    return items
