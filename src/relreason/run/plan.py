"""The composition root: benchmark x params x model x options -> task, backend factory, folder.

Every way to start a run goes through here: the command line (``relreason run NAME``),
``relreason.evaluate``, sweeps (local and on Ray) and ``--resume``. :func:`plan_task` builds the
task (parameters completed for the model, every parameter recorded, option orders),
:func:`default_folder` and :func:`cell_folder` name its run folder, and a :class:`Plan` holds
what a run needs, the backend as a factory (loaded where the run happens: here, or a Ray
worker).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relreason.benchmarks.base import Benchmark, BenchmarkParams
from relreason.errors import UsageError
from relreason.models.options import ModelOptions
from relreason.run.options import RunOptions
from relreason.types import Task

if TYPE_CHECKING:
    from relreason.models.base import ModelBackend

PARAMS_KEY = "params"
"""The key of a task description holding every parameter the task was built with."""


@dataclass(frozen=True)
class Plan:
    """One run, composed: its task, model, options and folder; ``backend()`` loads the model."""

    task: Task
    model: str
    model_options: ModelOptions
    options: RunOptions
    out: Path

    def backend(self) -> ModelBackend:
        """Load the plan's backend (``UsageError`` for an unknown spec or a missing extra)."""
        from relreason.models.registry import load_backend

        return load_backend(self.model, self.model_options)


def build_recorded(
    benchmark: Benchmark[Any], params: BenchmarkParams, data_dir: Path | None
) -> Task:
    """Build the task of ``params`` with every parameter recorded in its description (under
    :data:`PARAMS_KEY`, as passed), so that a resume validates exactly them back."""
    import dataclasses

    task = benchmark.build_task(params, data_dir)
    recorded = {**task.description, PARAMS_KEY: params.model_dump(mode="json")}
    return dataclasses.replace(task, description=recorded)


def plan_task(
    benchmark: Benchmark[Any],
    params: BenchmarkParams,
    model: str,
    *,
    api: str = "chat",
    data_dir: Path | None = None,
    permute: str | None = None,
    epochs: int | None = None,
) -> Task:
    """The task ``model`` runs: ``params`` completed for the model (``Benchmark.for_model``),
    every parameter recorded, asked under the option orders ``permute`` names, each item
    ``epochs`` times."""
    from relreason.benchmarks.epochs import epoch_task
    from relreason.benchmarks.registry import permuted

    params = benchmark.for_model(params, model, api)
    return epoch_task(permuted(build_recorded(benchmark, params, data_dir), permute), epochs)


def default_folder(task: Task, model: str) -> Path:
    """The run folder of a run given none: ``runs/<task>-<model>-<UTC time>``."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in f"{task.name}-{model}")
    return Path("runs") / f"{safe}-{stamp}"


def model_slug(spec: str) -> str:
    """A model spec as one folder name (a sweep's ``OUT/<model>``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-") or "model"


def cell_folder(root: Path, spec: str, benchmark: Benchmark[Any], params: BenchmarkParams) -> Path:
    """A sweep cell's deterministic run folder: ``ROOT/<model>/<run name>``."""
    return root / model_slug(spec) / benchmark.run_name(params)


def plan_run(
    benchmark: Benchmark[Any],
    params: BenchmarkParams,
    model: str,
    model_options: ModelOptions,
    run_values: Mapping[str, Any],
    *,
    data_dir: Path | None = None,
    permute: str | None = None,
    epochs: int | None = None,
    out: Path | None = None,
) -> Plan:
    """Compose one run of the command line or ``evaluate``: the task of ``params`` for
    ``model``, the run options of ``run_values`` (flat names; the task's own generation length
    unless ``max_new_tokens``), checked, with the model's options refused where its backend
    would ignore them, into ``out`` (default: :func:`default_folder`)."""
    from relreason.models.registry import refuse_inapplicable, refuse_unavailable_device
    from relreason.run.chat import check_chat
    from relreason.run.options import run_options_from

    refuse_unavailable_device(model, model_options)
    task = plan_task(
        benchmark,
        params,
        model,
        api=model_options.api,
        data_dir=data_dir,
        permute=permute,
        epochs=epochs,
    )
    options = run_options_from(run_values, task)
    options.validate()
    refuse_inapplicable(model, model_options)
    check_chat(model, model_options, options)
    return Plan(task, model, model_options, options, out or default_folder(task, model))


def task_from_description(
    description: Mapping[str, Any],
    data_dir: Path | None = None,
    *,
    spec: str | None = None,
    api: str = "chat",
) -> Task:
    """Rebuild the task a run manifest's ``description`` records (for ``--resume``): its
    parameters as passed (``params``, validated back by the benchmark's model), or, for a
    folder written before they were stored, from its fields (``params_from_description``);
    for the model ``spec`` when given, with its option orders when it was run with
    ``--permute`` and its epochs when it was run with ``--epochs``.

    Raises ``UsageError`` when it names no registered benchmark or lacks a field.
    """
    from relreason import benchmarks
    from relreason.benchmarks.epochs import epoch_task
    from relreason.benchmarks.registry import permuted

    name = description.get("benchmark")
    if not isinstance(name, str) or name not in benchmarks.names():
        raise UsageError(
            f"unknown benchmark {name!r} in the run's task description; valid: "
            + ", ".join(benchmarks.names())
        )
    benchmark = benchmarks.get(name)
    recorded = description.get(PARAMS_KEY)
    how = description.get("permute")
    how = None if how is None else str(how)
    epochs = description.get("epochs")
    if isinstance(recorded, Mapping):  # every parameter, as passed at run time
        params = benchmark.recorded_params(benchmark.params(**recorded), description)
        if spec is None:
            return epoch_task(permuted(build_recorded(benchmark, params, data_dir), how), epochs)
        return plan_task(
            benchmark, params, spec, api=api, data_dir=data_dir, permute=how, epochs=epochs
        )
    params = benchmark.params_from_description(description)  # an older folder
    if spec is not None:
        params = benchmark.for_model(params, spec, api)
    return permuted(benchmark.build_task(params, data_dir), how)
