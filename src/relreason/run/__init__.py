"""Running a task on a model into a run folder: options, the call path (cache, limits,
retries), the item path (stages, reading, records), progress, cost, sweeps.

Public face: ``RunOptions`` (from :mod:`relreason.run.options`), ``run_task``, ``arun_task``,
``resume_run``, ``aresume_run`` and ``resume_task`` (from :mod:`relreason.run.runner`),
imported on first use, so that importing one of the package's modules stays light."""

from __future__ import annotations

from typing import Any

__all__ = ["RunOptions", "aresume_run", "arun_task", "resume_run", "resume_task", "run_task"]


def __getattr__(name: str) -> Any:
    """The public names, imported on first use."""
    if name == "RunOptions":
        from relreason.run.options import RunOptions

        return RunOptions
    if name in __all__:
        from relreason.run import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'relreason.run' has no attribute {name!r}")
