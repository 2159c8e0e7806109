"""Random premise chains for each domain, drawn from a hidden world.

A chain links persons ``P0 .. Pn`` by ``n`` premises (the hops); the query asks for P0 relative
to Pn. Kinship chains are walked in a hidden family (built with the solver's own world
construction, one random branch per step, kept within reach of a common kin word); position
and order chains pick directions or comparisons, steered towards a determined answer or left
free. The answer itself is always computed afterwards by the solver over every model.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

import relreason.generate.kin_world as kin_world
import relreason.generate.lexicon as lexicon
from relreason.generate.kin_labels import UnknownSex, kin_label
from relreason.generate.kin_terms import term
from relreason.generate.kin_world import FEMALE, MALE, World
from relreason.generate.spatial import COMPASS, ORDER, RELATIVE

Triple = tuple[str, str, str]


@dataclass(frozen=True)
class Chain:
    """Premises over placeholder names ``P0..Pn``, the sex of each, and a domain frame."""

    premises: tuple[Triple, ...]
    sexes: dict[str, str]
    frame: str  # kinship: "family"; position: compass|relative; order: height|age|arrival
    hidden: str | None = None  # kinship: P0's label to Pn in the world the chain was walked in
    query: Triple | None = None  # later domains (``domain_spec``): the query over placeholders


def _size(label: str) -> int:
    core = label.rpartition("@")[0]
    if core.startswith(("sp[", "ofsp[")):
        inner = core[core.index("[") + 1 : core.rindex("]")]
        return 1 + _size(inner + "@M")
    kind, _, rest = core.partition(":")
    if kind in ("anc", "desc"):
        return len(rest)
    if kind == "col":
        up, _, down = rest.split(":")
        return len(up.strip("-")) + len(down)
    return 1 if kind == "spouse" else 99


def _hidden_label(world: World, x: int, y: int, rng: random.Random) -> tuple[World, str]:
    """Return the label of x to y in ``world``, fixing unknown sexes at random."""
    while True:
        try:
            return world, kin_label(world, x, y)
        except UnknownSex as missing:
            fixed = kin_world.check_sex(world, missing.node, rng.choice((MALE, FEMALE)))
            assert fixed is not None
            world = fixed


def kinship_chain(rng: random.Random, language: str, hops: int) -> Chain | None:
    """Return a kinship chain of ``hops`` premises ending on a word of ``language``, or None.

    P0's own premise uses a word that leaves its sex open, and the other premises draw from all
    the words (but a word that names its object's sex, Korean 형/오빠, never has for its object
    a person whose own word leaves the sex open)."""
    relations = sorted(lexicon.KIN_PREMISE[language])
    start, node = kin_world._new_person(World(), rng.choice((MALE, FEMALE)))
    world = dataclasses.replace(start, names=((f"P{hops}", node),))
    anchor = node
    premises: list[Triple] = []
    for i in range(hops - 1, -1, -1):
        name, obj = f"P{i}", f"P{i + 1}"
        here = world.node(obj)
        assert here is not None
        options: list[tuple[str, World]] = []
        # The asked person's own premise leaves their sex open (a sex sentence gives it, or
        # nothing does and the answer may be "Uncertain": ``compose``).
        pool = [r for r in relations if r in kin_world.NEUTRAL] if i == 0 else relations
        if premises and premises[-1][1] in kin_world.NEUTRAL:
            # Korean 형/오빠 name Y's sex too: not of a person whose sex is left open
            pool = [r for r in pool or relations if "|" not in lexicon.KIN_PREMISE[language][r]]
        for relation in pool or relations:
            for grown in kin_world.place(world, name, relation, here, inverse=False):
                x = grown.node(name)
                assert x is not None
                grown, label = _hidden_label(grown, x, anchor, rng)
                if _size(label) > 3 or (i == 0 and term(language, label) is None):
                    continue
                options.append((relation, grown))
        if not options:
            return None
        relation, world = rng.choice(options)
        premises.append((name, relation, obj))
    sexes: dict[str, str] = {}
    for placed, node_id in world.names:
        sex = world.sex[node_id]
        sexes[placed] = sex if sex is not None else rng.choice((MALE, FEMALE))
        if sex is None:
            fixed = kin_world.check_sex(world, node_id, sexes[placed])
            assert fixed is not None
            world = fixed
    head = world.node("P0")
    assert head is not None
    _, hidden = _hidden_label(world, head, anchor, rng)
    return Chain(tuple(reversed(premises)), sexes, "family", hidden)


def _orient(rng: random.Random, a: str, relation: str, b: str, opposite: dict[str, str]) -> Triple:
    """Return (a, relation, b) or, half the time, the same fact stated from b."""
    if rng.random() < 0.5:
        return (b, opposite[relation], a)
    return (a, relation, b)


_COMPASS_OPPOSITE = {
    r: next(o for o, v in COMPASS.items() if v == (-s[0], -s[1])) for r, s in COMPASS.items()
}
_RELATIVE_OPPOSITE = {
    r: next(o for o, v in RELATIVE.items() if v == (-s[0], -s[1])) for r, s in RELATIVE.items()
}
_ORDER_OPPOSITE = {
    r: next(o for o, v in ORDER.items() if v == (a, -s)) for r, (a, s) in ORDER.items()
}


def leaning(table: dict[str, tuple[int, int]], signs: tuple[int, int]) -> list[str]:
    """Return the relations of ``table`` whose every nonzero sign is one of ``signs`` (the steps
    of a determined path towards that direction: north -> north_of; northeast -> north_of,
    east_of, northeast_of)."""
    return [
        r for r in sorted(table) if all(v in (0, t) for v, t in zip(table[r], signs, strict=True))
    ]


def position_chain(rng: random.Random, hops: int, determined: bool) -> Chain:
    """Return a position chain; ``determined`` steers every axis to one sign (no mixing).

    P0's own step leans towards a direction drawn alike in both kinds (an undetermined path
    mixes only after it), so the asked person's path premise is drawn as in a determined item."""
    frame = rng.choice(("compass", "relative"))
    table = COMPASS if frame == "compass" else RELATIVE
    opposite = _COMPASS_OPPOSITE if frame == "compass" else _RELATIVE_OPPOSITE
    lean = leaning(table, rng.choice(list(COMPASS.values())))
    pool = lean if determined else sorted(table)
    steps = [rng.choice(lean), *(rng.choice(pool) for _ in range(hops - 1))]
    premises = [_orient(rng, f"P{i}", step, f"P{i + 1}", opposite) for i, step in enumerate(steps)]
    rng.shuffle(premises)
    sexes = {f"P{i}": rng.choice((MALE, FEMALE)) for i in range(hops + 1)}
    return Chain(tuple(premises), sexes, frame)


TIE_SHARE = 0.6
"""How often a step of an order path (or the person off it) is a tie, so that ties are as
common in items whose answer is greater, smaller or undetermined as in those whose answer is
"the same" (where every step on the path is one)."""


def _step(rng: random.Random, strict: tuple[int, ...]) -> int:
    return 0 if rng.random() < TIE_SHARE else rng.choice(strict)


def _order_steps(rng: random.Random, hops: int, sign: int | None) -> list[int]:
    """Return step signs along the path whose sum has sign ``sign`` (None: mixed, undetermined).

    Ties (0) mix into strict paths, so a tie in the premises does not give the answer away.
    """
    if sign == 0:
        return [0] * hops
    strict = (1, -1) if sign is None else (sign,)
    while True:
        steps = [_step(rng, strict) for _ in range(hops)]
        if all(s in steps for s in strict):
            return steps


def order_chain(rng: random.Random, hops: int, sign: int | None) -> Chain:
    """Return an order chain; ``sign`` is that of P0 minus Pn (1, -1, 0; None: undetermined).

    The path P0 .. Pn has ``hops`` premises; one more links a person P(n+1) to the path.
    """
    attribute = rng.choice(("height", "age", "arrival"))
    by_sign = {s: r for r, (a, s) in ORDER.items() if a == attribute}
    premises = [
        _orient(rng, f"P{i}", by_sign[step], f"P{i + 1}", _ORDER_OPPOSITE)
        for i, step in enumerate(_order_steps(rng, hops, sign))
    ]
    # One more person off the path (a strict step when the path is all ties): "every premise
    # is a tie" never gives the answer away, and the path has to be found.
    side = rng.choice((1, -1)) if sign == 0 else _step(rng, (1, -1))
    premises.append(
        _orient(rng, f"P{hops + 1}", by_sign[side], f"P{rng.randrange(hops + 1)}", _ORDER_OPPOSITE)
    )
    rng.shuffle(premises)
    sexes = {f"P{i}": rng.choice((MALE, FEMALE)) for i in range(hops + 2)}
    return Chain(tuple(premises), sexes, attribute)
