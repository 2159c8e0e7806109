"""Sweeps: a YAML file of models x benchmarks x settings, run into one folder per cell.

Example::

    out: runs/table9
    models: [{spec: "openai:gpt-4", base_url: "http://127.0.0.1:8000/v1"}, "smollm2"]
    runs:
      - {benchmark: convre, task: [re2text, text2re], setting: [1, 2, 3], subset: true}
      - {benchmark: mcr, language: [en, zh], method: [zs, fs, zsc]}
    options: {scoring: generate, concurrency: 8, max_new_tokens: 64}

Every list-valued field of a run entry is expanded (a grid). Each cell gets a deterministic run
folder ``OUT/<model>/<cell>``; a complete folder is skipped, a partial one continued. Every task
is built before anything runs, so a bad setting fails at once, naming the file, line and field.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from relreason.benchmarks import get as get_benchmark
from relreason.benchmarks.permute import permuted
from relreason.errors import DataError, RelreasonError, UsageError
from relreason.models.options import ModelOptions
from relreason.records import is_run_folder, load_records, read_manifest
from relreason.redact import scrub_secrets, strip_secret_options
from relreason.run.loop import run_coroutine
from relreason.run.options import RunOptions, run_options_from
from relreason.run.progress import RunProgress, loading
from relreason.run.runner import arun_task
from relreason.run.selection import select_items
from relreason.run.sweep_yaml import load_yaml
from relreason.types import Task

_Strict = ConfigDict(extra="forbid")


class ModelEntry(BaseModel):
    """One model: a spec plus the options ``load_backend`` takes (``ModelOptions``'s names;
    ``base_url`` may be given for ``base_urls``, as one URL or a list), and an optional
    ``size`` (parameters, e.g. 7e9) for scaling analyses."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    spec: str
    base_urls: str | list[str] | None = Field(default=None, alias="base_url")
    api: Literal["chat", "completions"] | None = None
    chat_template: bool | None = None
    device: str | None = None
    dtype: str | None = None
    batch_size: int | None = Field(default=None, ge=1)
    timeout: float | None = Field(default=None, gt=0)
    seed: int | None = None
    size: float | None = Field(default=None, gt=0)

    def manifest_options(self) -> dict[str, Any]:
        """The options recorded in a run's manifest: the backend's, and ``size`` when given."""
        data = self.options()
        if self.size is not None:
            data["size"] = self.size
        return data

    def options(self) -> dict[str, Any]:
        """Return the model options for ``load_backend`` (``ModelOptions`` names)."""
        data = self.model_dump(exclude={"spec", "size"}, exclude_none=True)
        if isinstance(self.base_urls, str):
            data["base_urls"] = [self.base_urls]
        unknown = set(data) - set(ModelOptions.names())
        assert not unknown, unknown  # the fields above are ModelOptions's
        return data


class RunEntry(BaseModel):
    """One grid of runs: a registered benchmark and values of its parameters; list values
    expand, and axes left out take the benchmark's default grid (e.g. ConvRe: both tasks,
    settings 1-12; MCR: five languages, zs/fs/zsc)."""

    model_config = ConfigDict(extra="allow")
    benchmark: str

    def axes(self) -> dict[str, Any]:
        """Return the parameter values given (everything but ``benchmark``)."""
        return dict(self.model_extra or {})


class SweepOptions(BaseModel):
    """Run options shared by every run of the sweep."""

    model_config = _Strict
    scoring: Literal["generate", "logprob"] = "generate"
    concurrency: int = Field(default=8, ge=1)
    max_new_tokens: int | None = Field(default=None, ge=1)
    temperature: float = Field(default=0.0, ge=0)
    top_logprobs: int = Field(default=5, ge=0)
    seed: int | None = None
    requests_per_minute: float | None = Field(default=None, gt=0)
    tokens_per_minute: float | None = Field(default=None, gt=0)
    max_retries: int = Field(default=6, ge=0)
    request_timeout: float = Field(default=60.0, gt=0)
    use_cache: bool = True
    limit: int | None = Field(default=None, ge=0)
    permute: str | None = None
    sample: int | None = Field(default=None, ge=1)
    max_wait: float = Field(default=120.0, gt=0)
    max_answer_chars: int = Field(default=200_000, ge=1)

    def run_options(self, show_progress: bool, task: Task | None = None) -> RunOptions:
        """Return the :class:`RunOptions` these options stand for (the task's own generation
        length unless ``max_new_tokens`` is set)."""
        values = {**self.model_dump(), "show_progress": show_progress}
        return run_options_from(values, task)


class SweepFile(BaseModel):
    """A whole sweep file."""

    model_config = _Strict
    out: Path
    models: list[str | ModelEntry] = Field(min_length=1)
    runs: list[RunEntry] = Field(min_length=1)
    options: SweepOptions = Field(default_factory=SweepOptions)


@dataclass
class PlannedRun:
    """One cell of the grid: where it goes and what it runs."""

    model: ModelEntry
    task: Task
    out_dir: Path
    coordinates: dict[str, Any]


@dataclass
class SweepResult:
    """The rows of a finished sweep (see :func:`collect`); ``str()`` gives a table."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def __str__(self) -> str:
        from relreason.analysis.runs_table import format_rows

        return format_rows(self.rows)


def _line_of(node: yaml.Node | None, loc: Sequence[int | str]) -> int | None:
    """The 1-based line of the YAML node at pydantic location ``loc`` (nearest found)."""
    line = None if node is None else node.start_mark.line + 1
    for step in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            child = next((v for k, v in node.value if k.value == step), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
            child = node.value[step] if step < len(node.value) else None
        if child is None:
            break
        node, line = child, child.start_mark.line + 1
    return line


def load_sweep(path: Path) -> SweepFile:
    """Read and validate a sweep file.

    Raises ``UsageError`` when it cannot be read, ``DataError`` naming the file, line and field
    when it is not valid YAML or does not match the schema.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read the sweep file {path}: {error}") from None
    data, root = load_yaml(text, str(path))
    if not isinstance(data, dict):
        raise DataError(str(path), "expected a mapping with out, models and runs")
    try:
        sweep = SweepFile.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        loc = [p for p in first["loc"] if isinstance(p, int | str)]
        shown = ".".join(str(p) for p in loc if not str(p).startswith(("str", "ModelEntry")))
        line = _line_of(root, loc)
        raise DataError(
            str(path),
            scrub_secrets(
                first["msg"] + (f" (got {first['input']!r:.200})" if "input" in first else "")
            ),
            item=None if line is None else f"line {line}",
            field=shown or None,
        ) from None
    _check_entries(sweep, root, Path(path))
    return sweep


def _check_entries(sweep: SweepFile, root: yaml.Node | None, path: Path) -> None:
    """Each run entry names a registered benchmark and only its parameters (``DataError``
    naming the line and field otherwise)."""
    from relreason.benchmarks import names

    for position, entry in enumerate(sweep.runs):
        loc: list[int | str] = ["runs", position, "benchmark"]
        if entry.benchmark not in names():
            message = f"unknown benchmark {entry.benchmark!r}; valid: {', '.join(names())}"
            _raise_at(path, root, loc, message)
        fields = get_benchmark(entry.benchmark).params_model.model_fields
        for name in entry.axes():
            if name not in fields:
                message = f"not a {entry.benchmark} parameter; valid: {', '.join(fields)}"
                _raise_at(path, root, ["runs", position, name], message)


def _raise_at(path: Path, root: yaml.Node | None, loc: list[int | str], message: str) -> None:
    line = _line_of(root, loc)
    raise DataError(
        str(path),
        message,
        item=None if line is None else f"line {line}",
        field=".".join(str(p) for p in loc),
    )


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "model"


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _cells(entry: RunEntry) -> list[dict[str, Any]]:
    axes = {**get_benchmark(entry.benchmark).grid(), **entry.axes()}
    lists = {name: _as_list(value) for name, value in axes.items()}
    names = list(lists)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*lists.values())]


def plan_sweep(sweep: SweepFile, *, path: Path, data_dir: Path | None = None) -> list[PlannedRun]:
    """Expand the grid into runs, building every task first.

    Raises ``DataError`` naming the sweep file and the run entry for an unknown task, setting,
    language or method (and the benchmarks' own errors for bad data).
    """
    from relreason.models.registry import SPEC_FORMS, backend_info

    models = [ModelEntry(spec=m) if isinstance(m, str) else m for m in sweep.models]
    for position, model in enumerate(models):
        if backend_info(model.spec) is None:
            message = f"unknown model spec {model.spec!r}; valid forms: {', '.join(SPEC_FORMS)}"
            raise DataError(str(path), message, item=f"models[{position}]")
    planned: list[PlannedRun] = []
    seen: set[Path] = set()
    for position, entry in enumerate(sweep.runs):
        try:
            benchmark = get_benchmark(entry.benchmark)
        except UsageError as error:
            raise DataError(str(path), str(error), item=f"runs[{position}]") from None
        for cell in _cells(entry):
            tasks: dict[Any, Task] = {}
            for model in models:
                try:
                    params = benchmark.params(**cell)
                    params = benchmark.for_model(params, model.spec, model.api or "chat")
                    if params not in tasks:
                        tasks[params] = permuted(
                            benchmark.build_task(params, data_dir), sweep.options.permute
                        )
                except DataError:
                    raise
                except RelreasonError as error:
                    raise DataError(str(path), str(error), item=f"runs[{position}]") from None
                task = tasks[params]
                out_dir = sweep.out / _slug(model.spec) / benchmark.run_name(params)
                if out_dir in seen:
                    continue
                seen.add(out_dir)
                coordinates = {"benchmark": entry.benchmark, **cell}
                planned.append(PlannedRun(model, task, out_dir, coordinates))
    return planned


def _finished(out_dir: Path, n_items: int) -> bool:
    if not is_run_folder(out_dir):
        return False
    if read_manifest(out_dir).get("status") != "complete":
        return False
    records = load_records(out_dir)
    return len(records) >= n_items and all(r.get("status") != "failed" for r in records.values())


def _changes(run: PlannedRun, options: RunOptions) -> list[str]:
    """What differs between a finished cell's folder and what the sweep asks now (the items,
    reader, parameters, model and its options; servers are checked when a cell runs)."""
    from relreason.run.folder import differences
    from relreason.run.selection import items_fingerprint, reader_name

    manifest = read_manifest(run.out_dir)
    now = {
        "benchmark": run.task.benchmark,
        "task": run.task.name,
        "description": json.loads(json.dumps(dict(run.task.description), default=str)),
        "items": items_fingerprint(run.task.items),
        "reader": reader_name(run.task),
        "model": run.model.spec,
        "scoring": options.scoring,
        "params": options.to_json()["params"],
    }
    changed = differences(manifest.get("config") or {}, now)
    recorded = (manifest.get("model") or {}).get("options") or {}
    wanted = json.loads(json.dumps(strip_secret_options(run.model.options()), default=str))
    if recorded != wanted:
        changed.append("model options")
    selection = manifest.get("selection") or {}
    if selection and (selection.get("limit"), selection.get("sample")) != (
        options.limit,
        options.sample,
    ):
        changed.append("limit/sample")
    return changed


async def _arun_sweep(
    planned: Sequence[PlannedRun],
    sweep_options: SweepOptions,
    data_dir: Path | None,
    show: bool,
    rerun_changed: bool = False,
) -> None:
    from relreason.models.registry import load_backend

    options = [sweep_options.run_options(show_progress=False, task=p.task) for p in planned]
    sizes = [len(select_items(p.task, o)) for p, o in zip(planned, options, strict=True)]
    stale = {}
    for run, run_options, size in zip(planned, options, sizes, strict=True):
        if _finished(run.out_dir, size):
            changed = _changes(run, run_options)
            if changed:
                stale[run.out_dir] = changed
    if stale and not rerun_changed:
        shown = "; ".join(f"{folder} ({', '.join(c)})" for folder, c in list(stale.items())[:5])
        raise UsageError(
            f"{len(stale)} finished run(s) of this sweep were made with other items, model or "
            f"options: {shown}; rerun them with --rerun-changed, or use another out folder"
        )
    backends: dict[str, Any] = {}
    with RunProgress(enabled=show, overall=sum(sizes)) as progress:
        try:
            for run, run_options, size in zip(planned, options, sizes, strict=True):
                if run.out_dir not in stale and _finished(run.out_dir, size):
                    progress.add_overall(size)
                    continue
                key = json.dumps(run.model.model_dump(), sort_keys=True)
                if key not in backends:
                    with loading(run.model.spec, enabled=show):
                        backends[key] = load_backend(run.model.spec, **run.model.options())
                await arun_task(
                    run.task,
                    backends[key],
                    run.out_dir,
                    run_options,
                    model_options=run.model.manifest_options(),
                    data_dir=data_dir,
                    progress=progress,
                    rerun_changed=rerun_changed,
                )
        finally:
            for backend in backends.values():
                await backend.aclose()


def run_sweep(
    path: Path,
    *,
    data_dir: Path | None = None,
    show_progress: bool = True,
    out: Path | None = None,
    rerun_changed: bool = False,
) -> SweepResult:
    """Run every run of the sweep file that is not complete yet; return the results table.

    ``out`` overrides the file's ``out``. A finished cell whose items, model or options changed
    is refused (``UsageError`` naming them) unless ``rerun_changed``: then it is run again.
    Raises ``DataError``/``UsageError`` for a bad sweep file (before anything runs) and
    whatever a run raises.
    """
    sweep = load_sweep(path)
    if out is not None:
        sweep.out = out
    planned = plan_sweep(sweep, path=Path(path), data_dir=data_dir)
    run_coroutine(_arun_sweep(planned, sweep.options, data_dir, show_progress, rerun_changed))
    from relreason.analysis.runs_table import collect

    return SweepResult(collect(sweep.out))
