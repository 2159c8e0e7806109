"""The formal kinship answer: where X stands relative to Y in a complete world, as a label.

Labels (language-independent, finer than any one language; see ``VOCABULARY.md``), always
followed by ``@`` and Y's sex (``M``/``F``), since some languages name X by Y's sex too:

- ``anc:<sexes>``: X is Y's ancestor; the sexes of the line from Y's parent up to X
  (``anc:MF`` = father's mother).
- ``desc:<sexes>``: X is Y's descendant; the sexes from Y's child down to X.
- ``col:<up>:<o|y>:<down>``: collateral kin. ``up`` = sexes of Y's line from Y's parent up to
  (and including) the ancestor's child on Y's side (``-`` when that child is Y); ``o``/``y`` =
  the child on X's side is older/younger than the one on Y's side; ``down`` = sexes from that
  child down to X (``col:-:o:M`` = older brother, ``col:M:y:M`` = father's younger brother).
- ``spouse:<sex>``: X is Y's husband (``M``) or wife (``F``).
- ``sp[<inner>]:<sex>``: X is the spouse of a blood relative Z of Y, ``inner`` = Z's label
  without ``@``; ``<sex>`` = X's sex (``sp[col:-:o:M]:F`` = older brother's wife).
- ``ofsp[<inner>]``: X is a blood relative of Y's spouse, ``inner`` = X's label relative to
  the spouse, without ``@`` (``ofsp[anc:M]`` = spouse's father).
- ``none``: none of these (e.g. spouse's sibling's spouse).
"""

from __future__ import annotations

from relreason.generate.kin_world import World

NONE = "none"


class UnknownSex(Exception):
    """A label needs the sex of a person the world leaves open."""

    def __init__(self, node: int) -> None:
        super().__init__(node)
        self.node = node


def _sex(world: World, node: int) -> str:
    sex = world.sex[node]
    if sex is None:
        raise UnknownSex(node)
    return sex


def _ancestry(world: World, node: int) -> dict[int, tuple[int, ...]]:
    """Return family -> line of persons from ``node``'s parent up to that family's child.

    The family ``node`` was born into maps to ``()``; the child of a family on the line is
    ``node`` itself when the line is empty, else the last person of the line.
    """
    found: dict[int, tuple[int, ...]] = {}
    todo: list[tuple[int, tuple[int, ...]]] = []
    if world.birth[node] is not None:
        todo.append((world.birth[node], ()))  # type: ignore[arg-type]
    while todo:
        family, line = todo.pop()
        if family in found:
            continue
        found[family] = line
        husband, wife, _ = world.families[family]
        for parent in (husband, wife):
            above = world.birth[parent]
            if above is not None:
                todo.append((above, (*line, parent)))
    return found


def _sexes(world: World, nodes: tuple[int, ...]) -> str:
    return "".join(_sex(world, n) for n in nodes)


def blood_label(world: World, x: int, y: int) -> str | None:
    """Return X's blood-kin label relative to Y (without ``@``), or None when not blood kin."""
    y_up = _ancestry(world, y)
    for family, line in y_up.items():
        husband, wife, _ = world.families[family]
        if x in (husband, wife):
            return "anc:" + _sexes(world, (*line, x))
    x_up = _ancestry(world, x)
    for family, line in x_up.items():
        husband, wife, _ = world.families[family]
        if y in (husband, wife):
            return "desc:" + _sexes(world, (*reversed(line), x))
    best: tuple[int, int] | None = None
    for family in y_up.keys() & x_up.keys():
        size = len(y_up[family]) + len(x_up[family])
        if best is None or size < best[0]:
            best = (size, family)
    if best is None:
        return None
    family = best[1]
    y_line, x_line = y_up[family], x_up[family]
    y_child = y_line[-1] if y_line else y
    x_child = x_line[-1] if x_line else x
    children = world.families[family][2]
    order = "o" if children.index(x_child) < children.index(y_child) else "y"
    up = _sexes(world, y_line) or "-"
    return f"col:{up}:{order}:" + _sexes(world, (*reversed(x_line), x))


def _spouse(world: World, node: int) -> int | None:
    family = world.marriage[node]
    if family is None:
        return None
    husband, wife, _ = world.families[family]
    return wife if husband == node else husband


def kin_label(world: World, x: int, y: int) -> str:
    """Return the label of X relative to Y (``X is Y's ...``), ending with ``@`` + Y's sex.

    Raises ``UnknownSex`` naming a person whose sex the label needs but the world leaves open.
    """
    tail = "@" + _sex(world, y)
    if x != y and _spouse(world, x) == y:
        return f"spouse:{_sex(world, x)}" + tail
    blood = blood_label(world, x, y)
    if blood is not None:
        return blood + tail
    partner = _spouse(world, x)
    if partner is not None:
        inner = blood_label(world, partner, y)
        if inner is not None:
            return f"sp[{inner}]:{_sex(world, x)}" + tail
    own = _spouse(world, y)
    if own is not None:
        inner = blood_label(world, x, own)
        if inner is not None:
            return f"ofsp[{inner}]" + tail
    return NONE + tail
