"""Cells: a benchmark under one setting, named on the command line and rebuilt from a log.

A cell is named either by its run name (``convre-re2text-s09``, ``mcr-en-zs``: any cell of a
benchmark's sweep grid, as ``relreason sweep`` names its folders) or by ``BENCHMARK:key=value,...``
(``convre:task=re2text,setting=9``; the keys are the benchmark's parameters).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from relreason import benchmarks
from relreason.benchmarks.base import Benchmark, BenchmarkParams
from relreason.errors import UsageError
from relreason.types import Task


@dataclass(frozen=True)
class Cell:
    """A benchmark, its parameters and the run name they have."""

    benchmark: Benchmark[Any]
    params: BenchmarkParams

    @property
    def name(self) -> str:
        """The cell's run name (``convre-re2text-s09``)."""
        return self.benchmark.run_name(self.params)

    def task(self, data_dir: Path | None = None) -> Task:
        """Build the cell's task (``UsageError``/``DataError`` for bad values or data)."""
        return self.benchmark.build_task(self.params, data_dir)


def grid_cells(benchmark: Benchmark[Any]) -> Iterator[Cell]:
    """Every cell of ``benchmark``'s default sweep grid, in grid order."""
    axes = benchmark.grid()
    for combo in itertools.product(*axes.values()):
        yield Cell(benchmark, benchmark.params(**dict(zip(axes, combo, strict=True))))


def all_cells() -> list[Cell]:
    """Every grid cell of every registered benchmark."""
    return [cell for bench in benchmarks.all_benchmarks() for cell in grid_cells(bench)]


def _value(text: str) -> Any:
    """A ``key=value`` value as YAML reads it (``9`` -> 9, ``true`` -> True), else the text."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    return value if isinstance(value, int | float | bool | str) else text


def parse_cell(text: str) -> Cell:
    """Return the cell ``text`` names (see the module docstring).

    Raises ``UsageError`` naming the cell for an unknown benchmark, key or run name.
    """
    name, colon, rest = text.partition(":")
    if colon:
        bench = benchmarks.get(name.strip().lower())
        values: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in rest.split(","))):
            key, equals, value = part.partition("=")
            if not equals or not key.strip():
                raise UsageError(f"cell {text!r}: expected key=value, got {part!r}")
            values[key.strip().replace("-", "_")] = _value(value.strip())
        try:
            return Cell(bench, bench.params(**values))
        except UsageError as error:
            raise UsageError(f"cell {text!r}: {error}") from None
    for cell in all_cells():
        if cell.name == text.strip():
            return cell
    raise UsageError(
        f"unknown cell {text!r}: give a run name of a sweep grid cell (convre-re2text-s09, "
        "mcr-en-zs, compose-en-zs) or BENCHMARK:key=value,... (convre:task=re2text,setting=9)"
    )


def cell_key(task: Task) -> str:
    """The text a harness document carries to name its task: the task description as JSON
    (what a run manifest records, and what :func:`task_from_key` rebuilds the task from)."""
    return json.dumps(dict(task.description), sort_keys=True, ensure_ascii=False, default=str)


def task_from_key(key: str, data_dir: Path | None = None) -> Task:
    """Rebuild the task :func:`cell_key` named; ``UsageError`` when the text names none."""
    from relreason.run.plan import task_from_description

    try:
        description = json.loads(key)
    except (ValueError, RecursionError):
        raise UsageError("the task description is not valid JSON") from None
    if not isinstance(description, Mapping):
        raise UsageError("the task description is not a JSON object")
    return task_from_description(description, data_dir)
