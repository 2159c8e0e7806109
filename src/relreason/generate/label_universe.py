"""The universe of kinship labels the vocabulary can name (both sexes of Y), for patterns."""

from __future__ import annotations

import functools
import itertools


def _sex_strings(max_len: int) -> list[str]:
    return ["".join(p) for n in range(1, max_len + 1) for p in itertools.product("MF", repeat=n)]


@functools.lru_cache(maxsize=1)
def kin_labels() -> tuple[str, ...]:
    """Return every kinship label the vocabulary could name (both sexes of Y)."""
    blood: list[str] = []
    for sexes in _sex_strings(3):
        blood += [f"anc:{sexes}", f"desc:{sexes}"]
    for up in ["-", *_sex_strings(2)]:
        for order in "oy":
            blood += [f"col:{up}:{order}:{down}" for down in _sex_strings(2)]
    cores = [*blood, "spouse:M", "spouse:F"]
    small = [b for b in blood if b.count(":") == 1 and len(b.split(":")[1]) == 1]
    small += [b for b in blood if b.startswith(("col:-:", "col:M:", "col:F:")) and len(b) <= 9]
    for inner in small:
        cores += [f"sp[{inner}]:M", f"sp[{inner}]:F", f"ofsp[{inner}]"]
    return tuple(f"{core}@{y}" for core in cores for y in "MF")
