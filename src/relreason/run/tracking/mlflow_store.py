"""A run logged to MLflow through its own client: one MLflow run per run folder, in the
experiment ``$MLFLOW_EXPERIMENT_NAME`` (default ``relreason``); a sweep's cells are nested under
one parent run per sweep (found again by its tag, so a sweep run twice keeps one parent)."""

from __future__ import annotations

import os
import time
from typing import Any

from relreason.run.tracking.logged import Logged
from relreason.run.tracking.target import MLFLOW_EXPERIMENT

SWEEP_TAG = "relreason.sweep"
"""The tag naming the sweep (its ``out`` folder) on the parent run and on each cell's run."""


def _client(uri: str) -> Any:
    if uri.startswith("file:") or "://" not in uri:
        # MLflow keeps its file store in maintenance mode, refused unless asked for: naming
        # a ``file:`` URI is asking for it
        os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri=uri)


def _experiment(client: Any) -> str:
    name = os.environ.get("MLFLOW_EXPERIMENT_NAME") or MLFLOW_EXPERIMENT
    found = client.get_experiment_by_name(name)
    return str(found.experiment_id) if found is not None else str(client.create_experiment(name))


def _quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _parent(client: Any, experiment: str, sweep: str) -> str:
    """The parent run of the sweep ``sweep``: the one tagged with it, else a new one."""
    query = f"tags.`{SWEEP_TAG}` = {_quoted(sweep)} and tags.`relreason.kind` = 'sweep'"
    found = client.search_runs([experiment], filter_string=query, max_results=1)
    if found:
        return str(found[0].info.run_id)
    tags = {SWEEP_TAG: sweep, "relreason.kind": "sweep"}
    run = client.create_run(experiment, run_name=f"sweep {sweep}", tags=tags)
    client.set_terminated(run.info.run_id)
    return str(run.info.run_id)


def log_mlflow(logged: Logged, uri: str, sweep: str | None = None) -> str:
    """Log ``logged`` as one MLflow run at the tracking URI ``uri`` (under the parent run of
    ``sweep`` when given); return the MLflow run id."""
    from mlflow.entities import Metric, Param

    client = _client(uri)
    experiment = _experiment(client)
    tags = {**logged.tags, "relreason.kind": "run"}
    if sweep is not None:
        tags[SWEEP_TAG] = sweep
        tags["mlflow.parentRunId"] = _parent(client, experiment, sweep)
    run = client.create_run(experiment, run_name=logged.name, tags=tags)
    run_id = str(run.info.run_id)
    stamp = int(time.time() * 1000)
    try:
        client.log_batch(
            run_id,
            metrics=[Metric(k, v, stamp, 0) for k, v in logged.metrics.items()],
            params=[Param(k, v) for k, v in logged.params.items()],
        )
        for path in logged.files:
            client.log_artifact(run_id, str(path))
    except Exception:
        client.set_terminated(run_id, status="FAILED")
        raise
    client.set_terminated(run_id)
    return run_id
