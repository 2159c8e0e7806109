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

import asyncio
import csv
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from relreason.errors import DataError, RelreasonError, UsageError
from relreason.progress import RunProgress
from relreason.results import is_run_folder, load_records, read_manifest
from relreason.run_options import with_task_length
from relreason.runner import RunOptions, arun_task
from relreason.types import GenerationParams, Task

_Strict = ConfigDict(extra="forbid")


class ModelEntry(BaseModel):
    """One model: a spec plus the options ``load_backend`` takes."""

    model_config = _Strict
    spec: str
    base_url: str | list[str] | None = None
    api: Literal["chat", "completions"] | None = None
    chat_template: bool | None = None
    device: str | None = None
    dtype: str | None = None
    batch_size: int | None = Field(default=None, ge=1)
    timeout: float | None = Field(default=None, gt=0)
    seed: int | None = None

    def options(self) -> dict[str, Any]:
        """Return the model options for ``load_backend`` (``base_url`` as ``base_urls``)."""
        data = self.model_dump(exclude={"spec", "base_url"}, exclude_none=True)
        if self.base_url is not None:
            urls = [self.base_url] if isinstance(self.base_url, str) else self.base_url
            data["base_urls"] = list(urls)
        return data


class RunEntry(BaseModel):
    """One grid of runs; list values expand. ConvRe uses task/setting/subset/neutral, MCR
    language/method/mode."""

    model_config = _Strict
    benchmark: Literal["convre", "mcr"]
    task: str | list[str] | None = None
    setting: int | list[int] | None = None
    subset: bool | list[bool] = False
    neutral: bool | list[bool] = False
    language: str | list[str] | None = None
    method: str | list[str] | None = None
    mode: str | None = None


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

    def run_options(self, show_progress: bool) -> RunOptions:
        """Return the :class:`RunOptions` these options stand for."""
        params = GenerationParams(
            max_new_tokens=self.max_new_tokens or 512,
            temperature=self.temperature,
            top_logprobs=self.top_logprobs,
            seed=self.seed,
        )
        return RunOptions(
            scoring=self.scoring,
            params=params,
            concurrency=self.concurrency,
            requests_per_minute=self.requests_per_minute,
            tokens_per_minute=self.tokens_per_minute,
            max_retries=self.max_retries,
            request_timeout=self.request_timeout,
            use_cache=self.use_cache,
            limit=self.limit,
            show_progress=show_progress,
            seed=self.seed or 0,
        )


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
    try:
        data = yaml.safe_load(text)
        root = yaml.compose(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        problem = getattr(error, "problem", None) or str(error)
        raise DataError(str(path), f"not valid YAML: {problem}", item=where) from None
    if not isinstance(data, dict):
        raise DataError(str(path), "expected a mapping with out, models and runs")
    try:
        return SweepFile.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        loc = [p for p in first["loc"] if isinstance(p, int | str)]
        shown = ".".join(str(p) for p in loc if not str(p).startswith(("str", "ModelEntry")))
        line = _line_of(root, loc)
        raise DataError(
            str(path),
            first["msg"] + (f" (got {first['input']!r})" if "input" in first else ""),
            item=None if line is None else f"line {line}",
            field=shown or None,
        ) from None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "model"


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _cells(entry: RunEntry) -> list[dict[str, Any]]:
    if entry.benchmark == "convre":
        axes = {
            "task": _as_list(entry.task or ["re2text", "text2re"]),
            "setting": _as_list(entry.setting or list(range(1, 13))),
            "subset": _as_list(entry.subset),
            "neutral": _as_list(entry.neutral),
        }
    else:
        axes = {
            "language": _as_list(entry.language or ["en", "zh", "fr", "ja", "ko"]),
            "method": _as_list(entry.method or ["zs", "fs", "zsc"]),
        }
    names = list(axes)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*axes.values())]


def _build(
    benchmark: str, cell: Mapping[str, Any], mode: str | None, data_dir: Path | None
) -> Task:
    from relreason import tasks

    if benchmark == "convre":
        return tasks.convre_task(
            cell["task"],
            int(cell["setting"]),
            subset=bool(cell["subset"]),
            neutral=bool(cell["neutral"]),
            data_dir=data_dir,
        )
    return tasks.mcr_task(
        cell["language"], cell["method"], mode=mode or "robust", data_dir=data_dir
    )


def _cell_name(benchmark: str, cell: Mapping[str, Any]) -> str:
    if benchmark == "convre":
        name = f"convre-{cell['task']}-s{int(cell['setting']):02d}"
        return (
            name + ("-subset" if cell["subset"] else "") + ("-neutral" if cell["neutral"] else "")
        )
    return f"mcr-{cell['language']}-{cell['method']}"


def plan_sweep(sweep: SweepFile, *, path: Path, data_dir: Path | None = None) -> list[PlannedRun]:
    """Expand the grid into runs, building every task first.

    Raises ``DataError`` naming the sweep file and the run entry for an unknown task, setting,
    language or method (and the benchmarks' own errors for bad data).
    """
    from relreason.models.registry import SPEC_FORMS

    models = [ModelEntry(spec=m) if isinstance(m, str) else m for m in sweep.models]
    kinds = {form.split(":")[0].split("[")[0] for form in SPEC_FORMS}
    for position, model in enumerate(models):
        if model.spec.partition(":")[0] not in kinds:
            message = f"unknown model spec {model.spec!r}; valid forms: {', '.join(SPEC_FORMS)}"
            raise DataError(str(path), message, item=f"models[{position}]")
    planned: list[PlannedRun] = []
    seen: set[Path] = set()
    for position, entry in enumerate(sweep.runs):
        for cell in _cells(entry):
            try:
                task = _build(entry.benchmark, cell, entry.mode, data_dir)
            except DataError:
                raise
            except RelreasonError as error:
                raise DataError(str(path), str(error), item=f"runs[{position}]") from None
            for model in models:
                out_dir = sweep.out / _slug(model.spec) / _cell_name(entry.benchmark, cell)
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


async def _arun_sweep(
    planned: Sequence[PlannedRun],
    options: RunOptions,
    data_dir: Path | None,
    show: bool,
    task_lengths: bool = False,
) -> None:
    from relreason.models.registry import load_backend

    sizes = [
        len(p.task.items) if options.limit is None else min(options.limit, len(p.task.items))
        for p in planned
    ]
    backends: dict[str, Any] = {}
    with RunProgress(enabled=show, overall=sum(sizes)) as progress:
        try:
            for run, size in zip(planned, sizes, strict=True):
                if _finished(run.out_dir, size):
                    progress.add_overall(size)
                    continue
                key = json.dumps(run.model.model_dump(), sort_keys=True)
                if key not in backends:
                    backends[key] = load_backend(run.model.spec, **run.model.options())
                run_options = with_task_length(options, run.task) if task_lengths else options
                await arun_task(
                    run.task,
                    backends[key],
                    run.out_dir,
                    run_options,
                    model_options=run.model.options(),
                    data_dir=data_dir,
                    progress=progress,
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
) -> SweepResult:
    """Run every run of the sweep file that is not complete yet; return the results table.

    ``out`` overrides the file's ``out``. Raises ``DataError``/``UsageError`` for a bad sweep
    file (before anything runs) and whatever a run raises.
    """
    sweep = load_sweep(path)
    if out is not None:
        sweep.out = out
    planned = plan_sweep(sweep, path=Path(path), data_dir=data_dir)
    options = sweep.options.run_options(show_progress=False)
    task_lengths = sweep.options.max_new_tokens is None
    asyncio.run(_arun_sweep(planned, options, data_dir, show_progress, task_lengths))
    return SweepResult(collect(sweep.out))


def collect(out: Path) -> list[dict[str, Any]]:
    """Return one row per run folder under ``out``: model, benchmark, task (or language),
    setting (or method), accuracy, n, failed, complete, folder. Sorted for a stable report."""
    rows = []
    for manifest_path in sorted(Path(out).rglob("manifest.json")):
        folder = manifest_path.parent
        manifest = read_manifest(folder)
        description = manifest.get("description") or {}
        summary_path = folder / "summary.json"
        summary = json.loads(summary_path.read_text("utf-8")) if summary_path.is_file() else {}
        convre = description.get("benchmark") == "convre"
        rows.append(
            {
                "model": (manifest.get("model") or {}).get("spec"),
                "benchmark": description.get("benchmark", manifest.get("benchmark")),
                "task": description.get("task") if convre else description.get("language"),
                "setting": description.get("setting_id") if convre else description.get("method"),
                "subset": bool(description.get("subset", False)),
                "accuracy": summary.get("accuracy"),
                "n": summary.get("n", 0),
                "failed": summary.get("failed", 0),
                "complete": manifest.get("status") == "complete",
                "folder": str(folder),
            }
        )
    return rows


def format_rows(rows: Sequence[Mapping[str, Any]]) -> str:
    """Return ``rows`` as a plain-text table."""
    columns = ["model", "benchmark", "task", "setting", "accuracy", "n", "failed", "paper"]
    if any("paper_model" in row for row in rows):
        columns += ["paper_model", "delta"]
    cells = [[_fmt(row.get(c)) for c in columns] for row in rows]
    widths = [
        max(len(c), *(len(r[i]) for r in cells)) if cells else len(c) for i, c in enumerate(columns)
    ]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, dict):
        return f"{len(value)} figures" if value else "-"
    return str(value)


# the paper's published figures ---------------------------------------------------------
_MCR_METHODS = {"zs": "ZS", "fs": "5-shot", "zsc": "ZSC"}


def paper_figures(benchmark: str) -> list[dict[str, Any]]:
    """Return the paper's table as rows (benchmark, model, task, setting, accuracy in 0..1).

    ConvRe: Table 9 (task, model, prompt id). MCR: Table 4 (language code, method). Raises
    ``UsageError`` for an unknown benchmark.
    """
    files = {"convre": "convre_paper_table9.csv", "mcr": "mcr_paper_table4.csv"}
    if benchmark not in files:
        raise UsageError(f"unknown benchmark {benchmark!r}; valid: convre, mcr")
    text = resources.files("relreason").joinpath("reference", files[benchmark]).read_text("utf-8")
    rows: list[dict[str, Any]] = []
    for raw in csv.DictReader(text.splitlines()):
        if benchmark == "convre":
            if raw["accuracy"]:
                rows.append(
                    {
                        "benchmark": "convre",
                        "model": raw["model"],
                        "task": raw["task"],
                        "setting": int(raw["prompt"]),
                        "accuracy": float(raw["accuracy"]),
                    }
                )
            continue
        method = {v: k for k, v in _MCR_METHODS.items()}.get(raw["method"], raw["method"])
        for language in ("EN", "FR", "JA", "KO", "ZH"):
            if raw.get(language):
                rows.append(
                    {
                        "benchmark": "mcr",
                        "model": raw["model"],
                        "task": language.lower(),
                        "setting": method,
                        "accuracy": float(raw[language]) / 100,
                    }
                )
    return rows


def beside_paper(
    rows: Sequence[Mapping[str, Any]], model_map: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """Return ``rows`` each with ``paper`` (paper model -> accuracy for the same cell) and,
    when ``model_map`` maps the row's model to a paper model, ``paper_accuracy`` and ``delta``."""
    index: dict[tuple[str, str, str], dict[str, float]] = {}
    for benchmark in ("convre", "mcr"):
        for fig in paper_figures(benchmark):
            cell = (fig["benchmark"], str(fig["task"]), str(fig["setting"]))
            index.setdefault(cell, {})[fig["model"]] = fig["accuracy"]
    out = []
    for row in rows:
        cell = (str(row.get("benchmark")), str(row.get("task")), str(row.get("setting")))
        figures = index.get(cell, {})
        merged = {**row, "paper": figures}
        wanted = (model_map or {}).get(str(row.get("model")), "").lower()
        paper_model = next((m for m in figures if m.lower() == wanted), None)
        if paper_model is not None:
            merged["paper"] = figures[paper_model]
            merged["paper_model"] = paper_model
            accuracy = row.get("accuracy")
            if isinstance(accuracy, int | float):
                merged["delta"] = accuracy - figures[paper_model]
        out.append(merged)
    return out
