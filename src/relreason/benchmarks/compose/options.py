"""Compose's command-line options: which language, method and file (``task_options``) and how
answers are read (``reading_options``, MCR's). Only the signatures matter; typer reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from relreason.benchmarks.mcr.options import reading_options

__all__ = ["reading_options", "task_options"]


def task_options(
    language: Annotated[
        str | None,
        typer.Option(
            "--language",
            help="en zh fr ja ko (default: the file's language, or en for the bundled set).",
        ),
    ] = None,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="zs | zsc | fs | fs-english | fs-multilingual (exemplars are generated).",
        ),
    ] = "zs",
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            help="A file from 'relreason generate compose' (default: the bundled set).",
        ),
    ] = None,
) -> None:
    """Holds, in its signature, the options that choose a compose set, language and method."""
