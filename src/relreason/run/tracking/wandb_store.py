"""A run logged to Weights & Biases: offline unless ``WANDB_MODE`` says otherwise (``wandb
sync`` uploads it later), one W&B run per run folder, a sweep's cells in one group (the
sweep's ``out`` folder), the run folder's files as one artefact."""

from __future__ import annotations

import os
import re

from relreason.run.tracking.logged import Logged


def log_wandb(logged: Logged, project: str, sweep: str | None = None) -> str:
    """Log ``logged`` as one W&B run in ``project`` (in the group ``sweep`` when given); return
    the W&B run id."""
    import wandb

    run = wandb.init(
        project=project,
        name=logged.name,
        group=sweep,
        job_type="relreason-run",
        config=logged.params,
        tags=[logged.params.get("benchmark", "relreason")],
        mode=os.environ.get("WANDB_MODE") or "offline",  # type: ignore[arg-type]
        settings=wandb.Settings(silent=True),
    )
    try:
        run.log(logged.metrics)
        run.summary.update({**logged.metrics, **logged.tags})
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", logged.name).strip("-") or "run"
        artifact = wandb.Artifact(name, type="relreason-run")
        for path in logged.files:
            artifact.add_file(str(path))
        run.log_artifact(artifact)
    finally:
        run.finish()
    return str(run.id)
