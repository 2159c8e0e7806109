"""Command-line option types shared by the commands, and ``gather_options``, which gives a
command the options declared in another function's signature (a benchmark's, the runner's);
``with_params`` gives it a benchmark's options that way."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from relreason.benchmarks.base import Benchmark
from relreason.cli.declared import option_parameter, option_template
from relreason.run.settings import RunSettings


class Api(StrEnum):
    """Which OpenAI-compatible endpoint to call."""

    chat = "chat"
    completions = "completions"


DataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        envvar="RELREASON_DATA_DIR",
        help="Folder holding convre/ and mcr/ (default: the download cache).",
        show_default=False,
    ),
]

if TYPE_CHECKING:
    LimitOpt = int | None
    PermuteOpt = str | None
else:
    LimitOpt = option_parameter("limit", RunSettings.model_fields["limit"]).annotation
    PermuteOpt = option_parameter("permute", RunSettings.model_fields["permute"]).annotation
"""``--limit`` and ``--permute`` of ``prompts`` and ``score``, as ``RunSettings`` declares them."""


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


PricesOpt = Annotated[
    Path | None,
    typer.Option("--prices", envvar="RELREASON_PRICES", help="Your price table (YAML/JSON)."),
]


def with_params(
    bench: Benchmark[Any], *, reading: bool
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Give a command ``bench``'s task options (and reading options), generated from its
    ``params_model``, as its ``params``."""
    template = option_template(bench.params_model, lambda cli: reading or not cli.reading)
    return gather_options(template, "params", bench.params_from_cli)
