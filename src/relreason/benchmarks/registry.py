"""The benchmark registry: names -> ``Benchmark`` objects, and what needs a benchmark by name
(a task rebuilt from its description, ``permuted``: a task under its benchmark's option orders).

Adding a benchmark is one package exporting a ``Benchmark`` and one line in ``_BUILTIN``
(or, from outside relreason, an entry point in the group ``relreason.benchmarks`` or a call
to :func:`register`).
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

from relreason.benchmarks.base import Benchmark
from relreason.benchmarks.permute import permute_task
from relreason.data.spec import DataFiles
from relreason.errors import UsageError
from relreason.types import Task

_BUILTIN = {
    "convre": "relreason.benchmarks.convre:BENCHMARK",
    "mcr": "relreason.benchmarks.mcr:BENCHMARK",
    "compose": "relreason.benchmarks.compose:BENCHMARK",
}
ENTRY_POINT_GROUP = "relreason.benchmarks"

_registry: dict[str, Benchmark[Any]] = {}
_loaded = False


def _load(target: str) -> Benchmark[Any]:
    module, _, attribute = target.partition(":")
    benchmark = getattr(importlib.import_module(module), attribute)
    if not isinstance(benchmark, Benchmark):
        raise TypeError(f"{target} is not a relreason Benchmark")
    return benchmark


def _ensure_loaded() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name, target in _BUILTIN.items():
        _registry.setdefault(name, _load(target))
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name not in _registry:
            _registry[point.name] = _load(point.value)


def register(benchmark: Benchmark[Any]) -> None:
    """Add ``benchmark`` under its name (replacing one of the same name)."""
    _ensure_loaded()
    _registry[benchmark.name] = benchmark


def unregister(name: str) -> None:
    """Remove the benchmark called ``name`` (no error when absent)."""
    _ensure_loaded()
    _registry.pop(name, None)


def names() -> list[str]:
    """Return the registered benchmark names, in registration order."""
    _ensure_loaded()
    return list(_registry)


def get(name: str) -> Benchmark[Any]:
    """Return the benchmark called ``name``; ``UsageError`` listing the valid names otherwise."""
    _ensure_loaded()
    try:
        return _registry[name]
    except KeyError:
        raise UsageError(f"unknown benchmark {name!r}; valid: {', '.join(_registry)}") from None


def all_benchmarks() -> list[Benchmark[Any]]:
    """Return every registered benchmark."""
    _ensure_loaded()
    return list(_registry.values())


def data_files(which: str) -> list[DataFiles]:
    """Return the official files of ``which`` (a benchmark name, or ``all``).

    Raises ``UsageError`` for an unknown name or a benchmark without files to download.
    """
    if which.strip().lower() == "all":
        return [b.files for b in all_benchmarks() if b.files is not None]
    benchmark = get(which.strip().lower())
    if benchmark.files is None:
        raise UsageError(f"benchmark {which!r} has no files to download")
    return [benchmark.files]


def permuted(task: Task, how: str | None) -> Task:
    """Return ``task`` permuted by ``how`` with its benchmark's ``reorder`` (unchanged for None).

    Raises ``UsageError`` for an unknown benchmark or one that cannot reorder its options.
    """
    if how is None:
        return task
    benchmark = get(task.benchmark)
    try:
        return permute_task(task, how, benchmark.reorder)
    except ValueError as error:
        raise UsageError(f"--permute: {error}") from None
