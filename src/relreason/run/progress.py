"""Progress of runs and sweeps, fitted to where it is shown.

In a terminal: a live rich bar per run (and an overall bar for a sweep) whose numbers (done/total,
items/s, tokens/s, ETA, running accuracy, failures) fit in 80 columns. Elsewhere (a CI log,
``| tee``, a file): a line when a run starts and then one every few seconds, to standard error,
never over 80 columns: done/total, items/s, tokens/s, ETA, accuracy, failures and retries. A local
model's ``Working`` events move the count within a batch or a prefix-tree pass, before its
records are written. :func:`loading` says at once that a local model is loading.
Disabled, it only keeps the counts, so the runner calls it the same way either way.
:func:`quiet_library_bars` silences the model libraries' own bars (tqdm, transformers, hub)."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import TextIO

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

from relreason.run.counts import (
    LINE_WIDTH,
    PLAIN_INTERVAL_S,
    RunCounts,
    cut_middle,
    format_duration,
    format_rate,
    plain_interval,
    plain_line,
)
from relreason.run.events import Event, ItemFinished, Working

NAME_WIDTH = 16
"""The widest run name a live bar shows (longer names are cut with an ellipsis)."""


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
        TextColumn("{task.fields[tok]}t/s", table_column=_fixed(8)),
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
    ``interval`` seconds (default :func:`plain_interval`). Use as a context manager or call
    :meth:`close`.
    """

    def __init__(
        self,
        *,
        enabled: bool,
        console: Console | None = None,
        overall: int | None = None,
        live: bool | None = None,
        stream: TextIO | None = None,
        interval: float | None = None,
    ) -> None:
        self.enabled = enabled
        self._progress: Progress | None = None
        self._overall: TaskID | None = None
        self._runs: dict[TaskID | int, RunCounts] = {}
        self._names: dict[TaskID | int, str] = {}
        self._next_id = 0
        self._lock = threading.Lock()
        self._ticker: _PlainTicker | None = None
        self._sweep = overall is not None
        self._overall_counts = RunCounts(total=overall or 0)  # a sweep's, over all its runs
        if not enabled:
            return
        if live is None:
            live = (console or Console()).is_terminal
        if live:
            self._progress = _live(console)
            self._progress.start()
            if overall is not None:
                self._overall = self._progress.add_task(
                    "all runs", total=overall, acc="-", failed="0", tok="-"
                )
        else:
            every = plain_interval() if interval is None else interval
            self._ticker = _PlainTicker(self, stream or sys.stderr, every)

    def start_run(
        self, name: str, total: int, *, done: int = 0, correct: int = 0, failed: int = 0
    ) -> TaskID | int:
        """Add one run's bar (with the items a previous session already finished); return its
        id. Plain output writes the run's first line at once."""
        counts = RunCounts(total=total, done=done, correct=correct, failed=failed, start_done=done)
        if self._progress is None:
            run_id: TaskID | int = self._next_id
            self._next_id += 1
        else:
            run_id = self._progress.add_task(name, total=total, completed=done, **counts.fields())
        with self._lock:
            self._runs[run_id] = counts
            self._names[run_id] = name
            self._overall_counts.done += done  # finished in an earlier session
            self._overall_counts.start_done += done
        if self._ticker is not None:
            self._write([plain_line(name, counts)])
        return run_id

    def event(self, run_id: TaskID | int, event: Event) -> None:
        """Take one event of run ``run_id`` (see :mod:`relreason.run.events`)."""
        with self._lock:
            counts = self._runs[run_id]
            before = counts.shown
            counts.take(event)
            self._overall_counts.take(event)
            moved = counts.shown != before or isinstance(event, Working)
        if self._progress is not None:
            if moved:
                self._progress.update(
                    TaskID(int(run_id)), completed=counts.shown, **counts.fields()
                )
                if self._overall is not None:
                    self._progress.update(self._overall, completed=self._overall_counts.shown)
        elif self._ticker is not None and isinstance(event, ItemFinished) and counts.finished:
            self._write([plain_line(self._names[run_id], counts)])

    def add_overall(self, amount: int) -> None:
        """Advance the overall bar by ``amount`` items finished earlier (skipped runs)."""
        with self._lock:
            self._overall_counts.done += amount
            self._overall_counts.start_done += amount  # finished earlier: not part of the rate
        if self._progress is not None and self._overall is not None:
            self._progress.update(self._overall, completed=self._overall_counts.shown)

    def drop_run(self, run_id: TaskID | int) -> None:
        """Forget run ``run_id`` and what it added to the overall counts (a run begun again
        elsewhere: a Ray sweep's cell whose worker died)."""
        with self._lock:
            counts = self._runs.pop(run_id)
            self._names.pop(run_id)
            overall = self._overall_counts
            overall.done -= counts.done
            overall.start_done -= counts.start_done
            overall.correct -= counts.correct
            overall.failed -= counts.failed
            overall.computed -= counts.computed
            overall.fresh -= counts.fresh
        if self._progress is not None:
            self._progress.remove_task(TaskID(int(run_id)))
            if self._overall is not None:
                self._progress.update(self._overall, completed=overall.shown)

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
            if self._sweep and lines:
                # runs finished in earlier sessions count as done, their answers unknown here
                lines.append(plain_line("all runs", self._overall_counts, now, accuracy=False))
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


def loading_line(spec: str) -> str | None:
    """What to say while the backend of ``spec`` loads: None for backends that load at once
    (APIs, baselines); the bundled model says when this load converts it first."""
    from relreason.models.registry import backend_info

    info = backend_info(spec)
    if info is None or not info.free or info.extra is None:
        return None
    if info.kind == "smollm2":
        from relreason.models.smollm2 import is_converted

        if not is_converted():
            return "loading SmolLM2-135M-Instruct (the first run converts it: 517 MB) ..."
        return "loading SmolLM2-135M-Instruct ..."
    return cut_middle(f"loading {spec} ...", LINE_WIDTH)


@contextlib.contextmanager
def loading(spec: str, *, enabled: bool, stream: TextIO | None = None) -> Iterator[None]:
    """Around a backend's load: say so at once (to standard error) and, after, how long it
    took; silent when not ``enabled`` or for a backend that loads at once."""
    line = loading_line(spec) if enabled else None
    out = stream or sys.stderr
    if line is not None:
        out.write(line + "\n")
        out.flush()
    started = time.monotonic()
    yield
    if line is not None:
        out.write(cut_middle(f"loaded {spec} in {time.monotonic() - started:.1f} s", LINE_WIDTH))
        out.write("\n")
        out.flush()


__all__ = [
    "LINE_WIDTH",
    "PLAIN_INTERVAL_S",
    "RunCounts",
    "RunProgress",
    "cut_middle",
    "format_duration",
    "format_rate",
    "loading",
    "loading_line",
    "plain_interval",
    "plain_line",
    "quiet_library_bars",
]
