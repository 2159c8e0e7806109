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
from relreason.records import RunSummary, load_records
from relreason.run.options import FLAT_RUN_OPTIONS

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

    def records(self) -> list[dict[str, Any]]:
        """The run's records, by index."""
        return [r for _, r in sorted(load_records(self.folder).items())]

    def to_pandas(self) -> pd.DataFrame:
        """One row per item: the record's fields, labels flattened to ``label_<name>``."""
        import pandas as pd

        rows = []
        for record in self.records():
            row = {k: v for k, v in record.items() if k != "labels"}
            row.update({f"label_{k}": v for k, v in (record.get("labels") or {}).items()})
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

    Keyword ``options`` are the benchmark's parameters (e.g. ``task="re2text", setting=9``),
    run options by their command-line names (``scoring``, ``limit``, ``concurrency``,
    ``requests_per_minute``, ``use_cache``, ...) and backend options (``base_urls``, ``api``,
    ``chat_template``, ...), and ``permute`` (``"cyclic"``, ``"reverse"``, ``"all"`` or a
    number: each item under several option orders). Raises ``UsageError``/``DataError`` like
    the command line.
    """
    from relreason.errors import UsageError
    from relreason.run.plan import plan_run
    from relreason.run.runner import run_task

    bench = benchmarks.get(benchmark)
    permute = options.pop("permute", None)
    fields = set(bench.params_model.model_fields)
    params_values = {k: v for k, v in options.items() if k in fields}
    run_values = {k: v for k, v in options.items() if k in FLAT_RUN_OPTIONS}
    model_values = {k: v for k, v in options.items() if k in ModelOptions.names()}
    unknown = set(options) - set(params_values) - set(run_values) - set(model_values)
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
