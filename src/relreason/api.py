"""The Python API for notebooks: ``evaluate`` a model on a benchmark, ``load_runs`` a folder.

``evaluate`` uses the command line's defaults (bundled SmolLM2, the setting's own generation
length, the response cache) and works inside Jupyter, whose event loop is already running: the
run then goes on in a worker thread with a loop of its own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relreason import benchmarks
from relreason.benchmarks.registry import build_recorded
from relreason.models.options import ModelOptions
from relreason.models.registry import DEFAULT_MODEL, load_backend
from relreason.records import RunSummary, load_records
from relreason.run.options import FLAT_RUN_OPTIONS, run_options_from

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
    bench = benchmarks.get(benchmark)
    permute = options.pop("permute", None)
    fields = set(bench.params_model.model_fields)
    params_values = {k: v for k, v in options.items() if k in fields}
    run_values = {k: v for k, v in options.items() if k in FLAT_RUN_OPTIONS}
    model_values = {k: v for k, v in options.items() if k in ModelOptions.names()}
    unknown = set(options) - set(params_values) - set(run_values) - set(model_values)
    if unknown:
        from relreason.errors import UsageError

        raise UsageError(f"unknown option(s) for evaluate: {', '.join(sorted(unknown))}")
    folder_data = None if data_dir is None else Path(data_dir)
    params = bench.for_model(bench.params(**params_values), model, model_values.get("api", "chat"))
    task = build_recorded(bench, params, folder_data)
    if permute is not None:
        from relreason.benchmarks.registry import permuted

        task = permuted(task, str(permute))
    run_options = run_options_from(run_values, task)
    model_options = ModelOptions.from_json(model_values)
    if out is None:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in f"{task.name}-{model}")
        out = Path("runs") / f"{safe}-{stamp}"

    async def run() -> RunSummary:
        from relreason.run.runner import arun_task

        backend = load_backend(model, model_options)
        try:
            return await arun_task(
                task,
                backend,
                Path(out),
                run_options,
                model_options=model_options.to_json(),
                data_dir=folder_data,
            )
        finally:
            await backend.aclose()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        summary = asyncio.run(run())
    else:  # inside Jupyter: a loop is running in this thread
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            summary = pool.submit(asyncio.run, run()).result()
    return EvalResult(Path(out), summary)
