"""Position and order worlds: entities at integer points, enumerated along the premise tree.

A position premise ``(A, north_of, B)`` says A is due north of B: same x, larger y (any distance); a
diagonal one (``northeast_of``) says both coordinates are larger, by any amounts. An order
premise ``(A, taller_than, B)`` says A's height exceeds B's; ``same_height`` says they are
equal. A model (world) gives every entity integer coordinates (or a value); each strict
premise's difference is 1..B along each of its axes, B = the number of premises (enough to
realise every sign pattern a chain of that many premises allows).

The premises must form a tree over the entities (as generated chains do): only the path from
the query's tail to its head constrains the answer, every other branch can always be met. The
enumeration walks that path keeping the set of reachable offsets (worlds that agree on every
entity so far are merged), and maps each final offset to an answer label.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from relreason.generate.errors import SolverError

Triple = tuple[str, str, str]

COMPASS: dict[str, tuple[int, int]] = {
    "north_of": (0, 1),
    "south_of": (0, -1),
    "east_of": (1, 0),
    "west_of": (-1, 0),
    "northeast_of": (1, 1),
    "northwest_of": (-1, 1),
    "southeast_of": (1, -1),
    "southwest_of": (-1, -1),
}
"""Compass premises: relation -> signs of (x = east, y = north) of A minus B."""

RELATIVE: dict[str, tuple[int, int]] = {
    "in_front_of": (0, 1),
    "behind": (0, -1),
    "right_of": (1, 0),
    "left_of": (-1, 0),
}
"""Left/right/front/back premises (everyone faces the same way): signs of (right, front)."""

ORDER: dict[str, tuple[str, int]] = {
    "taller_than": ("height", 1),
    "shorter_than": ("height", -1),
    "same_height_as": ("height", 0),
    "older_than": ("age", 1),
    "younger_than": ("age", -1),
    "same_age_as": ("age", 0),
    "arrived_before": ("arrival", 1),
    "arrived_after": ("arrival", -1),
    "arrived_with": ("arrival", 0),
}
"""Order premises: relation -> (attribute, sign of A minus B); arrival counts earliness."""

COMPASS_LABELS: dict[tuple[int, int], str] = {
    (0, 1): "north",
    (0, -1): "south",
    (1, 0): "east",
    (-1, 0): "west",
    (1, 1): "northeast",
    (-1, 1): "northwest",
    (1, -1): "southeast",
    (-1, -1): "southwest",
    (0, 0): "same_place",
}
RELATIVE_LABELS: dict[tuple[int, int], str] = {
    (0, 1): "front",
    (0, -1): "back",
    (1, 0): "right",
    (-1, 0): "left",
    (1, 1): "front_right",
    (-1, 1): "front_left",
    (1, -1): "back_right",
    (-1, -1): "back_left",
    (0, 0): "same_place",
}
ORDER_LABELS: dict[str, dict[int, str]] = {
    "height": {1: "taller", -1: "shorter", 0: "same_height"},
    "age": {1: "older", -1: "younger", 0: "same_age"},
    "arrival": {1: "before", -1: "after", 0: "same_time"},
}


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def _path(premises: Sequence[Triple], head: str, tail: str) -> list[tuple[Triple, bool]]:
    """Return the premises from ``tail`` to ``head`` (each with: walked head-to-tail?)."""
    links: dict[str, list[tuple[str, Triple, bool]]] = {}
    for triple in premises:
        a, _, b = triple
        if a == b:
            raise SolverError(f"premise {list(triple)} relates an entity to itself")
        links.setdefault(b, []).append((a, triple, False))
        links.setdefault(a, []).append((b, triple, True))
    nodes = set(links)
    if len(premises) != len(nodes) - 1 or not _connected(links, tail, nodes):
        raise SolverError("the premises must form a tree (a chain) over the entities")
    if head not in links or tail not in links:
        raise SolverError("the query names an entity no premise mentions")
    parent: dict[str, tuple[str, Triple, bool] | None] = {tail: None}
    todo = [tail]
    while todo:
        here = todo.pop()
        for other, triple, backwards in links[here]:
            if other not in parent:
                parent[other] = (here, triple, backwards)
                todo.append(other)
    steps: list[tuple[Triple, bool]] = []
    at = head
    while parent[at] is not None:
        before, triple, backwards = parent[at]  # type: ignore[misc]
        steps.append((triple, backwards))
        at = before
    return list(reversed(steps))


def _connected(
    links: dict[str, list[tuple[str, Triple, bool]]], start: str, nodes: set[str]
) -> bool:
    seen = {start}
    todo = [start]
    while todo:
        for other, _, _ in links.get(todo.pop(), []):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen == nodes


def _axis_values(sign: int, bound: int) -> range:
    if sign == 0:
        return range(0, 1)
    return range(1, bound + 1) if sign > 0 else range(-bound, 0)


def _offsets(signs: Iterable[tuple[int, ...]], bound: int, dims: int) -> set[tuple[int, ...]]:
    """Return every offset reachable by summing one displacement per step (worlds merged)."""
    reach: set[tuple[int, ...]] = {(0,) * dims}
    for step in signs:
        grown: set[tuple[int, ...]] = set()
        for offset in reach:
            if dims == 1:
                grown.update((offset[0] + v,) for v in _axis_values(step[0], bound))
            else:
                for vx in _axis_values(step[0], bound):
                    for vy in _axis_values(step[1], bound):
                        grown.add((offset[0] + vx, offset[1] + vy))
        reach = grown
    return reach


def solve_position(premises: Sequence[Triple], head: str, tail: str) -> frozenset[str]:
    """Return the labels of where ``head`` is relative to ``tail`` over every model.

    Raises ``SolverError`` for unknown or mixed relations and premises that are not a tree.
    """
    kinds = {
        "compass" if r in COMPASS else "relative" if r in RELATIVE else r for _, r, _ in premises
    }
    if len(kinds) != 1 or not kinds <= {"compass", "relative"}:
        raise SolverError(
            f"position premises must all be compass or all relative, got {sorted(kinds)}"
        )
    table = COMPASS if "compass" in kinds else RELATIVE
    labels = COMPASS_LABELS if "compass" in kinds else RELATIVE_LABELS
    signs: list[tuple[int, ...]] = []
    for (_, relation, _), backwards in _path(premises, head, tail):
        sx, sy = table[relation]
        # Walking from B to A along (A, r, B) adds the displacement; the other way subtracts.
        signs.append((-sx, -sy) if backwards else (sx, sy))
    offsets = _offsets(signs, len(premises), 2)
    return frozenset(labels[(_sign(x), _sign(y))] for x, y in offsets)


def solve_order(premises: Sequence[Triple], head: str, tail: str) -> frozenset[str]:
    """Return the labels of how ``head`` compares with ``tail`` over every model.

    Raises ``SolverError`` for unknown relations, mixed attributes and non-tree premises.
    """
    attributes = {ORDER[r][0] if r in ORDER else r for _, r, _ in premises}
    if len(attributes) != 1 or not attributes <= set(ORDER_LABELS):
        raise SolverError(f"order premises must share one attribute, got {sorted(attributes)}")
    attribute = next(iter(attributes))
    signs: list[tuple[int, ...]] = []
    for (_, relation, _), backwards in _path(premises, head, tail):
        sign = ORDER[relation][1]
        signs.append((-sign if backwards else sign,))
    offsets = _offsets(signs, len(premises), 1)
    return frozenset(ORDER_LABELS[attribute][_sign(v)] for (v,) in offsets)
