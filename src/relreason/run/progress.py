"""Progress of runs and sweeps, fitted to where it is shown.

In a terminal: a live rich bar per run (and an overall bar for a sweep) whose numbers (done/total,
rate, ETA, running accuracy, failures) fit in 80 columns. Elsewhere (a CI log, ``| tee``, a file):
one plain line every few seconds, to standard error: done/total, rate, ETA, accuracy, failures and
retries. Disabled, it only keeps the counts, so the runner calls it the same way either way.
:func:`quiet_library_bars` silences the model libraries' own bars (tqdm, transformers, hub).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Column
from rich.text import Text

from relreason.run.events import Event, ItemFinished, Retrying

PLAIN_INTERVAL_S = 5.0
"""Seconds between two plain progress lines (non-terminal output)."""
NAME_WIDTH = 20
"""The widest run name a live bar shows (longer names are cut with an ellipsis)."""


@dataclass
class RunCounts:
    """Counts of one run so far (``start_done``: items a previous session had finished)."""

    total: int
    done: int = 0
    correct: int = 0
    failed: int = 0
    retries: int = 0
    start_done: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def accuracy(self) -> float:
        """Running accuracy over the finished items (0.0 before any)."""
        return self.correct / self.done if self.done else 0.0

    def rate(self, now: float | None = None) -> float | None:
        """Items finished per second in this session (None before the first)."""
        elapsed = (now if now is not None else time.monotonic()) - self.started
        new = self.done - self.start_done
        return new / elapsed if new > 0 and elapsed > 0 else None

    def eta_s(self, now: float | None = None) -> float | None:
        """Seconds left at the current rate (None when unknown)."""
        rate = self.rate(now)
        return (self.total - self.done) / rate if rate else None

    def fields(self) -> dict[str, Any]:
        """Return the text fields the live display shows."""
        return {"acc": f"{self.accuracy:.3f}", "failed": str(self.failed)}


def format_duration(seconds: float | None) -> str:
    """``1h02m``, ``3m05s``, ``42s``; ``?`` when unknown."""
    if seconds is None:
        return "?"
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def plain_line(
    name: str, counts: RunCounts, now: float | None = None, *, accuracy: bool = True
) -> str:
    """One progress line for a log: done/total, rate, ETA, accuracy, failures, retries."""
    rate = counts.rate(now)
    share = counts.done / counts.total if counts.total else 1.0
    shown_rate = "-" if rate is None else f"{rate:.2f}"
    shown_accuracy = f"acc {counts.accuracy:.3f}, " if accuracy else ""
    return (
        f"{name}: {counts.done}/{counts.total} items ({share:.0%}), {shown_rate}/s, "
        f"ETA {format_duration(counts.eta_s(now))}, {shown_accuracy}"
        f"failed {counts.failed}, retries {counts.retries}"
    )


class _RateColumn(ProgressColumn):
    """Items per second, or a dash before there is a rate."""

    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text(f"{speed:.1f}/s" if speed else "-/s", style="progress.data.speed")


def _fixed(width: int) -> Column:
    return Column(no_wrap=True, min_width=width)


def _live(console: Console | None) -> Progress:
    """A rich display whose columns add up to under 80 characters."""
    return Progress(
        TextColumn(
            "{task.description}",
            table_column=Column(no_wrap=True, max_width=NAME_WIDTH, overflow="ellipsis"),
        ),
        BarColumn(bar_width=10),
        MofNCompleteColumn(table_column=_fixed(9)),
        _RateColumn(table_column=_fixed(7)),
        TimeRemainingColumn(table_column=_fixed(7)),
        TextColumn("acc {task.fields[acc]} failed {task.fields[failed]}", table_column=_fixed(16)),
        console=console,
        transient=False,
        expand=False,
    )


def quiet_library_bars() -> None:
    """Silence the progress bars of tqdm, transformers and huggingface_hub in this process
    (for output that is not a terminal, where their ``\\r`` updates become one long line).

    tqdm and the hub read their variables when imported: call this before loading a model."""
    os.environ["TQDM_DISABLE"] = "1"
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    if "transformers" in sys.modules:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]


class _PlainTicker:
    """Asks its owner for plain lines every ``interval`` seconds, from a daemon thread."""

    def __init__(self, owner: RunProgress, stream: TextIO, interval: float) -> None:
        self.owner = owner
        self.stream = stream
        self.interval = interval
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="relreason-progress", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stopped.wait(self.interval):
            self.owner.write_plain()

    def stop(self) -> None:
        """Stop the thread (waits for it at most a second)."""
        self.stopped.set()
        self.thread.join(timeout=1.0)


class RunProgress:
    """Progress of one or more runs (and optionally an overall sweep bar).

    ``enabled=False`` draws nothing. ``live`` chooses the rich bar (default: when ``console``
    writes to a terminal) or plain lines to ``stream`` (default standard error) every
    ``interval`` seconds. Use as a context manager or call :meth:`close`.
    """

    def __init__(
        self,
        *,
        enabled: bool,
        console: Console | None = None,
        overall: int | None = None,
        live: bool | None = None,
        stream: TextIO | None = None,
        interval: float = PLAIN_INTERVAL_S,
    ) -> None:
        self.enabled = enabled
        self._progress: Progress | None = None
        self._overall: TaskID | None = None
        self._runs: dict[TaskID | int, RunCounts] = {}
        self._names: dict[TaskID | int, str] = {}
        self._next_id = 0
        self._lock = threading.Lock()
        self._ticker: _PlainTicker | None = None
        self._sweep: RunCounts | None = None  # a sweep's overall counts (plain output)
        if not enabled:
            return
        if live is None:
            live = (console or Console()).is_terminal
        if live:
            self._progress = _live(console)
            self._progress.start()
            if overall is not None:
                self._overall = self._progress.add_task(
                    "all runs", total=overall, acc="-", failed="0"
                )
        else:
            if overall is not None:
                self._sweep = RunCounts(total=overall)
            self._ticker = _PlainTicker(self, stream or sys.stderr, interval)

    def start_run(
        self, name: str, total: int, *, done: int = 0, correct: int = 0, failed: int = 0
    ) -> TaskID | int:
        """Add one run's bar (with the items a previous session already finished); return its id."""
        counts = RunCounts(total=total, done=done, correct=correct, failed=failed, start_done=done)
        if self._progress is None:
            run_id: TaskID | int = self._next_id
            self._next_id += 1
        else:
            run_id = self._progress.add_task(name, total=total, completed=done, **counts.fields())
        with self._lock:
            self._runs[run_id] = counts
            self._names[run_id] = name
        return run_id

    def advance(self, run_id: TaskID | int, *, correct: bool, failed: bool) -> None:
        """Count one finished item of run ``run_id`` (plain output: a run's last line at once)."""
        with self._lock:
            counts = self._runs[run_id]
            counts.done += 1
            counts.correct += correct
            counts.failed += failed
            if self._sweep is not None:
                self._sweep.done += 1
                self._sweep.correct += correct
                self._sweep.failed += failed
        if self._progress is not None:
            self._progress.update(TaskID(int(run_id)), advance=1, **counts.fields())
            if self._overall is not None:
                self._progress.update(self._overall, advance=1)
        elif self._ticker is not None and counts.done == counts.total:
            self._write([plain_line(self._names[run_id], counts)])

    def retried(self, run_id: TaskID | int) -> None:
        """Count one retry of a call of run ``run_id``."""
        with self._lock:
            self._runs[run_id].retries += 1
            if self._sweep is not None:
                self._sweep.retries += 1

    def event(self, run_id: TaskID | int, event: Event) -> None:
        """Take one event of run ``run_id`` (see :mod:`relreason.run.events`)."""
        if isinstance(event, ItemFinished):
            self.advance(run_id, correct=event.correct, failed=event.status == "failed")
        elif isinstance(event, Retrying):
            self.retried(run_id)

    def add_overall(self, amount: int) -> None:
        """Advance the overall bar by ``amount`` items finished earlier (skipped runs)."""
        if self._progress is not None and self._overall is not None:
            self._progress.update(self._overall, advance=amount)
        if self._sweep is not None:
            with self._lock:
                self._sweep.done += amount
                self._sweep.start_done += amount  # finished earlier: not part of the rate

    def counts(self, run_id: TaskID | int) -> RunCounts:
        """Return the counts of run ``run_id``."""
        return self._runs[run_id]

    def write_plain(self) -> None:
        """Write the plain line of every unfinished run (nothing when the bar is live)."""
        now = time.monotonic()
        with self._lock:
            lines = [
                plain_line(self._names[run_id], counts, now)
                for run_id, counts in self._runs.items()
                if counts.done < counts.total
            ]
            if self._sweep is not None and lines:
                # runs finished in earlier sessions count as done, their answers unknown here
                lines.append(plain_line("all runs", self._sweep, now, accuracy=False))
        self._write(lines)

    def _write(self, lines: list[str]) -> None:
        if self._ticker is not None and lines:
            self._ticker.stream.write("".join(line + "\n" for line in lines))
            self._ticker.stream.flush()

    def close(self) -> None:
        """Stop drawing (idempotent). Plain output ends with the line of each run left
        unfinished (a finished run wrote its last line when it finished)."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        if self._ticker is not None:
            self._ticker.stop()
            self.write_plain()
            self._ticker = None

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
