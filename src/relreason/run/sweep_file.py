"""A sweep file: its schema (models, run grids, shared options) and its loading, which names
the file, line and field of any problem. ``relreason.run.sweep`` plans and runs it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from relreason.benchmarks import get as get_benchmark
from relreason.declare import cli_of
from relreason.errors import DataError, UsageError
from relreason.models.options import ModelOptions
from relreason.redact import scrub_secrets
from relreason.run.options import RunOptions, run_options_from
from relreason.run.settings import RunSettings
from relreason.run.sweep_yaml import load_yaml
from relreason.types import Task

_Strict = ConfigDict(extra="forbid")


class ModelEntry(ModelOptions):
    """One model: a spec plus the options ``load_backend`` takes (the fields of
    ``ModelOptions``, its one declaration; ``base_url`` may be given for ``base_urls``, as one
    URL or a list), and an optional ``size`` (parameters, e.g. 7e9) for scaling analyses. Only
    the options a file sets are passed on and recorded."""

    model_config = ConfigDict(extra="forbid")
    spec: str
    size: float | None = Field(default=None, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _one_url_or_several(cls, data: Any) -> Any:
        """``base_url`` names ``base_urls`` too, and one URL is a list of one."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if "base_url" in data:
            if "base_urls" in data:
                raise ValueError("give base_url or base_urls, not both")
            data["base_urls"] = data.pop("base_url")
        if isinstance(data.get("base_urls"), str):
            data["base_urls"] = [data["base_urls"]]
        return data

    def manifest_options(self) -> dict[str, Any]:
        """The options recorded in a run's manifest: the backend's, and ``size`` when given."""
        data = self.options()
        if self.size is not None:
            data["size"] = self.size
        return data

    def options(self) -> dict[str, Any]:
        """Return the model options the file sets, for ``load_backend`` (``ModelOptions``
        names; lists as lists)."""
        data = self.model_dump(exclude={"spec", "size"}, exclude_unset=True)
        if "base_urls" in data:
            data["base_urls"] = list(data["base_urls"])
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


class SweepOptions(RunSettings):
    """Run options shared by every run of the sweep: the fields of ``RunSettings`` (their one
    declaration, with the command line's bounds) that sweeps take."""

    @model_validator(mode="before")
    @classmethod
    def _sweep_options_only(cls, data: Any) -> Any:
        """Options of a single command-line run (``refresh``, ``show_progress``) are refused."""
        if isinstance(data, dict):
            for name in data:
                info = RunSettings.model_fields.get(name)
                if info is not None and not cli_of(info).sweep:
                    raise ValueError(f"{name} is not a sweep option")
        return data

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
    roles: dict[str, str] = Field(
        default_factory=dict,
        description="Helper models by role (cleanup: SPEC), for every cell whose benchmark "
        "takes that role (relreason.run.sweep_roles); a cell's own setting wins.",
    )


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
    """Each run entry names a registered benchmark and only its parameters, and each role is
    one a benchmark declares (``DataError`` naming the line and field otherwise)."""
    from relreason.benchmarks import names
    from relreason.run.sweep_roles import known_roles, unknown_role_message

    for role in sweep.roles:
        if role not in known_roles():
            _raise_at(path, root, ["roles", role], unknown_role_message(role))

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
