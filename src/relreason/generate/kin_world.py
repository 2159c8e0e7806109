"""Kinship worlds: lazy construction of every family consistent with a set of premises.

The world model (documented in ``VOCABULARY.md``): every person has one father and one mother,
who are married to each other; a person has at most one spouse and all of a person's children
are children of that marriage; siblings share both parents and have a strict birth order (no
twins); nobody marries a blood relative; distinct names denote distinct people.

A ``World`` is a partial family: persons (with a sex, possibly still unknown), families (a
husband, a wife and their children in birth order) and the names placed so far. ``place``
yields every way of adding a person related to a placed one; ``holds`` checks (and completes)
a premise between two placed persons. Worlds are small immutable-by-convention records copied
on every branch, so enumeration is a plain depth-first search.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

MALE = "M"
FEMALE = "F"

# Premise relations: X is Y's <relation>: a structural link, and X's sex where the word gives it.
PREMISE_RELATIONS: dict[str, tuple[str, str | None]] = {
    "father": ("parent", MALE),
    "mother": ("parent", FEMALE),
    "son": ("child", MALE),
    "daughter": ("child", FEMALE),
    "husband": ("spouse", MALE),
    "wife": ("spouse", FEMALE),
    "brother": ("sibling", MALE),
    "sister": ("sibling", FEMALE),
    "older_brother": ("older", MALE),
    "younger_brother": ("younger", MALE),
    "older_sister": ("older", FEMALE),
    "younger_sister": ("younger", FEMALE),
    "parent": ("parent", None),
    "child": ("child", None),
    "spouse": ("spouse", None),
    "sibling": ("sibling", None),
}
"""Kinship premise relations: name -> (structural link, sex of the subject; None: the word
leaves it open, English and French ``parent child spouse sibling``)."""

NEUTRAL: frozenset[str] = frozenset(r for r, (_, sex) in PREMISE_RELATIONS.items() if sex is None)
"""The premise relations that leave the subject's sex open."""

_INVERSE_LINK = {
    "parent": "child",
    "child": "parent",
    "spouse": "spouse",
    "sibling": "sibling",
    "older": "younger",
    "younger": "older",
}


@dataclass(frozen=True)
class World:
    """A partial family: sexes, birth and marriage families, families and placed names."""

    sex: tuple[str | None, ...] = ()
    birth: tuple[int | None, ...] = ()
    marriage: tuple[int | None, ...] = ()
    families: tuple[tuple[int, int, tuple[int, ...]], ...] = ()  # husband, wife, children
    names: tuple[tuple[str, int], ...] = ()

    def node(self, name: str) -> int | None:
        """Return the person placed under ``name``, or None."""
        for placed, node in self.names:
            if placed == name:
                return node
        return None

    def name_of(self, node: int) -> str | None:
        """Return the name placed on person ``node``, or None."""
        for placed, other in self.names:
            if other == node:
                return placed
        return None


def _new_person(world: World, sex: str | None) -> tuple[World, int]:
    node = len(world.sex)
    return (
        replace(
            world,
            sex=(*world.sex, sex),
            birth=(*world.birth, None),
            marriage=(*world.marriage, None),
        ),
        node,
    )


def _set(values: tuple[int | None, ...], index: int, value: int) -> tuple[int | None, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _set_sex(world: World, node: int, sex: str) -> World | None:
    current = world.sex[node]
    if current == sex:
        return world
    if current is not None:
        return None
    sexes = list(world.sex)
    sexes[node] = sex
    return replace(world, sex=tuple(sexes))


def _birth_family(world: World, node: int) -> tuple[World, int]:
    """Return the world and the family ``node`` was born into, creating unknown parents."""
    family = world.birth[node]
    if family is not None:
        return world, family
    world, father = _new_person(world, MALE)
    world, mother = _new_person(world, FEMALE)
    family = len(world.families)
    world = replace(
        world,
        families=(*world.families, (father, mother, (node,))),
        birth=_set(world.birth, node, family),
    )
    world = replace(world, marriage=_set(_set(world.marriage, father, family), mother, family))
    return world, family


def _marriage_families(world: World, node: int) -> Iterator[tuple[World, int]]:
    """Yield (world, family) for ``node``'s marriage, creating a spouse (both sexes if unknown)."""
    family = world.marriage[node]
    if family is not None:
        yield world, family
        return
    sexes = [world.sex[node]] if world.sex[node] is not None else [MALE, FEMALE]
    for sex in sexes:
        assert sex is not None
        known = _set_sex(world, node, sex)
        assert known is not None
        known, spouse = _new_person(known, FEMALE if sex == MALE else MALE)
        husband, wife = (node, spouse) if sex == MALE else (spouse, node)
        family = len(known.families)
        known = replace(
            known,
            families=(*known.families, (husband, wife, ())),
            marriage=_set(_set(known.marriage, husband, family), wife, family),
        )
        yield known, family


def _children_choices(world: World, family: int, sex: str | None) -> Iterator[tuple[World, int]]:
    """Yield every existing child of ``family`` and a new child at every birth position."""
    husband, wife, children = world.families[family]
    for child in children:
        if sex is None:
            yield world, child
        else:
            fixed = _set_sex(world, child, sex)
            if fixed is not None:
                yield fixed, child
    for position in range(len(children) + 1):
        grown, child = _new_person(world, sex)
        order = (*children[:position], child, *children[position:])
        families = list(grown.families)
        families[family] = (husband, wife, order)
        yield (
            replace(grown, families=tuple(families), birth=_set(grown.birth, child, family)),
            child,
        )


def _candidates(
    world: World, anchor: int, link: str, sex: str | None
) -> Iterator[tuple[World, int]]:
    """Yield (world, person) for every person who may stand in ``link`` to ``anchor``."""
    if link == "parent":
        world, family = _birth_family(world, anchor)
        husband, wife, _ = world.families[family]
        if sex in (None, MALE):
            yield world, husband
        if sex in (None, FEMALE):
            yield world, wife
    elif link == "child":
        for married, family in _marriage_families(world, anchor):
            yield from _children_choices(married, family, sex)
    elif link == "spouse":
        for married, family in _marriage_families(world, anchor):
            husband, wife, _ = married.families[family]
            yield married, wife if husband == anchor else husband
    else:  # sibling, older, younger
        world, family = _birth_family(world, anchor)
        for grown, person in _children_choices(world, family, sex):
            if person != anchor:
                yield grown, person


def holds(world: World, subject: int, relation: str, obj: int) -> World | None:
    """Return ``world`` (sexes completed) when ``subject`` is ``obj``'s ``relation``, else None."""
    if relation == "sex":
        raise ValueError("sex premises are checked by check_sex")
    link, sex = PREMISE_RELATIONS[relation]
    if subject == obj:
        return None
    if sex is not None:
        fixed = _set_sex(world, subject, sex)
        if fixed is None:
            return None
        world = fixed
    if link == "parent":
        family = world.birth[obj]
        ok = family is not None and subject in world.families[family][:2]
    elif link == "child":
        family = world.birth[subject]
        ok = family is not None and obj in world.families[family][:2]
    elif link == "spouse":
        ok = world.marriage[subject] is not None and world.marriage[subject] == world.marriage[obj]
    else:
        family = world.birth[subject]
        ok = family is not None and family == world.birth[obj]
        if ok and family is not None and link != "sibling":
            children = world.families[family][2]
            older = children.index(subject) < children.index(obj)
            ok = older if link == "older" else not older
    return world if ok else None


def check_sex(world: World, node: int, sex: str) -> World | None:
    """Return ``world`` with ``node``'s sex set to ``sex``, or None when it is the other."""
    return _set_sex(world, node, sex)


def place(world: World, name: str, relation: str, anchor: int, *, inverse: bool) -> Iterator[World]:
    """Yield every world where ``name`` is placed relative to the placed person ``anchor``.

    Not inverse: ``name`` is ``anchor``'s ``relation``. Inverse: ``anchor`` is ``name``'s
    ``relation``. A candidate already carrying another name is skipped (distinct names are
    distinct people); the premise is then checked with ``holds``.
    """
    link, sex = PREMISE_RELATIONS[relation]
    if inverse:
        link, sex = _INVERSE_LINK[link], None
    for grown, person in _candidates(world, anchor, link, sex):
        if grown.name_of(person) is not None:
            continue
        named = replace(grown, names=(*grown.names, (name, person)))
        checked = (
            holds(named, anchor, relation, person)
            if inverse
            else holds(named, person, relation, anchor)
        )
        if checked is not None:
            yield checked
