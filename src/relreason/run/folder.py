"""The run folder's configuration and manifest: what makes two runs the same run, a new run's
manifest, the capability check before anything is written, and creating a run folder or
checking that an existing one matches."""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import relreason
from relreason.errors import RelreasonError, UsageError
from relreason.files import atomic_write_json
from relreason.models.base import ModelBackend
from relreason.records import (
    FORMAT_VERSION,
    MANIFEST,
    Manifest,
    is_run_folder,
    load_manifest,
    utc_now,
)
from relreason.records.folder import git_commit
from relreason.redact import strip_secret_options
from relreason.run.cache import stable_identity
from relreason.run.options import RunOptions
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


def check_capabilities(backend: ModelBackend, options: RunOptions) -> None:
    """Raise ``UsageError`` when the backend cannot do what the options ask (checked before
    any run folder is written)."""
    if options.scoring == "logprob" and not backend.supports_choice_scoring:
        raise UsageError(
            f"model {backend.spec} cannot score choices by log-likelihood; use --scoring generate"
        )


@cache
def _commit() -> str | None:
    return git_commit()


def _checksums(benchmark: str, data_dir: Path | None) -> Any:
    from relreason.benchmarks import get
    from relreason.data.sources import file_checksums

    try:
        files = get(benchmark).files
        return None if files is None else file_checksums(files, data_dir)
    except (RelreasonError, OSError, ValueError):
        return None


def new_manifest(
    task: EvalTask,
    backend: ModelBackend,
    options: RunOptions,
    model_options: Mapping[str, Any],
    data_dir: Path | None,
    config: Mapping[str, Any],
) -> Manifest:
    """Return the manifest of a new run (status ``running``, no sessions yet); never raises
    for missing provenance (git commit, data checksums become null)."""
    return Manifest(
        format_version=FORMAT_VERSION,
        relreason_version=relreason.__version__,
        git_commit=_commit(),
        python=sys.version.split()[0],
        platform=platform.platform(),
        benchmark=task.benchmark,
        task=task.name,
        description=config["description"],
        data_checksums=_checksums(task.benchmark, data_dir),
        model={
            "spec": backend.spec,
            "backend": json.loads(json.dumps(dict(backend.describe()), default=str)),
            "options": json.loads(json.dumps(strip_secret_options(model_options), default=str)),
        },
        scoring=options.scoring,
        options=options.to_json(),
        seeds={
            "run": options.seed,
            "generation": options.params.seed,
            "model": model_options.get("seed"),
        },
        config=dict(config),
        n_items=len(task.items) if options.limit is None else min(options.limit, len(task.items)),
        started_at=utc_now(),
    )


def _differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    return [key for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)]


def prepare_folder(out_dir: Path, config: Mapping[str, Any], fresh: Manifest) -> Manifest:
    """Create the run folder or check an existing one; return the manifest to use.

    Raises ``UsageError`` for an unwritable place, a non-run folder that is not empty, or a run
    folder made with another configuration.
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"output folder {out_dir} is a file")
    if is_run_folder(out_dir):
        manifest = load_manifest(out_dir)
        differing = _differences(manifest.config or {}, config)
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
    atomic_write_json(out_dir / MANIFEST, fresh.to_json())
    return fresh
