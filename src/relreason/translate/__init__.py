"""Translate a benchmark file (MCR format or generated) into another language with any model
relreason runs, keeping the option count, the gold option and distinct options; items that fail
these checks are flagged, not written. Public face: ``translate_file``, ``TranslationResult``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relreason.translate.driver import TranslationResult, translate_file

__all__ = ["TranslationResult", "translate_file"]


def __getattr__(name: str) -> Any:
    """``translate_file`` and ``TranslationResult``, imported on first use (the command line
    reads the prompt module's defaults at start-up, not the call path)."""
    if name in __all__:
        from relreason.translate import driver

        return getattr(driver, name)
    raise AttributeError(f"module 'relreason.translate' has no attribute {name!r}")
