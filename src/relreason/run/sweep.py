"""Sweeps: a YAML file of models x benchmarks x settings, run into one folder per cell.

Example::

    out: runs/table9
    models: [{spec: "openai:gpt-4", base_url: "http://127.0.0.1:8000/v1"}, "smollm2"]
    runs:
      - {benchmark: convre, task: [re2text, text2re], setting: [1, 2, 3], subset: true}
      - {benchmark: mcr, language: [en, zh], method: [zs, fs, zsc]}
    options: {scoring: generate, concurrency: 8, max_new_tokens: 64}

Every list-valued field of a run entry is expanded (a grid). Each cell gets a deterministic run
folder ``OUT/<model>/<cell>`` (``relreason.run.plan``, where every run is composed); a complete
folder is skipped, a partial one continued. Every task is built before anything runs, so a bad
setting fails at once, naming the file, line and field.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relreason.benchmarks import get as get_benchmark
from relreason.errors import DataError, RelreasonError, UsageError
from relreason.models.options import ModelOptions
from relreason.run.loop import run_coroutine
from relreason.run.plan import cell_folder, plan_task
from relreason.run.progress import RunProgress, loading
from relreason.run.runner import arun_task
from relreason.run.sweep_cells import PlannedRun, check_cells
from relreason.run.sweep_file import (
    ModelEntry,
    RunEntry,
    SweepFile,
    SweepOptions,
    load_sweep,
)
from relreason.run.sweep_roles import with_roles
from relreason.run.tracking import check_target, in_sweep, log_folders
from relreason.types import Task

__all__ = [
    "ModelEntry",
    "PlannedRun",
    "RunEntry",
    "SweepFile",
    "SweepOptions",
    "SweepResult",
    "check_cells",
    "load_sweep",
    "plan_sweep",
    "run_sweep",
]


@dataclass
class SweepResult:
    """The rows of a finished sweep (see :func:`collect`); ``str()`` gives a table."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def __str__(self) -> str:
        from relreason.run.runs_table import format_rows

        return format_rows(self.rows)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _cells(entry: RunEntry, where: str = "a sweep entry") -> list[dict[str, Any]]:
    """The cells of one run entry: every combination of its values and, for each axis it
    leaves out, of the benchmark's grid; an axis so filled in is said (a warning naming its
    values: ``method`` left out of a compose entry runs zs, fs and zsc, not the command
    line's default)."""
    from relreason.run.warnings import warn

    given = entry.axes()
    grid = get_benchmark(entry.benchmark).grid_for(given)
    for name, values in grid.items():
        if name not in given and len(values) > 1:
            shown = ", ".join(str(v) for v in values)
            warn(
                f"{where} ({entry.benchmark}) names no {name}: it runs each of {shown} "
                f"({len(values)} runs); give {name}: {values[0]} to run only that one"
            )
    axes = {**grid, **given}
    lists = {name: _as_list(value) for name, value in axes.items()}
    names = list(lists)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*lists.values())]


def plan_sweep(sweep: SweepFile, *, path: Path, data_dir: Path | None = None) -> list[PlannedRun]:
    """Expand the grid into runs, building every task first.

    Raises ``DataError`` naming the sweep file and the run entry for an unknown task, setting,
    language or method (and the benchmarks' own errors for bad data).
    """
    from relreason.models.registry import refuse_inapplicable
    from relreason.run.chat import check_chat

    try:
        options = sweep.options.run_options(show_progress=False)  # reads --system-prompt @FILE
    except UsageError as error:
        raise DataError(str(path), str(error), item="options") from None
    models = [ModelEntry(spec=m) if isinstance(m, str) else m for m in sweep.models]
    for position, model in enumerate(models):
        try:  # a known spec, no option its backend would ignore, messages where asked for
            model_options = ModelOptions.from_json(model.options())
            refuse_inapplicable(model.spec, model_options)
            check_chat(model.spec, model_options, options)
        except UsageError as error:
            raise DataError(str(path), str(error), item=f"models[{position}]") from None
    for role, spec in sweep.roles.items():
        try:  # a known spec
            refuse_inapplicable(spec, ModelOptions())
        except UsageError as error:
            raise DataError(str(path), str(error), item=f"roles.{role}") from None
    planned: list[PlannedRun] = []
    seen: set[Path] = set()
    for position, entry in enumerate(sweep.runs):
        try:
            benchmark = get_benchmark(entry.benchmark)
        except UsageError as error:
            raise DataError(str(path), str(error), item=f"runs[{position}]") from None
        for cell in _cells(entry, f"{path}: runs[{position}]"):
            tasks: dict[Any, Task] = {}
            for model in models:
                try:
                    api = model.api or "chat"
                    given = with_roles(benchmark, sweep.roles, cell)
                    params = benchmark.for_model(benchmark.params(**given), model.spec, api)
                    if params not in tasks:
                        tasks[params] = plan_task(
                            benchmark,
                            params,
                            model.spec,
                            api=api,
                            data_dir=data_dir,
                            permute=sweep.options.permute,
                            epochs=sweep.options.epochs,
                        )
                except DataError:
                    raise
                except RelreasonError as error:
                    raise DataError(str(path), str(error), item=f"runs[{position}]") from None
                task = tasks[params]
                out_dir = cell_folder(sweep.out, model.spec, benchmark, params)
                if out_dir in seen:
                    continue
                seen.add(out_dir)
                coordinates = {"benchmark": entry.benchmark, **cell}
                planned.append(PlannedRun(model, task, out_dir, coordinates))
    return planned


async def _arun_sweep(
    planned: Sequence[PlannedRun],
    sweep_options: SweepOptions,
    data_dir: Path | None,
    show: bool,
    rerun_changed: bool = False,
) -> None:
    from relreason.models.registry import load_backend

    options, sizes, todo = check_cells(planned, sweep_options, rerun_changed)
    backends: dict[str, Any] = {}
    with RunProgress(enabled=show, overall=sum(sizes)) as progress:
        try:
            for run, run_options, size, left in zip(planned, options, sizes, todo, strict=True):
                if not left:
                    progress.add_overall(size)
                    continue
                key = json.dumps(run.model.model_dump(), sort_keys=True)
                if key not in backends:
                    with loading(run.model.spec, enabled=show):
                        backends[key] = load_backend(run.model.spec, **run.model.options())
                await arun_task(
                    run.task,
                    backends[key],
                    run.out_dir,
                    run_options,
                    model_options=run.model.manifest_options(),
                    data_dir=data_dir,
                    progress=progress,
                    rerun_changed=rerun_changed,
                )
        finally:
            for backend in backends.values():
                await backend.aclose()


def run_sweep(
    path: Path,
    *,
    data_dir: Path | None = None,
    show_progress: bool = True,
    out: Path | None = None,
    rerun_changed: bool = False,
    ray: str | None = None,
    ray_logs: bool = False,
) -> SweepResult:
    """Run every run of the sweep file that is not complete yet; return the results table.

    ``out`` overrides the file's ``out``. A finished cell whose items, model or options changed
    is refused (``UsageError`` naming them) unless ``rerun_changed``: then it is run again.
    ``ray`` (an address: ``auto``, ``ray://HOST:10001``, or ``local`` for a cluster started
    here) runs each cell as a task on a Ray cluster (``relreason.run.sweep_ray``); the
    workers' output reaches this terminal only with ``ray_logs``.
    Raises ``DataError``/``UsageError`` for a bad sweep file (before anything runs) and
    whatever a run raises.
    """
    sweep = load_sweep(path)
    if out is not None:
        sweep.out = out
    planned = plan_sweep(sweep, path=Path(path), data_dir=data_dir)
    if sweep.options.log_to is not None:  # its tracker installed, before any cell runs
        check_target(sweep.options.log_to)
    if ray is not None:
        from relreason.records import utc_now
        from relreason.run.sweep_ray import run_on_ray

        started, log_to = utc_now(), sweep.options.log_to
        untracked = sweep.options.model_copy(update={"log_to": None})  # the driver logs
        try:
            run_on_ray(
                planned,
                untracked,
                ray,
                show=show_progress,
                rerun_changed=rerun_changed,
                show_logs=ray_logs,
            )
        finally:
            log_folders([p.out_dir for p in planned], log_to, sweep.out, since=started)
    else:
        cells = _arun_sweep(planned, sweep.options, data_dir, show_progress, rerun_changed)
        run_coroutine(in_sweep(sweep.out, cells))  # each cell logged under the sweep
    from relreason.run.runs_table import collect

    return SweepResult(collect(sweep.out))
