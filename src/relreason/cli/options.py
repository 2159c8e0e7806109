"""Command-line options shared by the commands: ``CommandOptions``, the commands' own options
declared once (``--model``, ``--rerun-changed``, ``--out``, ``--dry-run``, ``--prices``,
``--data-dir``), and ``gather_options``, which gives a command the options declared in another
function's signature (a benchmark's, the runner's); ``with_params`` gives it a benchmark's
options that way."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field

from relreason.benchmarks.base import Benchmark
from relreason.cli.declared import option_parameter, option_template
from relreason.declare import Cli
from relreason.models.registry import DEFAULT_MODEL, SPEC_FORMS
from relreason.run.settings import RunSettings


class CommandOptions(BaseModel):
    """The options of the commands themselves (not a benchmark's, a backend's or the runner's),
    each declared once; ``run``, ``run --resume``, ``sweep``, ``translate`` and the commands
    reading data take them by these names."""

    model: Annotated[
        str, Cli(flags=("--model", "-m")), Field(description=" | ".join(SPEC_FORMS))
    ] = DEFAULT_MODEL
    rerun_changed: Annotated[
        bool,
        Cli(flags=("--rerun-changed",)),
        Field(
            description="Start a run folder again if its items or model changed (with "
            "--resume: that folder; in a sweep: each finished cell)."
        ),
    ] = False
    out: Annotated[
        Path | None,
        Cli(flags=("--out",)),
        Field(description="Run folder (default: runs/<task>-<model>-<time>)."),
    ] = None
    dry_run: Annotated[
        bool,
        Cli(flags=("--dry-run",)),
        Field(description="Estimate requests, tokens and cost (of every run); run nothing."),
    ] = False
    prices: Annotated[
        Path | None,
        Cli(flags=("--prices",), envvar="RELREASON_PRICES"),
        Field(description="Your price table (YAML/JSON)."),
    ] = None
    data_dir: Annotated[
        Path | None,
        Cli(flags=("--data-dir",), envvar="RELREASON_DATA_DIR"),
        Field(description="Folder holding convre/ and mcr/ (default: the download cache)."),
    ] = None


def _option(model: type[BaseModel], name: str) -> Any:
    """The typer annotation of one declared field (for a command's own signature)."""
    return option_parameter(name, model.model_fields[name]).annotation


if TYPE_CHECKING:
    DataDir = Path | None
    PricesOpt = Path | None
    ModelOpt = str
    RerunChangedOpt = bool
    DryRunOpt = bool
    LimitOpt = int | None
    PermuteOpt = str | None
    ProgressOpt = bool
else:
    DataDir = _option(CommandOptions, "data_dir")
    PricesOpt = _option(CommandOptions, "prices")
    ModelOpt = _option(CommandOptions, "model")
    RerunChangedOpt = _option(CommandOptions, "rerun_changed")
    DryRunOpt = _option(CommandOptions, "dry_run")
    LimitOpt = _option(RunSettings, "limit")
    PermuteOpt = _option(RunSettings, "permute")
    ProgressOpt = _option(RunSettings, "show_progress")
"""Declared options as the annotation of a command's own parameter."""


def gather_options(
    template: Callable[..., None], into: str, make: Callable[..., Any]
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """A decorator giving a command ``template``'s options, gathered into its argument ``into``.

    Typer reads a command's options from its signature, so the wrapper's signature is the
    command's own parameters (without ``into``) followed by ``template``'s; on a call, the
    template's values are passed to ``make`` and the result to the command as ``into``.
    Decorators stack: each gathers its own options.
    """
    shared = inspect.signature(template, eval_str=True)
    names = set(shared.parameters)

    def decorate(command: Callable[..., None]) -> Callable[..., None]:
        own = inspect.signature(command, eval_str=True)

        @functools.wraps(command)
        def wrapper(**kwargs: Any) -> None:
            gathered = make(**{k: kwargs.pop(k) for k in names})
            command(**{into: gathered}, **kwargs)

        parameters = [p for p in own.parameters.values() if p.name != into]
        parameters = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in parameters]
        parameters += [
            p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in shared.parameters.values()
        ]
        wrapper.__signature__ = own.replace(parameters=parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        del wrapper.__wrapped__  # typer must read the new signature, not the command's
        return wrapper

    return decorate


def with_params(
    bench: Benchmark[Any], *, reading: bool
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Give a command ``bench``'s task options (and reading options), generated from its
    ``params_model``, as its ``params``."""
    template = option_template(bench.params_model, lambda cli: reading or not cli.reading)
    return gather_options(template, "params", bench.params_from_cli)
