"""Logging finished runs to an experiment tracker (``--log-to``): MLflow or W&B.

The option is one run setting (``RunSettings.log_to``): recorded in the manifest's options, not
in the run's fingerprint (logging changes no result). A run logs itself when it finishes
(:func:`log_run`, called by the runner); a sweep's cells are logged under one parent per sweep
(:func:`sweep_tracking`). What is logged is read from the run folder (:mod:`.logged`), so a
folder can be logged anywhere it lies. A failure to log warns and never loses the run.
"""

from __future__ import annotations

from relreason.run.tracking.hook import in_sweep, log_folders, log_run, sweep_tracking
from relreason.run.tracking.target import Target, check_target, parse_target

__all__ = [
    "Target",
    "check_target",
    "in_sweep",
    "log_folders",
    "log_run",
    "parse_target",
    "sweep_tracking",
]
