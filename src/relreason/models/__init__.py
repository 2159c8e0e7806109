"""Model backends behind one contract (``ModelBackend`` in :mod:`relreason.models.base`), one
registry line each (:mod:`relreason.models.registry`), their options declared once
(:mod:`relreason.models.options`).

Public face: ``load_backend(spec, **options)``, ``BACKENDS``, ``is_free(spec)``,
``ModelOptions``, ``ModelBackend``; imported on first use, so that importing one backend's
module loads no other.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BACKENDS", "ModelBackend", "ModelOptions", "is_free", "load_backend"]


def __getattr__(name: str) -> Any:
    """The public names, imported on first use."""
    if name == "ModelBackend":
        from relreason.models.base import ModelBackend

        return ModelBackend
    if name == "ModelOptions":
        from relreason.models.options import ModelOptions

        return ModelOptions
    if name in __all__:
        from relreason.models import registry

        return getattr(registry, name)
    raise AttributeError(f"module 'relreason.models' has no attribute {name!r}")
