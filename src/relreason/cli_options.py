"""Command-line option types shared by the ``prompts``, ``score`` and ``run`` commands."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


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
