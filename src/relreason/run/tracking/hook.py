"""The one hook: a finished run logs its folder to the tracker ``--log-to`` names, inside a
sweep under the sweep's parent (MLflow) or group (W&B). Failing to log warns and goes on."""

from __future__ import annotations

import contextlib
from collections.abc import Coroutine, Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

from relreason.run.tracking.target import parse_target
from relreason.run.warnings import warn

T = TypeVar("T")
_SWEEP: ContextVar[str | None] = ContextVar("relreason_sweep", default=None)
"""The sweep whose cells are running (its ``out`` folder), set by :func:`sweep_tracking`."""


@contextlib.contextmanager
def sweep_tracking(out: Path) -> Iterator[None]:
    """Runs finished inside are logged as cells of the sweep whose folder is ``out``."""
    token = _SWEEP.set(str(Path(out).resolve()))
    try:
        yield
    finally:
        _SWEEP.reset(token)


async def in_sweep(out: Path, coroutine: Coroutine[Any, Any, T]) -> T:
    """Await ``coroutine`` (a local sweep) inside :func:`sweep_tracking` of ``out``."""
    with sweep_tracking(out):
        return await coroutine


def log_run(out_dir: Path, log_to: str | None, sweep: str | None = None) -> bool:
    """Log the finished run in ``out_dir`` to ``log_to`` (nothing when None), as a cell of
    ``sweep`` or of the sweep :func:`sweep_tracking` set; return whether it was logged. Never
    raises: a failure is a warning naming the folder and the tracker's reason."""
    if log_to is None:
        return False
    sweep = sweep or _SWEEP.get()
    try:
        from relreason.run.tracking.logged import read_logged

        target = parse_target(log_to)
        logged = read_logged(Path(out_dir))
        if target.kind == "mlflow":
            from relreason.run.tracking.mlflow_store import log_mlflow

            log_mlflow(logged, target.where, sweep)
        else:
            from relreason.run.tracking.wandb_store import log_wandb

            log_wandb(logged, target.where, sweep)
    except Exception as error:  # a tracker's fault never loses the run
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        warn(f"could not log {out_dir} to {log_to}: {reason} (the run itself is kept)")
        return False
    return True


def log_folders(
    folders: Iterable[Path], log_to: str | None, sweep: Path, *, since: str = ""
) -> int:
    """Log each finished run of ``folders`` whose last session began at ``since`` (a
    manifest's UTC time) or later as a cell of the sweep ``sweep`` (its ``out`` folder);
    return how many were logged. A Ray sweep's driver logs the cells it ran so, once their
    folders are written back."""
    from relreason.records import SUMMARY, is_run_folder, load_manifest

    if log_to is None:
        return 0
    name = str(Path(sweep).resolve())
    logged = 0
    for folder in folders:
        if not is_run_folder(folder) or not (folder / SUMMARY).is_file():
            continue
        sessions = load_manifest(folder).sessions
        if sessions and sessions[-1].started_at >= since:
            logged += log_run(folder, log_to, name)
    return logged
