"""A sweep file: its schema (models, run grids, shared options) and its loading, which names
the file, line and field of any problem. ``relreason.run.sweep`` plans and runs it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from relreason.benchmarks import get as get_benchmark
from relreason.errors import DataError, UsageError
from relreason.models.options import ModelOptions
from relreason.redact import scrub_secrets
from relreason.run.options import BOUNDS, RunOptions, run_options_from
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
    threads: int | None = Field(default=None, ge=1)
    max_model_len: int | None = Field(default=None, ge=2)
    tensor_parallel_size: int | None = Field(default=None, ge=1)
    data_parallel_size: int | None = Field(default=None, ge=1)
    gpu_memory_utilization: float | None = Field(default=None, gt=0, le=1)
    enforce_eager: bool | None = None
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
    """Run options shared by every run of the sweep (bounds: ``BOUNDS``, as on the command line)."""

    model_config = _Strict
    scoring: Literal["generate", "logprob"] = "generate"
    concurrency: Annotated[int, BOUNDS["concurrency"].field()] = 8
    max_new_tokens: Annotated[int, BOUNDS["max_new_tokens"].field()] | None = None
    temperature: Annotated[float, BOUNDS["temperature"].field()] = 0.0
    top_logprobs: Annotated[int, BOUNDS["top_logprobs"].field()] = 5
    seed: int | None = None
    requests_per_minute: Annotated[float, BOUNDS["requests_per_minute"].field()] | None = None
    tokens_per_minute: Annotated[float, BOUNDS["tokens_per_minute"].field()] | None = None
    max_retries: Annotated[int, BOUNDS["max_retries"].field()] = 6
    request_timeout: Annotated[float, BOUNDS["request_timeout"].field()] = 60.0
    use_cache: bool = True
    limit: Annotated[int, BOUNDS["limit"].field()] | None = None
    permute: str | None = None
    sample: Annotated[int, BOUNDS["sample"].field()] | None = None
    max_wait: Annotated[float, BOUNDS["max_wait"].field()] = 120.0
    max_answer_chars: Annotated[int, BOUNDS["max_answer_chars"].field()] = 200_000

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
