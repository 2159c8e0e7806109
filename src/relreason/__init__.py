"""relreason: measure how well language models reason about relations (ConvRe, MCR and more).

For notebooks: ``relreason.evaluate(benchmark, model, **options)`` runs a model and returns a
result with ``.to_pandas()``; ``relreason.load_runs(folder)`` loads run folders as pandas data
frames (imported on first use). Public face: ``evaluate``, ``EvalResult``, ``load_runs``,
``__version__``.
"""

from __future__ import annotations

from typing import Any

from relreason.version import __version__

__all__ = ["EvalResult", "__version__", "evaluate", "load_runs"]


def __getattr__(name: str) -> Any:
    """``evaluate``, ``EvalResult`` and ``load_runs``, imported on first use."""
    if name in ("evaluate", "EvalResult"):
        from relreason import api

        return getattr(api, name)
    if name == "load_runs":
        from relreason.analysis.load import load_runs

        return load_runs
    raise AttributeError(f"module 'relreason' has no attribute {name!r}")
