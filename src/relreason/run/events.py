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
    tokens: int = 0
    """Prompt and completion tokens of the item's record (0 when cached or unknown)."""


@dataclass(frozen=True)
class Retrying:
    """A call failed transiently and will be retried after ``wait_s`` seconds."""

    attempt: int
    wait_s: float
    reason: str


@dataclass(frozen=True)
class Working:
    """A local model finished computing ``requests`` requests (their records follow soon) and
    ran ``tokens`` tokens through the model since its last report: progress within a batch or a
    prefix-tree pass, before any item of it is recorded."""

    requests: int
    tokens: int


Event = ItemFinished | Retrying | Working
