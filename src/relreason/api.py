"""The Python API for notebooks: ``evaluate`` a model on a benchmark, ``load_runs`` a folder.

``evaluate`` uses the command line's defaults (bundled SmolLM2, the setting's own generation
length, the response cache) and the same composition (``relreason.run.plan``) and entry point
(``run_task``); it works inside Jupyter, whose event loop is already running: the run then goes
on in a worker thread with a loop of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relreason import benchmarks
from relreason.models.options import ModelOptions
from relreason.models.registry import DEFAULT_MODEL
from relreason.records import Record, RunSummary, load_typed_records
from relreason.run.settings import RunSettings

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class EvalResult:
    """A finished run: its folder and summary; ``to_pandas()`` gives one row per item."""

    folder: Path
    summary: RunSummary

    @property
    def accuracy(self) -> float:
        """The run's accuracy (failed items count as not correct)."""
        return self.summary.accuracy

    def records(self) -> list[Record]:
        """The run's records (typed :class:`relreason.records.Record` values), by index."""
        return [r for _, r in sorted(load_typed_records(self.folder).items())]

    def to_pandas(self) -> pd.DataFrame:
        """One row per item: the record's fields, labels flattened to ``label_<name>``."""
        import pandas as pd

        rows = []
        for record in self.records():
            row = {k: v for k, v in record.to_json().items() if k != "labels"}
            row.update({f"label_{k}": v for k, v in record.labels.items()})
            rows.append(row)
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        return f"EvalResult({self.folder}, accuracy={self.accuracy:.4f}, n={self.summary.n})"


def evaluate(
    benchmark: str,
    model: str = DEFAULT_MODEL,
    *,
    out: Path | str | None = None,
    data_dir: Path | str | None = None,
    **options: Any,
) -> EvalResult:
    """Run ``model`` on ``benchmark`` (``convre``, ``mcr``, ``compose``...) and return the result.

    Keyword ``options`` are the fields of the three declarations, by the names the command
    line and sweep files use: the benchmark's parameters (its ``params_model``, e.g.
    ``task="re2text", setting=9``), run options (``relreason.run.settings.RunSettings``:
    ``scoring``, ``limit``, ``concurrency``, ``requests_per_minute``, ``use_cache``,
    ``permute`` (``"cyclic"``, ``"reverse"``, ``"all"`` or a number: each item under several
    option orders), ``epochs`` (each item N times, for sampling variance), ...) and backend
    options (``ModelOptions``: ``base_urls``, ``api``,
    ``chat_template``, ...). The run is composed and run as the command line's is
    (``relreason.run.plan.plan_run``, ``run_task``). Raises ``UsageError``/``DataError`` like
    the command line.
    """
    from relreason.errors import UsageError
    from relreason.run.plan import plan_run
    from relreason.run.runner import run_task

    bench = benchmarks.get(benchmark)
    params_values, run_values, model_values = (
        {k: v for k, v in options.items() if k in declaration.model_fields}
        for declaration in (bench.params_model, RunSettings, ModelOptions)
    )
    permute = run_values.pop("permute", None)
    epochs = run_values.pop("epochs", None)
    unknown = set(options) - {*params_values, *run_values, *model_values, "permute", "epochs"}
    if unknown:
        raise UsageError(f"unknown option(s) for evaluate: {', '.join(sorted(unknown))}")
    folder_data = None if data_dir is None else Path(data_dir)
    plan = plan_run(
        bench,
        bench.params(**params_values),
        model,
        ModelOptions.from_json(model_values),
        run_values,
        data_dir=folder_data,
        permute=None if permute is None else str(permute),
        epochs=epochs,
        out=None if out is None else Path(out),
    )
    summary = run_task(
        plan.task,
        plan.backend(),
        plan.out,
        plan.options,
        model_options=plan.model_options.to_json(),
        data_dir=folder_data,
    )
    return EvalResult(plan.out, summary)
