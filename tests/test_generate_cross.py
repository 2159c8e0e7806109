"""The solver against independent checks: the hidden world is always a model; brute force agrees."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from relreason.generate import chains
from relreason.generate.lexicon import LANGUAGES
from relreason.generate.solver import solve
from relreason.generate.spatial import (
    COMPASS,
    COMPASS_LABELS,
    ORDER,
    ORDER_LABELS,
    RELATIVE,
    RELATIVE_LABELS,
)


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    language=st.sampled_from(LANGUAGES),
    hops=st.integers(2, 6),
)
def test_the_world_a_chain_was_walked_in_is_one_of_its_models(
    seed: int, language: str, hops: int
) -> None:
    chain = chains.kinship_chain(random.Random(seed), language, hops)
    if chain is None:
        return
    last = f"P{hops}"
    stated = [*chain.premises, (last, "sex", "male" if chain.sexes[last] == "M" else "female")]
    assert chain.hidden in solve(stated, ("P0", "?", last))


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def _brute_position(
    premises: list[tuple[str, str, str]],
    table: dict[str, tuple[int, int]],
    labels: dict[tuple[int, int], str],
) -> set[str]:
    """Every placement of P0, P1 on a grid around P2 = (0, 0) that meets the premises."""
    span = range(-4, 5)
    found: set[str] = set()
    for x0, y0, x1, y1 in itertools.product(span, repeat=4):
        at = {"P0": (x0, y0), "P1": (x1, y1), "P2": (0, 0)}
        ok = True
        for a, relation, b in premises:
            sx, sy = table[relation]
            dx, dy = at[a][0] - at[b][0], at[a][1] - at[b][1]
            if (_sign(dx), _sign(dy)) != (sx, sy):
                ok = False
                break
        if ok:
            found.add(labels[(_sign(x0), _sign(y0))])
    return found


_STEP = st.tuples(st.booleans(), st.booleans())


@settings(max_examples=40, deadline=None)
@given(
    compass=st.booleans(),
    picks=st.lists(st.integers(0, 7), min_size=2, max_size=2),
    flips=st.lists(st.booleans(), min_size=2, max_size=2),
)
def test_position_solver_matches_brute_force_on_a_grid(
    compass: bool, picks: list[int], flips: list[bool]
) -> None:
    table = COMPASS if compass else RELATIVE
    labels = COMPASS_LABELS if compass else RELATIVE_LABELS
    names = sorted(table)
    premises = []
    for i, (pick, flip) in enumerate(zip(picks, flips, strict=True)):
        a, b = f"P{i}", f"P{i + 1}"
        premises.append(
            (b, names[pick % len(names)], a) if flip else (a, names[pick % len(names)], b)
        )
    assert solve(premises, ("P0", "?", "P2")) == _brute_position(premises, table, labels)


@settings(max_examples=60, deadline=None)
@given(
    attribute=st.sampled_from(["height", "age", "arrival"]),
    picks=st.lists(st.integers(0, 2), min_size=2, max_size=4),
    flips=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_order_solver_matches_brute_force(
    attribute: str, picks: list[int], flips: list[bool]
) -> None:
    names = sorted(r for r, (a, _) in ORDER.items() if a == attribute)
    n = len(picks)
    premises = []
    for i, pick in enumerate(picks):
        a, b = f"P{i}", f"P{i + 1}"
        premises.append((b, names[pick], a) if flips[i] else (a, names[pick], b))
    found: set[str] = set()
    for values in itertools.product(range(-n, n + 1), repeat=n):
        at = dict(zip([f"P{i}" for i in range(n)], values, strict=True)) | {f"P{n}": 0}
        if all(_sign(at[a] - at[b]) == ORDER[r][1] for a, r, b in premises):
            found.add(ORDER_LABELS[attribute][_sign(at["P0"])])
    assert solve(premises, ("P0", "?", f"P{n}")) == found
