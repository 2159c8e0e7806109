"""The counts of a run's progress and the plain line that shows them (at most 80 columns):
done/total, items/s, tokens/s, ETA, accuracy, failures and retries. See ``progress``."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

from relreason.errors import UsageError
from relreason.run.events import Event, ItemFinished, Retrying, Working

PLAIN_INTERVAL_S = 5.0
"""Seconds between two plain progress lines (non-terminal output), unless set by
``RELREASON_PROGRESS_INTERVAL``."""
INTERVAL_ENV = "RELREASON_PROGRESS_INTERVAL"
LINE_WIDTH = 80
"""The widest plain progress line."""
MIN_NAME = 12
"""The fewest characters of a run's name a plain line keeps."""


@dataclass
class RunCounts:
    """Counts of one run so far (``start_done``: items a previous session had finished).

    ``computed`` counts requests a local model reported finished within a batch or a
    prefix-tree pass (``Working`` events) and ``fresh`` the items recorded without the cache:
    :attr:`shown` adds the computed items not recorded yet, so progress moves inside a batch.
    ``tokens`` counts tokens run by the model (or, for backends that do not report work, the
    tokens of the records).
    """

    total: int
    done: int = 0
    correct: int = 0
    failed: int = 0
    retries: int = 0
    start_done: int = 0
    started: float = field(default_factory=time.monotonic)
    computed: int = 0
    fresh: int = 0
    tokens: int = 0
    reports_work: bool = False

    @property
    def accuracy(self) -> float | None:
        """Running accuracy over the finished items (None before any)."""
        return self.correct / self.done if self.done else None

    @property
    def accuracy_text(self) -> str:
        """The running accuracy to three places, ``-`` before any item is finished."""
        return "-" if self.accuracy is None else f"{self.accuracy:.3f}"

    @property
    def finished(self) -> bool:
        """Whether every item has its record."""
        return self.done == self.total

    @property
    def shown(self) -> int:
        """Items finished or computed (recorded soon), at most ``total``."""
        ahead = max(0, self.computed - self.fresh)
        return min(self.total, self.done + ahead) if self.total else self.done + ahead

    def take(self, event: Event) -> None:
        """Count one event (see :mod:`relreason.run.events`)."""
        if isinstance(event, ItemFinished):
            self.done += 1
            self.correct += event.correct
            self.failed += event.status == "failed"
            if not event.cached:
                self.fresh += 1
                if not self.reports_work:
                    self.tokens += event.tokens
        elif isinstance(event, Working):
            if not self.reports_work:  # from now on the model's own count of tokens
                self.reports_work, self.tokens = True, 0
            self.computed += event.requests
            self.tokens += event.tokens
        elif isinstance(event, Retrying):
            self.retries += 1

    def _elapsed(self, now: float | None) -> float:
        return (now if now is not None else time.monotonic()) - self.started

    def rate(self, now: float | None = None) -> float | None:
        """Items finished per second in this session (None before the first)."""
        elapsed = self._elapsed(now)
        new = self.shown - self.start_done
        return new / elapsed if new > 0 and elapsed > 0 else None

    def token_rate(self, now: float | None = None) -> float | None:
        """Tokens run per second in this session (None before any)."""
        elapsed = self._elapsed(now)
        return self.tokens / elapsed if self.tokens > 0 and elapsed > 0 else None

    def eta_s(self, now: float | None = None) -> float | None:
        """Seconds left at the current rate (None when unknown)."""
        rate = self.rate(now)
        return (self.total - self.shown) / rate if rate else None

    def fields(self, now: float | None = None) -> dict[str, Any]:
        """Return the text fields the live display shows."""
        return {
            "acc": self.accuracy_text,
            "failed": str(self.failed),
            "tok": format_rate(self.token_rate(now)),
        }


def plain_interval() -> float:
    """Seconds between plain lines: ``$RELREASON_PROGRESS_INTERVAL`` or :data:`PLAIN_INTERVAL_S`.

    Raises ``UsageError`` naming the variable when it is not a positive number."""
    raw = os.environ.get(INTERVAL_ENV, "").strip()
    if not raw:
        return PLAIN_INTERVAL_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise UsageError(f"{INTERVAL_ENV} must be a positive number of seconds, got {raw!r}")
    return value


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


def format_rate(rate: float | None) -> str:
    """A rate in at most 5 characters: ``0.52``, ``12.3``, ``456``, ``12.3k``; ``-`` if none."""
    if rate is None:
        return "-"
    if rate < 10:
        return f"{rate:.2f}"
    if rate < 100:
        return f"{rate:.1f}"
    if rate < 10_000:
        return f"{rate:.0f}"
    return f"{rate / 1000:.1f}k" if rate < 100_000 else f"{rate / 1000:.0f}k"


def cut_middle(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters by an ellipsis in its middle (the start names the
    run, the end the model)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return text[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return text[:head] + "…" + (text[-tail:] if tail else "")


def plain_line(
    name: str,
    counts: RunCounts,
    now: float | None = None,
    *,
    accuracy: bool = True,
    width: int = LINE_WIDTH,
) -> str:
    """One progress line for a log, at most ``width`` characters: done/total, items/s,
    tokens/s, ETA, accuracy, failures and retries (when any). The name is cut in its middle
    to fit; when that is not enough the token rate, the accuracy, the ETA and the retries are
    left out, in that order."""
    shown = counts.shown
    share = shown / counts.total if counts.total else 1.0
    parts = [
        f"{shown}/{counts.total} ({share:.0%})",
        f"{format_rate(counts.rate(now))}/s",
        f"{format_rate(counts.token_rate(now))} tok/s",
        f"ETA {format_duration(counts.eta_s(now))}",
        f"acc {counts.accuracy_text}" if accuracy else "",
        f"failed {counts.failed}",
        f"retries {counts.retries}" if counts.retries else "",
    ]
    for drop in (None, 2, 4, 3, 6):  # tokens/s, accuracy, ETA, retries
        if drop is not None:
            parts[drop] = ""
        stats = " ".join(p for p in parts if p)
        room = width - len(stats) - 2
        if room >= MIN_NAME:
            break
    return f"{cut_middle(name, max(room, MIN_NAME))}: {stats}"
