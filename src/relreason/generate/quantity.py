"""Quantities (MCR "Mathematical"): how many coins each person has, by differences and ratios
(frame ``coins``), or unit chains of exchange rates (frame ``exchange``, in ``units``).

Premises ``(A, more:k, B)`` "A has k more coins than B", ``(A, fewer:k, B)``, ``(A, times:k,
B)`` "A has k times as many coins as B", ``(A, part:k, B)`` "A has 1/k of B's coins" (k = 2,
3, 4: half, a third, a quarter), and ``(A, has, n)`` "A has n coins". World model: everyone
has a whole number of coins, zero or more. The query ``[A, "?", "coins"]`` asks how many A
has; the answer is that number when the premises fix it, else ``uncertain``. Numbers are exact
(``fractions.Fraction``). The relational premises form a forest (generated items: two paths,
the count given in one of them); the solver propagates from each count given along its part,
and where no count reaches the person asked about it finds two worlds (two whole-number
solutions) in which their counts differ.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction

from relreason.generate import grammar, names, units
from relreason.generate.chains import Chain
from relreason.generate.domain_spec import DomainSpec, Premises, Triple, shuffled
from relreason.generate.errors import SolverError

_PATTERN = re.compile(r"(more|fewer|times|part):([1-9][0-9]*)")
_CONVERSE = {"more": "fewer", "fewer": "more", "times": "part", "part": "times"}
UNKNOWN = "coins"
_SEARCH = 5000

_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "intro": "Everyone has a whole number of coins (possibly none).",
        "has": "{a} has {k} coins.",
        "more": "{a} has {k} more coins than {b}.",
        "fewer": "{a} has {k} fewer coins than {b}.",
        "times": "{a} has {k} times as many coins as {b}.",
        "twice": "{a} has twice as many coins as {b}.",
        "part": "{a} has {f} as many coins as {b}.",
        "question": "How many coins does {a} have?",
    },
    "fr": {
        "intro": "Chacun a un nombre entier de pièces (peut-être aucune).",
        "has": "{a} a {k} pièces.",
        "more": "{a} a {k} pièces de plus {que_b}.",
        "fewer": "{a} a {k} pièces de moins {que_b}.",
        "times": "{a} a {k} fois autant de pièces {que_b}.",
        "part": "{a} a {f} du nombre de pièces {de_b}.",
        "question": "Combien de pièces a {a} ?",
    },
    "zh": {
        "intro": "每个人都有整数枚硬币（也可能没有）。",
        "has": "{a}有{k}枚硬币。",
        "more": "{a}比{b}多{k}枚硬币。",
        "fewer": "{a}比{b}少{k}枚硬币。",
        "times": "{a}的硬币数是{b}的{k}倍。",
        "part": "{a}的硬币数是{b}的{f}。",
        "question": "{a}有多少枚硬币？",
    },
    "ja": {
        "intro": "どの人も硬貨を整数枚持っています（0枚のこともあります）。",
        "has": "{a}は硬貨を{k}枚持っています。",
        "more": "{a}は{b}より硬貨を{k}枚多く持っています。",
        "fewer": "{a}は{b}より硬貨を{k}枚少なく持っています。",
        "times": "{a}の硬貨の枚数は{b}の{k}倍です。",
        "part": "{a}の硬貨の枚数は{b}の{f}です。",
        "question": "{a}は硬貨を何枚持っていますか？",
    },
    "ko": {
        "intro": "각 사람이 가진 동전의 수는 0 이상의 정수입니다.",
        "has": "{a_t} 동전을 {k}개 가지고 있습니다.",
        "more": "{a_t} {b}보다 동전이 {k}개 많습니다.",
        "fewer": "{a_t} {b}보다 동전이 {k}개 적습니다.",
        "times": "{a}의 동전 수는 {b}의 {k}배입니다.",
        "part": "{a}의 동전 수는 {b}의 {f}입니다.",
        "question": "{a_t} 동전을 몇 개 가지고 있습니까?",
    },
}
_FRACTIONS: dict[str, tuple[str, str, str]] = {
    "en": ("half", "a third", "a quarter"),
    "fr": ("la moitié", "le tiers", "le quart"),
    "zh": ("二分之一", "三分之一", "四分之一"),
    "ja": ("半分", "3分の1", "4分の1"),
    "ko": ("절반", "3분의 1", "4분의 1"),
}


def parse(relation: str) -> tuple[str, int] | None:
    """Return (kind, k) of a relational premise (``times:3`` -> ("times", 3)), else None."""
    found = _PATTERN.fullmatch(relation)
    if found is None:
        return None
    kind, k = found[1], int(found[2])
    return (kind, k) if kind in ("more", "fewer") or 2 <= k <= 4 else None


def is_relation(relation: str) -> bool:
    """Whether a relation belongs to the domain (coins or ``units`` exchange rates)."""
    return relation == "has" or parse(relation) is not None or units.parse(relation) is not None


def converse(relation: str) -> str | None:
    """Return the relation stated from the other person or colour (None for ``has``)."""
    parsed = parse(relation)
    if parsed is None:
        return units.converse(relation)
    return f"{_CONVERSE[parsed[0]]}:{parsed[1]}"


def frame_of(premises: Premises) -> str:
    """Return ``exchange`` for unit chains (``units``), else ``coins``."""
    return "exchange" if any(units.parse(p[1]) for p in premises) else "coins"


def apply(relation: str, value: Fraction) -> Fraction:
    """Return A's count given B's for premise ``(A, relation, B)``."""
    parsed = parse(relation)
    assert parsed is not None
    kind, k = parsed
    return {
        "more": value + k,
        "fewer": value - k,
        "times": value * k,
        "part": value / k,
    }[kind]


def _links(premises: Sequence[Triple]) -> dict[str, list[tuple[str, str]]]:
    links: dict[str, list[tuple[str, str]]] = {}
    for a, relation, b in premises:
        if relation == "has":
            links.setdefault(a, [])
            continue
        turned = converse(relation)
        if turned is None or a == b:
            raise SolverError(f"premise {[a, relation, b]}: not a quantity premise")
        links.setdefault(a, []).append((b, turned))  # b's count from a's: (b, turned, a)
        links.setdefault(b, []).append((a, relation))
    return links


def values(premises: Sequence[Triple], start: str, value: Fraction) -> dict[str, Fraction]:
    """Return every count reached from ``start`` having ``value``, along the premises."""
    links = _links(premises)
    found = {start: value}
    todo = [start]
    while todo:
        here = todo.pop()
        for other, relation in links.get(here, []):
            if other not in found:
                found[other] = apply(relation, found[here])
                todo.append(other)
    return found


def _whole(counts: Mapping[str, Fraction]) -> bool:
    return all(v.denominator == 1 and v >= 0 for v in counts.values())


def _parts(premises: Sequence[Triple], head: str) -> list[set[str]]:
    """Return the people the premises link, part by part (the head's first)."""
    links = _links(premises)
    nodes = set(links) | {head}
    found: list[set[str]] = []
    for start in [head, *sorted(nodes)]:
        if not any(start in part for part in found):
            found.append(set(values(premises, start, Fraction(0))))
    edges = sum(1 for p in premises if p[1] != "has")
    if edges != len(nodes) - len(found):
        raise SolverError("the relational premises must form a forest (no one linked twice)")
    return found


def _worlds(premises: Sequence[Triple], start: str, wanted: int) -> list[dict[str, Fraction]]:
    """Return up to ``wanted`` whole-number worlds of ``start``'s part, ``start`` differing."""
    found: list[dict[str, Fraction]] = []
    for v in range(_SEARCH):
        counts = values(premises, start, Fraction(v))
        if _whole(counts):
            found.append(counts)
            if len(found) == wanted:
                break
    return found


def solve(premises: Sequence[Triple], query: Sequence[str]) -> frozenset[str]:
    """Return the counts the head can have: one when determined, two worlds' when not, none
    when the premises contradict each other (or allow no whole numbers); exchange rates: how
    many tail tokens one head token is worth (``units``).

    The relational premises form a forest: each part is fixed by a count given in it, or free
    (then some whole-number world must exist for it); the head's part decides the answer."""
    if len(query) == 3 and frame_of(premises) == "exchange":
        return units.solve(premises, query)
    if len(query) != 3 or query[1] != "?" or query[2] != UNKNOWN:
        raise SolverError(f"a query is [person, '?', 'coins'], got {list(query)!r}")
    head = query[0]
    given = [(a, n) for a, r, n in premises if r == "has"]
    if not all(n.isdigit() for _, n in given):
        raise SolverError("a count must be a whole number")
    if not any(head in (a, b) for a, _, b in premises):
        raise SolverError(f"no premise names {head!r}")
    answer: frozenset[str] = frozenset()
    for i, part in enumerate(_parts(premises, head)):
        linked = [(a, Fraction(int(n))) for a, n in given if a in part]
        if linked:
            counts = values(premises, linked[0][0], linked[0][1])
            if not _whole(counts) or any(counts[a] != n for a, n in linked):
                return frozenset()
            worlds = [counts]
        else:
            worlds = _worlds(premises, head, 2) if i == 0 else _worlds(premises, min(part), 1)
            if not worlds:
                return frozenset()
        if i == 0:
            answer = frozenset(str(world[head]) for world in worlds)
    return answer


def _steps(rng: random.Random, target: int) -> tuple[str, int]:
    """Return a relation (A to B) and A's count, for B having ``target``."""
    while True:
        kind = rng.choice(("more", "fewer", "times", "part"))
        k = rng.randint(2, 9) if kind in ("more", "fewer") else rng.randint(2, 4)
        value = apply(f"{kind}:{k}", Fraction(target))
        if value.denominator == 1 and 0 <= value <= 120:
            return f"{kind}:{k}", int(value)


def _path(rng: random.Random, names: Sequence[str], count: int) -> list[Triple]:
    """Return premises linking ``names`` in a path, the last one having ``count`` coins, the
    others whole numbers too (each premise stated from either person)."""
    premises: list[Triple] = []
    for i in range(len(names) - 1, 0, -1):
        relation, new = _steps(rng, count)
        a, b = names[i - 1], names[i]
        turned = converse(relation)
        assert turned is not None
        premises.append((b, turned, a) if rng.random() < 0.5 else (a, relation, b))
        count = new
    return premises


def chain(rng: random.Random, hops: int, want: str) -> Chain:
    """Return a chain of exchange rates (``units``, half the time) or of coin counts: the asked
    person's path P0 .. Pn of ``hops`` premises (its proof) and a shorter path beside it, from
    whole numbers, with a count given at the far end of P0's path (or, ``uncertain``, at an end
    of the other path)."""
    if rng.random() < 0.5:
        return units.chain(rng, hops, want)
    people = [f"P{i}" for i in range(hops + 2 + units.filler_length(rng, hops, 3))]
    mine, other = people[: hops + 1], people[hops + 1 :]
    if rng.random() < 0.5:
        other.reverse()
    counts = (rng.randint(2, 40), rng.randint(2, 40))
    premises = _path(rng, mine, counts[0]) + _path(rng, other, counts[1])
    holder, count = (other[-1], counts[1]) if want == "uncertain" else (mine[-1], counts[0])
    premises.append((holder, "has", str(count)))
    sexes = {p: rng.choice(("M", "F")) for p in people}
    return Chain(shuffled(rng, premises), sexes, "coins", query=("P0", "?", UNKNOWN))


def _sentence(language: str, key: str, a: str, b: str, k: str = "") -> str:
    parts = parse(key)
    if parts is not None:
        key, k = parts[0], str(parts[1])
    f = _FRACTIONS[language][int(k) - 2] if key == "part" else ""
    if (key, k) == ("times", "2") and "twice" in _TEXT[language]:
        key = "twice"
    return _TEXT[language][key].format(
        a=a,
        b=b,
        k=k,
        f=f,
        a_t=grammar.ko_topic(a),
        que_b=grammar.fr_que(b),
        de_b=grammar.fr_de(b),
    )


def premise(language: str, triple: Sequence[str]) -> str:
    """Return the sentence of one premise ("Alice has 3 more coins than Henry.")."""
    a, relation, b = triple
    if units.parse(relation) is not None:
        return units.premise(language, triple)
    if relation == "has":
        return _sentence(language, "has", a, "", b)
    return _sentence(language, relation, a, b)


def question(
    language: str, frame: str, premises: Premises, query: Sequence[str], sexes: Mapping[str, str]
) -> str:
    """Return the world rule, the premises and the question in ``language``."""
    if frame == "exchange":
        return units.question(language, premises, query)
    sentences = [_TEXT[language]["intro"], *(premise(language, p) for p in premises)]
    sentences.append(_sentence(language, "question", query[0], ""))
    return ("" if language in ("zh", "ja") else " ").join(sentences)


def option(language: str, label: str) -> str | None:
    """Return the option text of a count or a value (``3``, ``3/4``)."""
    return label if re.fullmatch(r"[0-9]+(/[0-9]+)?", label) else None


def distractors(
    rng: random.Random,
    chain: Chain,
    answer: str,
    possible: frozenset[str],
    wanted: int,
    below: int | None = None,
) -> list[str]:
    """Return wrong counts near the right one: a premise misread (its converse taken) or near
    numbers, the right count ranked among them by a uniform draw.

    An "Uncertain" item's numbers are drawn the same way around a count of the part whose count
    is given (what a reader who followed the wrong path would answer), which is then one of
    them: so no number's rank or distance from the others tells the right one from the rest.
    ``below``: how many of the others lie below it (``compose`` schedules it in shuffled blocks,
    so that choosing among draws does not skew it); None: a uniform draw."""
    premises = list(chain.premises)
    head = chain.query[0] if chain.query else "P0"
    if chain.frame == "exchange":
        return _wrong_values(rng, chain, answer, wanted, below)
    misread: list[str] = []
    given = [(a, int(n)) for a, r, n in premises if r == "has"]
    for i, (a, relation, b) in enumerate(premises):
        turned = converse(relation)
        if turned is None or not given:
            continue
        swapped = [*premises[:i], (a, turned, b), *premises[i + 1 :]]
        counts = values(swapped, given[0][0], Fraction(given[0][1]))
        if head in counts and _whole(counts):
            misread.append(str(counts[head]))
    if answer.isdigit():
        base = int(answer)
    else:  # a count of the other part, as a misreader would give it
        reached = values(premises, given[0][0], Fraction(given[0][1])) if given else {}
        others = [int(v) for p, v in reached.items() if p != given[0][0]]
        base = rng.choice(sorted(set(others)) or [min(int(x) for x in possible)])
    near = [str(base + d) for d in (-12, -6, -4, -3, -2, -1, 1, 2, 3, 4, 6, 12) if base + d >= 0]
    # The right count (or the stand-in) as often the least, the median or the greatest.
    take = wanted if answer.isdigit() else wanted - 1
    pool = [Fraction(int(x)) for x in {*misread, *near} if x != answer and int(x) != base]
    chosen = [str(v) for v in ranked(rng, Fraction(base), pool, take, below)]
    if not answer.isdigit():
        chosen.append(str(base))
    rng.shuffle(chosen)
    return chosen


def ranked(
    rng: random.Random,
    answer: Fraction,
    pool: Sequence[Fraction],
    wanted: int,
    below: int | None = None,
) -> list[Fraction]:
    """Return ``wanted`` values of ``pool`` near ``answer``, ``below`` of them below it (None:
    as many as a uniform draw says; the nearest count that fits where the pool has too few), so
    the right value is the least, the median or the greatest option alike."""
    under = sorted({v for v in pool if v < answer}, reverse=True)
    over = sorted({v for v in pool if v > answer})
    fits = [k for k in range(wanted + 1) if k <= len(under) and wanted - k <= len(over)]
    if not fits:
        k = min(wanted, len(under))
    elif below is None:
        k = rng.choice(fits)
    else:
        k = min(fits, key=lambda n: (abs(n - below), rng.random()))
    return under[:k] + over[: wanted - k]


_GAPS = (2, 3, 4)
"""Exchange: the ratios between neighbouring numbers of an item's options, drawn alike."""


def _wrong_values(
    rng: random.Random, chain: Chain, answer: str, wanted: int, below: int | None = None
) -> list[str]:
    """Exchange: values a misread rate gives, the right one times or divided by small factors.

    The numbers are a shape drawn first (each ratio between neighbours 2, 3 or 4) and the right
    value is put at one place of it (``below`` others under it; None: a uniform draw): so for
    every shape each place is the right one alike, and neither the right value's rank nor its
    distance from the others' centre tells it. Never a value and its reciprocal (the right one's
    least of all). An "Uncertain" item's numbers are drawn so around a rate between two colours
    of its chains, one of them."""
    premises = list(chain.premises)
    colours = sorted({x for a, _, b in premises for x in (a, b)})
    if answer != "uncertain":
        base, take = Fraction(answer), wanted
    else:
        pool: set[Fraction] = set()
        for start in colours:
            pool |= {v for c, v in units.values(premises, start).items() if c != start}
        base, take = rng.choice(sorted(pool)), wanted - 1
    at = rng.randint(0, take) if below is None else min(below, take)
    for _ in range(50):
        shape = [Fraction(1)]
        for _ in range(take):
            shape.append(shape[-1] * rng.choice(_GAPS))
        shown = [base * v / shape[at] for v in shape]
        if all(v * w != 1 for v, w in itertools.combinations(shown, 2)):
            break
    chosen = shown if answer == "uncertain" else [*shown[:at], *shown[at + 1 :]]
    rng.shuffle(chosen)
    return [units.label(v) for v in chosen]


def rename(rng: random.Random, language: str, chain: Chain, fictional: bool) -> dict[str, str]:
    """Return a name for each person (of the sex drawn for them), or a colour for each token."""
    if chain.frame == "exchange":
        colours = sorted({x for a, _, b in chain.premises for x in (a, b)})
        return dict(zip(colours, rng.sample(units.COLORS["en"], len(colours)), strict=True))
    people = sorted(chain.sexes, key=lambda p: int(p[1:]))
    chosen = names.pick_names(rng, language, [chain.sexes[p] for p in people], fictional)
    return dict(zip(people, chosen, strict=True))


def _people(premises: Premises, query: Sequence[str]) -> set[str]:
    if frame_of(premises) == "exchange":
        return set()
    return {x for a, r, b in premises for x in ((a,) if r == "has" else (a, b))}


SPEC = DomainSpec(
    name="quantity",
    is_relation=is_relation,
    converse=converse,
    named={},
    classes=(),
    definite=6,
    chain=chain,
    solve=solve,
    question=question,
    option=option,
    distractors=distractors,
    frame=lambda premises, query: frame_of(premises),
    persons=_people,
    rename=rename,
)
