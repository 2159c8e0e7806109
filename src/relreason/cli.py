"""The ``relreason`` command line: a thin layer over the public functions."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from relreason import tasks
from relreason.cli_options import (
    ConvReChoice,
    ConvReMode,
    DataDir,
    ExemplarsOpt,
    LanguageOpt,
    LimitOpt,
    McrMode,
    MethodOpt,
    convre_task_of,
    with_convre_setting,
)
from relreason.errors import RelreasonError, UnreadableAnswersError
from relreason.types import Task

app = typer.Typer(
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Measure how well language models reason about relations (ConvRe and MCR).",
)
prompts_app = typer.Typer(no_args_is_help=True, help="Print a setting's prompts as JSON lines.")
score_app = typer.Typer(no_args_is_help=True, help="Score model outputs you already have.")
app.add_typer(prompts_app, name="prompts")
app.add_typer(score_app, name="score")

err = Console(stderr=True)


def _write_jsonl(rows: Iterable[dict[str, Any]]) -> None:
    out = sys.stdout
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")


def _prompt_rows(task: Task, limit: int | None) -> Iterable[dict[str, Any]]:
    items = task.items if limit is None else task.items[:limit]
    for item in items:
        yield {
            "index": item.index,
            "item_id": item.item_id,
            "prompt": item.prompt,
            "gold": item.gold,
            "choices": dict(zip(item.choices, item.choice_texts, strict=True)),
            "labels": dict(item.labels),
        }


@prompts_app.command("convre")
@with_convre_setting
def prompts_convre(
    convre: ConvReChoice,
    limit: LimitOpt = None,
    data_dir: DataDir = None,
) -> None:
    """Print ConvRe prompts: one JSON object per line with index, prompt and gold."""
    _write_jsonl(_prompt_rows(convre_task_of(convre, data_dir), limit))


@prompts_app.command("mcr")
def prompts_mcr(
    language: LanguageOpt,
    method: MethodOpt,
    exemplars: ExemplarsOpt = None,
    limit: LimitOpt = None,
    data_dir: DataDir = None,
) -> None:
    """Print MCR prompts: one JSON object per line with index, prompt and gold."""
    built = tasks.mcr_task(language, method, data_dir=data_dir, exemplars=exemplars)
    _write_jsonl(_prompt_rows(built, limit))


ResponsesOpt = Annotated[
    Path, typer.Option("--responses", help="JSON lines: {index, output[, logprobs]}.")
]
OutOpt = Annotated[Path, typer.Option("--out", help="Where to write the scored JSON lines.")]


def _score_and_report(task: Task, responses_path: Path, out: Path, strict: bool) -> None:
    from relreason.responses_file import read_responses, score_responses
    from relreason.results import atomic_write_text, format_summary, record_line, summarize

    responses = read_responses(responses_path, len(task.items))
    records = score_responses(task, responses)
    atomic_write_text(out, "".join(record_line(r) for r in records))
    summary = summarize(
        records,
        out_dir=out,
        task=task.name,
        model=str(responses_path),
        cost_usd=None,
        complete=len(records) == len(task.items),
        group_by=task.group_by or None,
    )
    typer.echo(format_summary(summary))
    unreadable = [r for r in records if r["status"] == "unparseable"]
    if strict and unreadable:
        for record in unreadable[:50]:
            shown = escape(repr(record["output"]))
            err.print(f"[yellow]unreadable[/] index {record['index']}: {shown}", highlight=False)
        raise UnreadableAnswersError(
            f"{len(unreadable)} output(s) could not be read as an answer (strict mode); "
            f"they are listed above and marked 'unparseable' in {out}"
        )


@score_app.command("convre")
@with_convre_setting
def score_convre(
    convre: ConvReChoice,
    responses: ResponsesOpt,
    out: OutOpt,
    mode: Annotated[ConvReMode, typer.Option("--mode")] = ConvReMode.auto,
    logprob_fallback: Annotated[
        bool, typer.Option(help="Read unclear answers from first-token log-probs (Appendix F).")
    ] = True,
    data_dir: DataDir = None,
) -> None:
    """Score ConvRe outputs; exits 1 in strict mode when some cannot be read."""
    built = convre_task_of(convre, data_dir, logprob_fallback)
    _score_and_report(built, responses, out, strict=mode is ConvReMode.strict)


@score_app.command("mcr")
def score_mcr(
    language: LanguageOpt,
    method: MethodOpt,
    responses: ResponsesOpt,
    out: OutOpt,
    mode: Annotated[McrMode, typer.Option("--mode")] = McrMode.robust,
    exemplars: ExemplarsOpt = None,
    data_dir: DataDir = None,
) -> None:
    """Score MCR outputs with the paper's letter rule or the robust reader."""
    built = tasks.mcr_task(
        language, method, mode=mode.value, data_dir=data_dir, exemplars=exemplars
    )
    _score_and_report(built, responses, out, strict=False)


@app.command("download")
def download(
    which: Annotated[str, typer.Argument(help="convre | mcr | all")],
    dest: Annotated[
        Path | None, typer.Option("--dest", help="Folder to fill (default: the cache).")
    ] = None,
    mirror: Annotated[
        str | None,
        typer.Option("--mirror", envvar="RELREASON_MIRROR", help="Base URL of a data mirror."),
    ] = None,
) -> None:
    """Fetch the official data at pinned commits, verified by SHA-256."""
    from relreason.sources import download as fetch

    paths = fetch(which, dest, mirror=mirror)
    typer.echo(f"{len(paths)} file(s) ready")
    for path in paths:
        typer.echo(f"  {path}")


def _register_run_commands() -> None:
    from relreason.cli_run import register

    register(app)


_register_run_commands()


def main(argv: list[str] | None = None) -> None:
    """Run the command line; user errors print one message (no traceback) and exit non-zero."""
    try:
        app(args=argv)
    except RelreasonError as error:
        err.print(f"[red]error:[/] {escape(str(error))}", highlight=False)
        raise SystemExit(error.exit_code) from None
