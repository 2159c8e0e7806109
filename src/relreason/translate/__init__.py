"""Translate a benchmark file (MCR format or generated) into another language with any model
relreason runs, keeping the option count, the gold option and distinct options; items that fail
these checks are flagged, not written. Public face: ``translate_file``, ``TranslationResult``."""

from relreason.translate.driver import TranslationResult, translate_file

__all__ = ["TranslationResult", "translate_file"]
