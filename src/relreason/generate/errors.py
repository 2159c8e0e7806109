"""Errors of the generators and their solver."""

from __future__ import annotations

from relreason.errors import RelreasonError


class SolverError(RelreasonError):
    """Premises the solver cannot read: unknown relations, mixed domains, a bad shape."""
