"""Filler premises that hide the answer's direction at both ends of a chain.

In a determined position, order or containment chain every step, read from the asked entity,
leans the answer's way (all north for "north", all inside for "inside"), so the asked entity's
own premise would give the answer away. Each end of the path gets two more premises, each to a
new entity, in the relations of the same kind other than the path's step there (containment and
order: the other two, so the asked box is inside one box, holds another and is apart from a
third whatever the answer; position: two of the other directions, drawn, and ``compose`` turns
the asked end's towards the wrong options, ``kin_balance.lean_fillers``): leaves, so they
change no answer and no proof depth.
"""

from __future__ import annotations

import dataclasses
import random

from relreason.generate.balance import _OPPOSITE
from relreason.generate.chains import Chain, Triple
from relreason.generate.containment import CONVERSE, STATES
from relreason.generate.spatial import COMPASS, ORDER, RELATIVE

DOMAINS = frozenset({"position", "order", "containment"})
ROOM = {"containment": 11, "position": 10, "order": 10}
"""How many entities an item may name, fillers included (colours; people: the scene sentence
counts up to ten). The asked end gets its fillers first."""
PER_END = 2


def _opposite(relation: str) -> str:
    return CONVERSE[relation] if relation in STATES else _OPPOSITE[relation]


def _family(relation: str) -> list[str]:
    """The relations a filler at this end may use (the path premise's table or attribute)."""
    if relation in STATES:
        return sorted(STATES)
    if relation in ORDER:
        return sorted(r for r, (a, _) in ORDER.items() if a == ORDER[relation][0])
    return sorted(COMPASS if relation in COMPASS else RELATIVE)


def mirror(rng: random.Random, chain: Chain, hops: int, domain: str) -> Chain:
    """Return the chain with filler premises at each end of its path P0 .. Pn (module doc)."""
    premises: list[Triple] = list(chain.premises)
    taken = {x for a, _, b in premises for x in (a, b)}
    sexes = dict(chain.sexes)
    for end, near in [("P0", "P1"), (f"P{hops}", f"P{hops - 1}")]:
        a, relation, _ = next(p for p in premises if {p[0], p[2]} == {end, near})
        read = relation if a == end else _opposite(relation)
        others = [r for r in _family(read) if r != read]
        for turned in rng.sample(others, min(PER_END, len(others))):
            if len(taken) >= ROOM[domain]:
                break
            new = next(f"P{i}" for i in range(hops + 1, 99) if f"P{i}" not in taken)
            taken.add(new)
            fact = (end, turned, new) if rng.random() < 0.5 else (new, _opposite(turned), end)
            premises.insert(rng.randrange(len(premises) + 1), fact)
            if sexes:
                sexes[new] = rng.choice(("M", "F"))
    return dataclasses.replace(chain, premises=tuple(premises), sexes=sexes)
