"""MCR's command-line options: which language and method (``task_options``) and how answers
are read (``reading_options``). Only the signatures matter; typer reads them."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class McrMode(StrEnum):
    """How MCR answers are read."""

    robust = "robust"
    paper = "paper"


def task_options(
    language: Annotated[
        str, typer.Option("--language", help="en zh fr ja ko (or english, chinese, ...).")
    ],
    method: Annotated[
        str, typer.Option("--method", help="zs | zsc | fs | fs-english | fs-multilingual")
    ],
    exemplars: Annotated[
        Path | None,
        typer.Option("--exemplars", help="Your own exemplar file (same keys as the official one)."),
    ] = None,
) -> None:
    """Holds, in its signature, the options that choose an MCR language and method."""


def reading_options(
    mode: Annotated[
        McrMode,
        typer.Option(
            "--mode",
            help="robust: a sound reader of explicit answers in five languages; paper: the "
            "official rule (the first capital A-G anywhere in the output).",
        ),
    ] = McrMode.robust,
    cleanup_model: Annotated[
        str | None,
        typer.Option(
            "--cleanup-model",
            help="Paper reading: ask this model (a model spec) the official clean-up question "
            "where the paper's rule finds no letter or several, as the paper did "
            "(it used openai:gpt-4o-mini-2024-07-18).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Holds, in its signature, the options that say how MCR answers are read."""
