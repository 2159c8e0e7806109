"""The run folder's configuration and manifest: what makes two runs the same run, a new run's
manifest, the capability check before anything is written, creating a run folder or
checking that an existing one matches, and the copy of a generated benchmark's items
(:data:`ITEMS`) that a resume asks again."""

from __future__ import annotations

import dataclasses
import json
import platform
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from relreason.errors import DataError, RelreasonError, UsageError
from relreason.files import atomic_write_json, atomic_write_text
from relreason.models.base import ModelBackend
from relreason.records import (
    FORMAT_VERSION,
    MANIFEST,
    RECORDS,
    SUMMARY,
    Manifest,
    is_run_folder,
    load_manifest,
    load_records,
    utc_now,
)
from relreason.records.folder import git_commit
from relreason.records.manifest import ModelPart
from relreason.redact import scrub_secrets, strip_secret_options
from relreason.run.cache import stable_identity
from relreason.run.lock import LOCK_FILE
from relreason.run.options import RunOptions
from relreason.run.plan import PARAMS_KEY
from relreason.run.selection import (
    items_fingerprint,
    reader_name,
    readers_match,
    select_items,
    selection_text,
    servers_of,
)
from relreason.types import EvalItem
from relreason.types import Task as EvalTask
from relreason.version import __version__

ITEMS = "items.jsonl"
"""The items a run of a benchmark without pinned data files (compose: its bundled set is
regenerated, a file of your own may change) asks, one ``EvalItem`` a line, written when it
starts: ``--resume`` asks them again, whatever the set holds now."""
_ITEM = TypeAdapter(EvalItem)


def compared_description(task: EvalTask) -> dict[str, Any]:
    """The task description two runs must share: every parameter is kept in the manifest's
    description (for a resume) but not compared, so that folders of older versions, which did
    not record them, still compare equal; nor is the ``reading`` note (which rules read the
    answers: the reader itself is compared by name)."""
    description = {k: v for k, v in task.description.items() if k not in (PARAMS_KEY, "reading")}
    normalised: dict[str, Any] = json.loads(json.dumps(description, default=str))
    return normalised


def run_config(task: EvalTask, backend: ModelBackend, options: RunOptions) -> dict[str, Any]:
    """Return what makes two runs the same run (compared when a folder is reused or resumed):
    the task and a fingerprint of all its items (prompts, gold, option order), the reader, the
    model's identity including its servers, the scoring mode, the generation parameters and
    what chat models are sent besides the prompt (system prompt, exemplars as turns)."""
    description = backend.describe()
    config = {
        "benchmark": task.benchmark,
        "task": task.name,
        "description": compared_description(task),
        "items": items_fingerprint(task.items),
        "reader": reader_name(task),
        "model": backend.spec,
        # servers apart, so folders of relreason 0.1 (which left them out) still compare equal
        "backend": {
            k: v
            for k, v in stable_identity(description).items()
            if k not in ("base_url", "base_urls")
        },
        "servers": servers_of(description),
        "scoring": options.scoring,
        "params": options.to_json()["params"],
        "system_prompt": options.system_prompt,
        "fewshot_as_multiturn": options.fewshot_as_multiturn,
    }
    normalised: dict[str, Any] = json.loads(json.dumps(config, default=str))
    return normalised


def check_capabilities(backend: ModelBackend, options: RunOptions) -> None:
    """Raise ``UsageError`` when the backend cannot do what the options ask (checked before
    any run folder is written)."""
    if options.scoring == "logprob" and not backend.capabilities.choice_scoring:
        raise UsageError(
            f"model {backend.spec} cannot score choices by log-likelihood; use --scoring generate"
        )


@cache
def _commit() -> str | None:
    return git_commit()


def data_checksums(benchmark: str, data_dir: Path | None) -> Any:
    """The SHA-256 of the benchmark's data files, as a run records them (None without any)."""
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
        relreason_version=__version__,
        git_commit=_commit(),
        python=sys.version.split()[0],
        platform=platform.platform(),
        benchmark=task.benchmark,
        task=task.name,
        description=json.loads(json.dumps(dict(task.description), default=str)),
        data_checksums=data_checksums(task.benchmark, data_dir),
        model=ModelPart(
            spec=backend.spec,
            backend=json.loads(json.dumps(dict(backend.describe()), default=str)),
            options=json.loads(json.dumps(strip_secret_options(model_options), default=str)),
        ),
        scoring=options.scoring,
        options=options.to_json(),
        seeds={
            "run": options.seed,
            "generation": options.params.seed,
            "model": model_options.get("seed"),
        },
        config=dict(config),
        n_items=len(select_items(task, options)),
        started_at=utc_now(),
        selection=selection_text(task, options),
        command=[scrub_secrets(a) for a in sys.argv],
        versions=versions(),
    )


@cache
def versions() -> dict[str, str | None]:
    """The versions of relreason, Python and the libraries that can change an answer."""
    from importlib.metadata import PackageNotFoundError, version

    found: dict[str, str | None] = {
        "relreason": __version__,
        "python": sys.version.split()[0],
    }
    for name in ("torch", "transformers", "openai", "anthropic", "llama-cpp-python"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The keys of ``old`` whose values differ in ``new`` (keys an older relreason did not
    record are not compared; a reader recorded in the older form is compared by its rule's
    name, see ``readers_match``)."""
    return [
        key
        for key in sorted(old)
        if key in new
        and old.get(key) != new.get(key)
        and not (key == "reader" and readers_match(old[key], new[key]))
    ]


def _is_leftover(path: Path) -> bool:
    """A lock file or a temporary file left by an interrupted atomic write."""
    return path.name == LOCK_FILE or (path.name.startswith(".") and path.name.endswith(".tmp"))


def _remove_leftovers(out_dir: Path) -> None:
    for path in out_dir.iterdir():
        if path.name != LOCK_FILE and _is_leftover(path):
            path.unlink(missing_ok=True)


def _set_aside(out_dir: Path) -> None:
    """Move the records of a changed configuration aside (kept, never read again)."""
    records = out_dir / RECORDS
    if records.exists():
        stamp = utc_now().replace(":", "").replace("-", "")
        records.rename(out_dir / f"records.replaced-{stamp}.jsonl")
    (out_dir / SUMMARY).unlink(missing_ok=True)


def prepare_folder(
    out_dir: Path, config: Mapping[str, Any], fresh: Manifest, *, rerun_changed: bool = False
) -> Manifest:
    """Check the (locked) run folder ``out_dir``; return the manifest to use.

    A folder holding only leftovers of an interrupted first write counts as empty. Raises
    ``UsageError`` for a non-run folder that is not empty, or a run folder made with another
    configuration (naming what changed) unless ``rerun_changed``: then its records are moved
    aside and the run starts again.
    """
    _remove_leftovers(out_dir)
    if is_run_folder(out_dir):
        manifest = load_manifest(out_dir)
        differing = differences(manifest.config or {}, config)
        if differing and not rerun_changed:
            raise UsageError(
                f"{out_dir} holds a run of another configuration (differs in: "
                f"{', '.join(differing)}); choose another output folder, or rerun it with "
                "--rerun-changed"
            )
        if differing:
            _set_aside(out_dir)
            atomic_write_json(out_dir / MANIFEST, fresh.to_json())
            return fresh
        manifest.config = {**manifest.config, **config}
        manifest.data_checksums = fresh.data_checksums
        return manifest
    if any(not _is_leftover(p) for p in out_dir.iterdir()):
        raise UsageError(f"output folder {out_dir} is not empty and is not a run folder")
    atomic_write_json(out_dir / MANIFEST, fresh.to_json())
    return fresh


def make_folder(out_dir: Path) -> None:
    """Create the run folder (and its parents); ``UsageError`` when it cannot be created."""
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"output folder {out_dir} is a file")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or str(error)
        raise UsageError(f"cannot create output folder {out_dir}: {reason}") from None


def keep_items(out_dir: Path, task: EvalTask, started: bool) -> None:
    """Keep the items of a run of a benchmark without pinned data files (:data:`ITEMS`; ConvRe's
    and MCR's are checksummed, and would take megabytes a run) when it ``started`` (a new
    manifest) or its folder, of an older relreason, keeps none."""
    from relreason import benchmarks

    name = task.benchmark
    if name not in benchmarks.names() or benchmarks.get(name).files is not None:
        return
    if started or not (out_dir / ITEMS).is_file():
        lines = (
            json.dumps(dataclasses.asdict(i), ensure_ascii=False, default=str) for i in task.items
        )
        atomic_write_text(out_dir / ITEMS, "".join(f"{line}\n" for line in lines))


def recorded_items(out_dir: Path, fingerprint: object) -> tuple[EvalItem, ...] | None:
    """The items the run in ``out_dir`` keeps (:data:`ITEMS`), None for a folder without them.
    Raises ``DataError`` for a malformed line (naming the file, the line and the field) or
    items other than the manifest's ``fingerprint`` says the run asked (naming the file, and the
    item and field where the item's record shows the change)."""
    file = out_dir / ITEMS
    if not file.is_file():
        return None
    fix = "; delete the file to resume on the items as the benchmark builds them now"
    items = []
    try:
        lines = file.read_bytes().splitlines()
    except OSError as error:
        raise DataError(str(file), f"cannot read ({error.strerror or error})") from None
    for n, line in enumerate(lines, 1):
        try:
            items.append(_ITEM.validate_json(line))
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            field = ".".join(str(p) for p in first["loc"]) or None
            raise DataError(str(file), first["msg"] + fix, item=f"line {n}", field=field) from None
    if items_fingerprint(items) == fingerprint:
        return tuple(items)
    records = load_records(out_dir)
    for item in items:
        for name in ("item_id", "gold", "prompt"):
            if records.get(item.index, {}).get(name) not in (None, getattr(item, name)):
                raise DataError(
                    str(file),
                    "not what its record says was asked" + fix,
                    item=item.item_id,
                    field=name,
                )
    raise DataError(str(file), "not the items the manifest's fingerprint says the run asked" + fix)


def resume_task(
    manifest: Manifest, data_dir: Path | None = None, out_dir: Path | None = None
) -> EvalTask:
    """The task a run's manifest describes, rebuilt with every parameter it was run with (for
    the model and API it used), asking the items its folder ``out_dir`` keeps where it keeps
    them (:data:`ITEMS`). Raises ``UsageError`` when it names no registered benchmark,
    ``DataError`` for a damaged copy of the items."""
    from relreason.run.plan import task_from_description

    api = str(manifest.model.options.get("api") or "chat")
    task = task_from_description(manifest.description, data_dir, spec=manifest.spec, api=api)
    kept = None if out_dir is None else recorded_items(out_dir, manifest.config.get("items"))
    if kept is None:
        return task
    return dataclasses.replace(task, items=kept, description=manifest.description)
