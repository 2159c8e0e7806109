"""What a run reports as it goes: events, fed to the progress display (or any listener)."""

from __future__ import annotations

from dataclasses import dataclass

from relreason.types import Status


@dataclass(frozen=True)
class ItemFinished:
    """An item got its record."""

    index: int
    status: Status
    correct: bool
    cached: bool


@dataclass(frozen=True)
class Retrying:
    """A call failed transiently and will be retried after ``wait_s`` seconds."""

    attempt: int
    wait_s: float
    reason: str


Event = ItemFinished | Retrying
