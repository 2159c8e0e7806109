"""A run's manifest: the typed value behind ``manifest.json``.

It records what was run (benchmark, task description, model and its options, run options,
seeds), with what (relreason version, git commit, Python, platform, data checksums), when
(sessions), how it went (status, tokens, cost), and ``config``: what makes two runs the same
run. ``Manifest.load`` reads folders of any format version (version 1 had no
``format_version``); unknown fields are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from relreason.errors import DataError
from relreason.records.record import FORMAT_VERSION
from relreason.redact import scrub_json

RunStatus = Literal["running", "complete", "interrupted", "failed"]


def utc_now() -> str:
    """Return the current UTC time as ISO 8601 text, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


class Session(BaseModel):
    """One process's stretch of work on the run."""

    model_config = ConfigDict(extra="allow")
    started_at: str
    ended_at: str | None = None
    stopped: str | None = None
    """Why the session stopped before the run was complete, when a limit stopped it (a
    budget: ``--max-cost``, ``--max-tokens-total``)."""


class ModelPart(BaseModel):
    """The model a run used: its ``spec``, what its ``backend`` says of itself, and the
    ``options`` it was built with (secrets stripped; a sweep's ``size`` among them)."""

    model_config = ConfigDict(extra="allow")
    spec: str
    backend: dict[str, Any] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)


class Manifest(BaseModel):
    """The manifest of a run folder (see the module docstring)."""

    model_config = ConfigDict(extra="allow")

    kind: Literal["relreason-run"] = "relreason-run"
    format_version: int = 1
    relreason_version: str | None = None
    git_commit: str | None = None
    python: str | None = None
    platform: str | None = None
    benchmark: str
    task: str
    description: dict[str, Any]
    data_checksums: Any = None
    model: ModelPart
    scoring: str = "generate"
    options: dict[str, Any] = Field(default_factory=dict)
    seeds: dict[str, Any] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)
    n_items: int = 0
    started_at: str | None = None
    ended_at: str | None = None
    sessions: list[Session] = Field(default_factory=list)
    status: RunStatus = "running"
    usage: dict[str, int] = Field(
        default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0}
    )
    cost_usd: float | None = None
    selection: dict[str, Any] | None = None
    command: list[str] | None = None
    versions: dict[str, str | None] | None = None

    @property
    def spec(self) -> str:
        """The model spec the run used."""
        return self.model.spec

    def begin_session(self, options: Mapping[str, Any], n_items: int, **details: Any) -> None:
        """Mark the run as running again with ``options`` (a new session starts now; its
        ``details``, such as the command line and versions, are kept with it)."""
        self.options = dict(options)
        self.n_items = n_items
        self.status = "running"
        self.format_version = FORMAT_VERSION
        self.sessions.append(Session(started_at=utc_now(), **details))

    def end_session(
        self,
        *,
        complete: bool,
        usage: Mapping[str, int],
        cost_usd: float | None,
        status: RunStatus | None = None,
        stopped: str | None = None,
    ) -> None:
        """Close the current session with the run's status (``status`` when given, else
        complete or running), tokens and cost, and why it ``stopped`` early when a limit
        stopped it."""
        now = utc_now()
        if self.sessions:
            self.sessions[-1].ended_at = now
            self.sessions[-1].stopped = stopped
        self.status = status or ("complete" if complete else "running")
        self.ended_at = now
        self.usage = dict(usage)
        self.cost_usd = cost_usd

    def to_json(self) -> dict[str, Any]:
        """Return the manifest as a JSON-ready dict (secrets scrubbed from every string)."""
        data: dict[str, Any] = scrub_json(self.model_dump(mode="json"))
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], source: Path | str) -> Manifest:
        """Validate a manifest read from ``source``; ``DataError`` naming the bad field."""
        try:
            return cls.model_validate(dict(data))
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise DataError(str(source), first["msg"], field=where or None) from None
