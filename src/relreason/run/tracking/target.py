"""Where ``--log-to`` sends a run: ``mlflow``, ``mlflow:URI``, ``wandb`` or ``wandb:PROJECT``."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from relreason.errors import UsageError

FORMS = "mlflow | mlflow:URI | wandb | wandb:PROJECT"
"""The forms ``--log-to`` takes."""
MLFLOW_EXPERIMENT = "relreason"
"""The MLflow experiment runs go to unless ``MLFLOW_EXPERIMENT_NAME`` names another."""
WANDB_PROJECT = "relreason"
"""The W&B project runs go to unless ``wandb:PROJECT`` or ``WANDB_PROJECT`` names another."""


@dataclass(frozen=True)
class Target:
    """A tracker and where in it: an MLflow tracking URI, or a W&B project."""

    kind: Literal["mlflow", "wandb"]
    where: str


def parse_target(text: str) -> Target:
    """The target ``text`` names (``UsageError`` for another form). ``mlflow`` alone is
    ``$MLFLOW_TRACKING_URI``, else the local store ``file:./mlruns``; ``wandb`` alone is
    ``$WANDB_PROJECT``, else ``relreason``."""
    kind, _, where = text.strip().partition(":")
    if kind == "mlflow":
        uri = where or os.environ.get("MLFLOW_TRACKING_URI") or (Path.cwd() / "mlruns").as_uri()
        return Target("mlflow", uri)
    if kind == "wandb":
        return Target("wandb", where or os.environ.get("WANDB_PROJECT") or WANDB_PROJECT)
    raise UsageError(f"option log_to must be one of {FORMS}, got {text!r}")


def check_target(text: str) -> Target:
    """:func:`parse_target`, and its tracker installed (``UsageError`` with the install hint
    of its extra otherwise), so a run is refused before it starts rather than after."""
    from relreason.install import extra_hint

    target = parse_target(text)
    if importlib.util.find_spec(target.kind) is None:
        raise UsageError(
            f"--log-to {target.kind} needs the '{target.kind}' extra: {extra_hint(target.kind)}"
        )
    return target
