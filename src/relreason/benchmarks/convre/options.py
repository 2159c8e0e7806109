"""ConvRe's command-line options: which task and setting (``task_options``) and how answers
are read (``reading_options``). Only the signatures matter; typer reads them."""

from __future__ import annotations

from enum import StrEnum
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


def task_options(
    task: Annotated[ConvReTaskName, typer.Option("--task", help="ConvRe task.")],
    setting: Annotated[
        int | None,
        typer.Option(
            "--setting",
            min=1,
            max=12,
            help="Paper prompt setting 1-12 (the knobs below override its values; default 1).",
            show_default=False,
        ),
    ] = None,
    subset: Annotated[
        bool, typer.Option("--subset", help="The paper's 328-triple subset.")
    ] = False,
    neutral: Annotated[
        bool, typer.Option("--neutral", help="Neutral relation name 'R' (paper Appendix G).")
    ] = False,
    prompt: Annotated[
        str | None,
        typer.Option(
            "--prompt",
            help="Knob: normal | hint | hint+cot (a hint about converse relations; "
            "+cot: and chain of thought).",
            show_default=False,
        ),
    ] = None,
    relation: Annotated[
        str | None,
        typer.Option(
            "--relation",
            help="Knob: normal | converse (the relation as usual, or defined the other way).",
            show_default=False,
        ),
    ] = None,
    n_shot: Annotated[
        int | None,
        typer.Option(
            "--n-shot",
            min=0,
            max=10,
            help="Knob: worked examples before the question (0: zero-shot).",
            show_default=False,
        ),
    ] = None,
    example_type: Annotated[
        str | None,
        typer.Option(
            "--example-type",
            help="Knob: hard | regular (the text variant of the few-shot examples).",
            show_default=False,
        ),
    ] = None,
    text_type: Annotated[
        str | None,
        typer.Option(
            "--text-type",
            help="Knob: hard | regular (the paraphrased or the unaltered test text; which one is "
            "hard differs by task, see the table above).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Holds, in its signature, the options that choose a ConvRe task and setting."""


def reading_options(
    mode: Annotated[
        ConvReMode,
        typer.Option(
            "--mode",
            help="auto: an answer that cannot be read counts as wrong and is reported apart; "
            "strict: such answers are listed and the command exits 1.",
        ),
    ] = ConvReMode.auto,
    logprob_fallback: Annotated[
        bool, typer.Option(help="Read unclear answers from first-token log-probs (Appendix F).")
    ] = True,
    reader: Annotated[
        str,
        typer.Option(
            "--reader",
            help="How answers are read: sound (default), official (the official evaluator's "
            "rule for the model's family) or official:FAMILY (gpt-chat, gpt-text, claude, "
            "llama2, qwen, internlm, flan-t5). Every record is also read by the other one.",
        ),
    ] = "sound",
) -> None:
    """Holds, in its signature, the options that say how ConvRe answers are read."""
