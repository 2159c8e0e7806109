"""The domains with a module of their own (``domain_spec``), by name, in ``compose`` order."""

from __future__ import annotations

from relreason.generate import containment, identity, quantity
from relreason.generate.domain_spec import DomainSpec

SPECS: dict[str, DomainSpec] = {
    spec.name: spec for spec in (quantity.SPEC, identity.SPEC, containment.SPEC)
}
"""quantity (MCR Mathematical), identity (Identity), containment (Other)."""


def spec_of_relation(relation: str) -> DomainSpec | None:
    """Return the domain whose premises use ``relation``, or None."""
    return next((spec for spec in SPECS.values() if spec.is_relation(relation)), None)
