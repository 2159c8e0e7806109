"""Command-line option types shared by the ``prompts``, ``score`` and ``run`` commands."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from relreason.types import Task


class ConvReTaskName(StrEnum):
    """The two ConvRe tasks."""

    re2text = "re2text"
    text2re = "text2re"


class ConvReMode(StrEnum):
    """How unreadable ConvRe answers are treated."""

    auto = "auto"
    strict = "strict"


class McrMode(StrEnum):
    """How MCR answers are read."""

    robust = "robust"
    paper = "paper"


class Scoring(StrEnum):
    """How a run asks the model: free generation, or log-likelihood of each choice."""

    generate = "generate"
    logprob = "logprob"


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
TaskOpt = Annotated[ConvReTaskName, typer.Option("--task", help="ConvRe task.")]
SettingOpt = Annotated[
    int | None,
    typer.Option(
        "--setting",
        min=1,
        max=12,
        help="Paper prompt setting 1-12 (the knobs below override its values; default 1).",
        show_default=False,
    ),
]
SubsetOpt = Annotated[bool, typer.Option("--subset", help="The paper's 328-triple subset.")]
NeutralOpt = Annotated[
    bool, typer.Option("--neutral", help="Neutral relation name 'R' (paper Appendix G).")
]
PromptKnob = Annotated[
    str | None, typer.Option("--prompt", help="normal | hint | hint+cot", show_default=False)
]
RelationKnob = Annotated[
    str | None, typer.Option("--relation", help="normal | converse", show_default=False)
]
NShotKnob = Annotated[
    int | None, typer.Option("--n-shot", min=0, max=10, help="0-10", show_default=False)
]
ExampleTypeKnob = Annotated[
    str | None, typer.Option("--example-type", help="hard | regular", show_default=False)
]
TextTypeKnob = Annotated[
    str | None, typer.Option("--text-type", help="hard | regular", show_default=False)
]
LanguageOpt = Annotated[
    str, typer.Option("--language", help="en zh fr ja ko (or english, chinese, ...).")
]
MethodOpt = Annotated[
    str, typer.Option("--method", help="zs | zsc | fs | fs-english | fs-multilingual")
]
ExemplarsOpt = Annotated[
    Path | None,
    typer.Option("--exemplars", help="Your own exemplar file (same keys as the official one)."),
]
LimitOpt = Annotated[
    int | None,
    typer.Option("--limit", min=1, help="Only the first N items.", show_default=False),
]


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


@dataclass(frozen=True)
class ConvReChoice:
    """A ConvRe task and setting as chosen on the command line (knobs override the setting)."""

    task: str
    setting: int | None
    subset: bool
    neutral: bool
    knobs: dict[str, Any]


def _convre_options(
    task: TaskOpt,
    setting: SettingOpt = None,
    subset: SubsetOpt = False,
    neutral: NeutralOpt = False,
    prompt: PromptKnob = None,
    relation: RelationKnob = None,
    n_shot: NShotKnob = None,
    example_type: ExampleTypeKnob = None,
    text_type: TextTypeKnob = None,
) -> None:
    """Holds, in its signature, the options that choose a ConvRe task and setting."""


def _convre_choice(
    task: ConvReTaskName, setting: int | None, subset: bool, neutral: bool, **knobs: Any
) -> ConvReChoice:
    chosen = {k: v for k, v in knobs.items() if v is not None}
    return ConvReChoice(task.value, setting, subset, neutral, chosen)


with_convre_setting = gather_options(_convre_options, "convre", _convre_choice)
"""Gives a command the ConvRe task and setting options, as its ``convre: ConvReChoice``."""


def convre_task_of(choice: ConvReChoice, data_dir: Path | None, fallback: bool = True) -> Task:
    """The ConvRe task a command-line choice names (see :func:`relreason.tasks.convre_task`)."""
    from relreason.tasks import convre_task

    return convre_task(
        choice.task,
        choice.setting,
        choice.knobs,
        subset=choice.subset,
        neutral=choice.neutral,
        data_dir=data_dir,
        logprob_fallback=fallback,
    )
