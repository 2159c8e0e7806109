"""A sweep file's model roles: ``roles: {cleanup: SPEC}`` names a helper model once for every
cell whose benchmark has a parameter of that role (``relreason.declare.Role``: MCR's and
compose's ``cleanup_model`` is ``cleanup``); a cell that sets the parameter itself keeps its
own value. The roles a file may name are read from the registered benchmarks' declarations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from relreason.benchmarks import all_benchmarks
from relreason.benchmarks.base import Benchmark
from relreason.declare import role_of


def known_roles() -> dict[str, list[str]]:
    """Each model role the registered benchmarks declare, with the parameters that take it
    (``BENCHMARK.field``)."""
    roles: dict[str, list[str]] = {}
    for bench in all_benchmarks():
        for name, info in bench.params_model.model_fields.items():
            role = role_of(info)
            if role is not None:
                roles.setdefault(role, []).append(f"{bench.name}.{name}")
    return roles


def unknown_role_message(role: str) -> str:
    """Why ``role`` is refused: the roles there are and what takes each."""
    known = known_roles()
    shown = "; ".join(f"{r} ({', '.join(fields)})" for r, fields in sorted(known.items()))
    return f"unknown model role {role!r}; the roles are: {shown or 'none'}"


def with_roles(
    benchmark: Benchmark[Any], roles: Mapping[str, str], cell: Mapping[str, Any]
) -> dict[str, Any]:
    """``cell`` with each parameter of ``benchmark`` that takes a role of ``roles`` set to that
    role's model, unless the cell sets it."""
    filled = {
        name: roles[role]
        for name, info in benchmark.params_model.model_fields.items()
        if (role := role_of(info)) is not None and role in roles
    }
    return {**filled, **cell}
