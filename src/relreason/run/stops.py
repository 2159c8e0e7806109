"""How a run that cannot go on ends, and the checks made before a run starts: the exact
resume command, the error a stopped run raises (naming what was kept), token limits that could
never be met, and records that do not belong to the task."""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from relreason.errors import (
    DataError,
    InterruptedRunError,
    RelreasonError,
    ServerUnreachableError,
    UsageError,
)
from relreason.records import RECORDS, RunSummary
from relreason.run.budget import BudgetReachedError
from relreason.run.options import RunOptions
from relreason.types import Task as EvalTask


def resume_command(out_dir: Path, data_dir: Path | None = None) -> str:
    """The exact command that continues the run in ``out_dir``."""
    command = f"relreason run --resume {shlex.quote(str(out_dir))}"
    if data_dir is not None:
        command += f" --data-dir {shlex.quote(str(data_dir))}"
    return command


def check_indices(records: Mapping[int, Any], task: EvalTask, out_dir: Path) -> None:
    """Raise ``DataError`` when a record's index is not one of the task's items."""
    known = {item.index for item in task.items}
    foreign = sorted(i for i in records if i not in known)
    if foreign:
        shown = ", ".join(str(i)[:20] for i in foreign[:5])
        raise DataError(
            str(out_dir / RECORDS),
            f"{len(foreign)} record(s) have an index that is not in task {task.name} "
            f"({shown}); the folder does not belong to this task",
            field="index",
        )


def check_limits(task: EvalTask, options: RunOptions) -> None:
    """Refuse a token limit under which the largest prompt could not be sent within
    ``max_wait`` (``UsageError`` before any folder is written)."""
    tpm = options.tokens_per_minute
    if tpm is None or not task.items:
        return
    largest = max(math.ceil(len(item.prompt) / 4) for item in task.items)
    if largest / tpm * 60 > options.max_wait:
        raise UsageError(
            f"--tpm {tpm:g} is too low: the largest prompt (~{largest} tokens) would wait "
            f"{largest / tpm * 60:.0f} s, over the {options.max_wait:g} s cap (--max-wait); "
            f"use at least --tpm {math.ceil(largest * 60 / options.max_wait)}"
        )


def stopped_error(
    stop: BaseException, summary: RunSummary, out_dir: Path, data_dir: Path | None, n: int
) -> RelreasonError:
    """The error a run stopped by ``stop`` raises: what was kept and how to continue."""
    kept = f"{summary.answered} of {n} item(s) answered are kept in {out_dir}"
    again = f"continue with: {resume_command(out_dir, data_dir)}"
    if isinstance(stop, ServerUnreachableError):
        return ServerUnreachableError(f"{stop}\n{kept}; {again}")
    if isinstance(stop, BudgetReachedError):
        return BudgetReachedError(f"{stop}: {kept}\n{again}")
    if isinstance(stop, OSError):
        reason = stop.strerror or str(stop)
        where = f" {stop.filename}" if stop.filename else ""
        return UsageError(f"cannot write{where}: {reason}\n{kept}; free space, then {again}")
    return InterruptedRunError(f"interrupted: {kept}\n{again}")
