"""A rich progress display for runs and sweeps: items, rate, ETA, running accuracy, failures.

One :class:`RunProgress` can show one run or a whole sweep (an overall bar plus one bar per run).
Disabled, it only keeps the counts, so the runner calls it the same way either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


@dataclass
class RunCounts:
    """Counts of one run so far."""

    total: int
    done: int = 0
    correct: int = 0
    failed: int = 0

    @property
    def accuracy(self) -> float:
        """Running accuracy over the finished items (0.0 before any)."""
        return self.correct / self.done if self.done else 0.0

    def fields(self) -> dict[str, Any]:
        """Return the text fields the display shows."""
        return {"acc": f"{self.accuracy:.3f}", "failed": str(self.failed)}


class _RateColumn(ProgressColumn):
    """Items per second, or a dash before there is a rate."""

    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text(f"{speed:.1f}/s" if speed else "-/s", style="progress.data.speed")


class RunProgress:
    """Progress of one or more runs (and optionally an overall sweep bar).

    ``enabled=False`` draws nothing. Use as a context manager or call :meth:`close`.
    """

    def __init__(
        self, *, enabled: bool, console: Console | None = None, overall: int | None = None
    ) -> None:
        self.enabled = enabled
        self._progress: Progress | None = None
        self._overall: TaskID | None = None
        self._runs: dict[TaskID | int, RunCounts] = {}
        self._next_id = 0
        if enabled:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                _RateColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                TextColumn("acc {task.fields[acc]} failed {task.fields[failed]}"),
                console=console,
                transient=False,
            )
            self._progress.start()
            if overall is not None:
                self._overall = self._progress.add_task(
                    "all runs", total=overall, acc="-", failed="0"
                )

    def start_run(
        self, name: str, total: int, *, done: int = 0, correct: int = 0, failed: int = 0
    ) -> TaskID | int:
        """Add one run's bar (with the items a previous session already finished); return its id."""
        counts = RunCounts(total=total, done=done, correct=correct, failed=failed)
        if self._progress is None:
            run_id: TaskID | int = self._next_id
            self._next_id += 1
        else:
            run_id = self._progress.add_task(name, total=total, completed=done, **counts.fields())
        self._runs[run_id] = counts
        return run_id

    def advance(self, run_id: TaskID | int, *, correct: bool, failed: bool) -> None:
        """Count one finished item of run ``run_id``."""
        counts = self._runs[run_id]
        counts.done += 1
        counts.correct += correct
        counts.failed += failed
        if self._progress is not None:
            self._progress.update(TaskID(int(run_id)), advance=1, **counts.fields())
            if self._overall is not None:
                self._progress.update(self._overall, advance=1)

    def add_overall(self, amount: int) -> None:
        """Advance the overall bar by ``amount`` items finished earlier (skipped runs)."""
        if self._progress is not None and self._overall is not None:
            self._progress.update(self._overall, advance=amount)

    def counts(self, run_id: TaskID | int) -> RunCounts:
        """Return the counts of run ``run_id``."""
        return self._runs[run_id]

    def close(self) -> None:
        """Stop drawing (idempotent)."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
