"""The run folder's configuration and manifest: what makes two runs the same run, a new
run's manifest, and creating a run folder or checking that an existing one matches."""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import relreason
from relreason.cache import stable_identity
from relreason.errors import RelreasonError, UsageError
from relreason.models.base import ModelBackend
from relreason.results import (
    atomic_write_json,
    git_commit,
    is_run_folder,
    read_manifest,
    strip_secret_options,
)
from relreason.run_options import RunOptions
from relreason.types import Task as EvalTask


def run_config(task: EvalTask, backend: ModelBackend, options: RunOptions) -> dict[str, Any]:
    """Return what makes two runs the same run (compared when a folder is reused or resumed)."""
    config = {
        "benchmark": task.benchmark,
        "task": task.name,
        "description": dict(task.description),
        "model": backend.spec,
        "backend": stable_identity(backend.describe()),
        "scoring": options.scoring,
        "params": options.to_json()["params"],
    }
    normalised: dict[str, Any] = json.loads(json.dumps(config, default=str))
    return normalised


def utc_now() -> str:
    """Return the current UTC time as ISO 8601 text, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@cache
def _commit() -> str | None:
    return git_commit()


def _checksums(benchmark: str, data_dir: Path | None) -> Any:
    try:
        from relreason.sources import file_checksums
    except ImportError:
        return None
    try:
        return file_checksums(benchmark, data_dir)
    except (RelreasonError, OSError, ValueError):
        return None


def new_manifest(
    task: EvalTask,
    backend: ModelBackend,
    options: RunOptions,
    model_options: Mapping[str, Any],
    data_dir: Path | None,
    config: Mapping[str, Any],
) -> dict[str, Any]:
    """Return the manifest of a new run (status ``running``, no sessions yet); never raises
    for missing provenance (git commit, data checksums become null)."""
    return {
        "kind": "relreason-run",
        "relreason_version": relreason.__version__,
        "git_commit": _commit(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "benchmark": task.benchmark,
        "task": task.name,
        "description": config["description"],
        "data_checksums": _checksums(task.benchmark, data_dir),
        "model": {
            "spec": backend.spec,
            "backend": json.loads(json.dumps(dict(backend.describe()), default=str)),
            "options": json.loads(json.dumps(strip_secret_options(model_options), default=str)),
        },
        "scoring": options.scoring,
        "options": options.to_json(),
        "seeds": {
            "run": options.seed,
            "generation": options.params.seed,
            "model": model_options.get("seed"),
        },
        "config": dict(config),
        "n_items": len(task.items)
        if options.limit is None
        else min(options.limit, len(task.items)),
        "started_at": utc_now(),
        "ended_at": None,
        "sessions": [],
        "status": "running",
        "usage": {"prompt_tokens": 0, "completion_tokens": 0},
        "cost_usd": None,
    }


def _differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    return [key for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)]


def prepare_folder(
    out_dir: Path, config: Mapping[str, Any], fresh: dict[str, Any]
) -> dict[str, Any]:
    """Create the run folder or check an existing one; return the manifest to use.

    Raises ``UsageError`` for an unwritable place, a non-run folder that is not empty, or a run
    folder made with another configuration.
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"output folder {out_dir} is a file")
    if is_run_folder(out_dir):
        manifest = read_manifest(out_dir)
        differing = _differences(manifest.get("config") or {}, config)
        if differing:
            raise UsageError(
                f"{out_dir} holds a run of another configuration (differs in: "
                f"{', '.join(differing)}); choose another output folder, or resume it as it is"
            )
        return manifest
    if out_dir.is_dir() and any(out_dir.iterdir()):
        raise UsageError(f"output folder {out_dir} is not empty and is not a run folder")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or str(error)
        raise UsageError(f"cannot create output folder {out_dir}: {reason}") from None
    atomic_write_json(out_dir / "manifest.json", fresh)
    return fresh
