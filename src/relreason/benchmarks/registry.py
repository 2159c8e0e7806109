"""The benchmark registry: names -> ``Benchmark`` objects, and what needs a benchmark by name
(a task rebuilt from its description, ``permuted``: a task under its benchmark's option orders).

Adding a benchmark is one package exporting a ``Benchmark`` and one line in ``_BUILTIN``
(or, from outside relreason, an entry point in the group ``relreason.benchmarks`` or a call
to :func:`register`).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from relreason.benchmarks.base import Benchmark, BenchmarkParams
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

_registry: dict[str, Benchmark] = {}
_loaded = False


def _load(target: str) -> Benchmark:
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


def register(benchmark: Benchmark) -> None:
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


def get(name: str) -> Benchmark:
    """Return the benchmark called ``name``; ``UsageError`` listing the valid names otherwise."""
    _ensure_loaded()
    try:
        return _registry[name]
    except KeyError:
        raise UsageError(f"unknown benchmark {name!r}; valid: {', '.join(_registry)}") from None


def all_benchmarks() -> list[Benchmark]:
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


PARAMS_KEY = "params"
"""The key of a task description holding every parameter the task was built with."""


def build_recorded(benchmark: Benchmark, params: BenchmarkParams, data_dir: Path | None) -> Task:
    """Build the task of ``params`` with every parameter recorded in its description (under
    :data:`PARAMS_KEY`), so that a resume rebuilds exactly it (``--mode strict`` included)."""
    task = benchmark.build_task(params, data_dir)
    recorded = {**task.description, PARAMS_KEY: params.model_dump(mode="json")}
    return dataclasses.replace(task, description=recorded)


def task_from_description(
    description: Mapping[str, Any],
    data_dir: Path | None = None,
    *,
    spec: str | None = None,
    api: str = "chat",
) -> Task:
    """Rebuild the task a run manifest's ``description`` records (for ``--resume``): from every
    parameter it recorded (:func:`build_recorded`), or, for an older folder, from its fields;
    for the model ``spec`` when given (see ``Benchmark.for_model``), with its option orders when
    it was run with ``--permute``.

    Raises ``UsageError`` when it names no registered benchmark or lacks a field.
    """
    name = description.get("benchmark")
    if not isinstance(name, str) or name not in names():
        raise UsageError(
            f"unknown benchmark {name!r} in the run's task description; valid: "
            + ", ".join(names())
        )
    benchmark = get(name)
    recorded = description.get(PARAMS_KEY)
    if isinstance(recorded, Mapping):  # every parameter, as given at run time
        params = benchmark.params(**recorded)
    else:  # a folder of relreason 0.2 or older: the fields its description holds
        params = benchmark.params_from_description(description)
    if spec is not None:
        params = benchmark.for_model(params, spec, api)
    if isinstance(recorded, Mapping):
        task = build_recorded(benchmark, params, data_dir)
    else:
        task = benchmark.build_task(params, data_dir)
    how = description.get("permute")
    return task if how is None else permuted(task, str(how))


def download(
    which: str,
    dest: Path | str | None = None,
    *,
    mirror: str | None = None,
    timeout: float = 60,
    raw_base: str | None = None,
) -> list[Path]:
    """Fetch the official files of ``which`` (a benchmark name or ``all``) into ``dest``.

    See :func:`relreason.data.download.download_files`; ``raw_base`` is for tests only.
    """
    from relreason.data.download import RAW_BASE, download_files

    return download_files(
        data_files(which), dest, mirror=mirror, timeout=timeout, raw_base=raw_base or RAW_BASE
    )


def verify(name: str, data_dir: Path | str | None = None) -> list[str]:
    """Return one line per file of benchmark ``name`` that is missing or differs from its pin."""
    from relreason.data.sources import verify as verify_files

    return verify_files(data_files(name)[0], data_dir)


def pinned_files(name: str) -> dict[str, str]:
    """Return file name -> pinned SHA-256 of benchmark ``name``'s official files."""
    return data_files(name)[0].pinned()


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
