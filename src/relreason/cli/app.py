"""The ``relreason`` command line: a thin typer layer over the public functions.

The app is built from the benchmark registry each time (:func:`build_app`): every registered
benchmark gets ``prompts NAME``, ``score NAME`` and ``run NAME`` with its own options.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from relreason import benchmarks
from relreason.benchmarks.base import Benchmark
from relreason.cli.helptext import (
    benchmark_help,
    command_group,
    readable_metavars,
    show_help_without_command,
)
from relreason.cli.options import DataDir, LimitOpt, PermuteOpt, with_params
from relreason.errors import InterruptedRunError, RelreasonError, UnreadableAnswersError
from relreason.types import Task
from relreason.version import __version__

if TYPE_CHECKING:
    from relreason.records import Record

err = Console(stderr=True, soft_wrap=True)
"""Errors go here; soft wrapping: a long URL or path is never broken by an inserted newline."""

ResponsesOpt = Annotated[
    Path,
    typer.Option(
        "--responses",
        help="JSON lines: {index, output[, second_output, logprobs, choice_logprobs]}, or a "
        "run's records.jsonl (read with that run's model family).",
    ),
]
OutOpt = Annotated[Path, typer.Option("--out", help="Where to write the scored JSON lines.")]


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


def _prompts_command(bench: Benchmark[Any]) -> Callable[..., None]:
    @with_params(bench, reading=False)
    def command(
        params: Any, limit: LimitOpt = None, permute: PermuteOpt = None, data_dir: DataDir = None
    ) -> None:
        from relreason.benchmarks.registry import permuted

        _write_jsonl(_prompt_rows(permuted(bench.build_task(params, data_dir), permute), limit))

    command.__doc__ = (
        f"Print {bench.name} prompts: one JSON object per line with index, prompt, gold."
    )
    return command


def _score_command(bench: Benchmark[Any]) -> Callable[..., None]:
    @with_params(bench, reading=True)
    def command(
        params: Any,
        responses: ResponsesOpt,
        out: OutOpt,
        permute: PermuteOpt = None,
        data_dir: DataDir = None,
    ) -> None:
        from relreason.benchmarks.registry import permuted

        params = _as_the_run_did(bench, params, responses)
        from relreason.cli.run import say_reading

        task = permuted(bench.build_task(params, data_dir), permute)
        say_reading(task)
        _score_and_report(task, responses, out, strict=task.strict)

    command.__doc__ = (
        f"Score {bench.name} outputs you already have (strict mode exits 1 when some "
        "cannot be read)."
    )
    return command


def _as_the_run_did(bench: Benchmark[Any], params: Any, responses: Path) -> Any:
    """``params`` for the model of the run folder holding ``responses`` (its
    ``records.jsonl``), so that ``score`` reads as the run did (e.g. ConvRe's official rule of
    that model's family); unchanged for a file outside a run folder of this benchmark."""
    from relreason.records import is_run_folder, load_manifest

    folder = responses.parent
    if not is_run_folder(folder):
        return params
    try:
        manifest = load_manifest(folder)
    except RelreasonError:
        return params
    if manifest.benchmark != bench.name:
        return params
    return bench.for_model(params, manifest.spec, str(manifest.model.options.get("api") or "chat"))


def _score_and_report(task: Task, responses_path: Path, out: Path, strict: bool) -> None:
    from relreason.files import atomic_write_text
    from relreason.records import format_summary, record_line, summarize
    from relreason.records.responses import read_responses, score_responses
    from relreason.run.context import task_context
    from relreason.run.verdict import verdict

    responses = read_responses(responses_path, len(task.items))
    records = score_responses(task, responses)
    if task.follow_up is not None:
        records = _follow_up_scored(task, records)
    atomic_write_text(out, "".join(record_line(r.to_json()) for r in records))
    summary = summarize(
        records,
        out_dir=out,
        task=task.name,
        model=str(responses_path),
        cost_usd=None,
        complete=len(records) == len(task.items),
        group_by=task.group_by or None,
    )
    summary.context = task_context(task, records)
    summary.out_is_file = True
    if task.description.get("reading"):
        summary.extra["reading"] = task.description["reading"]
    said = verdict(summary, None, None)
    if said is not None:
        summary.extra["verdict"] = said
    typer.echo(format_summary(summary))
    unreadable = [r for r in records if r.status == "unparseable"]
    if strict and unreadable:
        for record in unreadable[:50]:
            shown = escape(repr(record.output))
            err.print(f"[yellow]unreadable[/] index {record.index}: {shown}", highlight=False)
        raise UnreadableAnswersError(
            f"{len(unreadable)} output(s) could not be read as an answer (strict mode); "
            f"they are listed above and marked 'unparseable' in {out}"
        )


def _follow_up_scored(task: Task, records: list[Record]) -> list[Record]:
    """``records`` after asking the task's follow-up model (MCR ``--cleanup-model``) about
    the open readings."""
    import asyncio

    from relreason.run.follow_up import follow_up_with_model
    from relreason.run.options import RunOptions

    by_index = {r.index: r for r in records}
    asyncio.run(follow_up_with_model(task, by_index, RunOptions(), None))
    return [by_index[i] for i in sorted(by_index)]


def download(
    which: Annotated[str, typer.Argument(help="a benchmark name, or all")],
    dest: Annotated[
        Path | None, typer.Option("--dest", help="Folder to fill (default: the cache).")
    ] = None,
    mirror: Annotated[
        str | None,
        typer.Option("--mirror", envvar="RELREASON_MIRROR", help="Base URL of a data mirror."),
    ] = None,
) -> None:
    """Fetch the official data at pinned commits, verified by SHA-256."""
    from relreason.data.download import download_files

    paths = download_files(benchmarks.data_files(which), dest, mirror=mirror)
    typer.echo(f"{len(paths)} file(s) ready")
    for path in paths:
        typer.echo(f"  {path}")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"relreason {__version__}")
        raise typer.Exit(0)


def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Measure how well language models reason about relations (ConvRe, MCR and more)."""
    show_help_without_command(ctx)


def build_app() -> typer.Typer:
    """Return the command line for the benchmarks registered now."""
    from relreason.cli.bridges import register_bridge_commands
    from relreason.cli.cache_cmd import cache_app
    from relreason.cli.generate_cmd import generate_app
    from relreason.cli.listing import list_command
    from relreason.cli.reports import compare, export, report, sweep
    from relreason.cli.run import register_run_commands
    from relreason.cli.translate import translate_command
    from relreason.cli.view_cmd import view

    app = typer.Typer(
        rich_markup_mode=None,  # plain help: full option names at 80 columns, flags as flags
        invoke_without_command=True,
        pretty_exceptions_enable=False,
        help="Measure how well language models reason about relations (ConvRe, MCR and more).",
    )
    app.callback()(_root)
    prompts_app = command_group("Print a setting's prompts as JSON lines.")
    score_app = command_group("Score model outputs you already have.")
    for bench in benchmarks.all_benchmarks():
        prompts_app.command(bench.name, help=benchmark_help(bench, bench.title))(
            _prompts_command(bench)
        )
        score_app.command(bench.name, help=benchmark_help(bench, bench.title))(
            _score_command(bench)
        )
    app.add_typer(prompts_app, name="prompts")
    app.add_typer(score_app, name="score")
    app.command("download")(download)
    app.command("list")(list_command)
    app.add_typer(cache_app, name="cache")
    register_run_commands(app)
    app.command("sweep")(sweep)
    app.command("report")(report)
    app.command("compare")(compare)
    app.command("export")(export)
    app.command("view")(view)
    app.add_typer(generate_app, name="generate")
    app.command("translate")(translate_command)
    register_bridge_commands(app)
    return app


def main(argv: list[str] | None = None) -> None:
    """Run the command line; user errors print one message (no traceback) and exit non-zero.

    After a Ctrl-C or SIGTERM (``relreason.cli.stops.stop_requested``), whatever error the
    interrupted work ended in (a half-imported library, typer's own exit 130) is reported as
    the stop it was: one ``stopped:`` line, exit 130."""
    from relreason.cli.stops import stop_requested

    try:
        if not sys.stderr.isatty():
            from relreason.run.progress import quiet_library_bars

            quiet_library_bars()  # their \r-updated bars would be one long line in a log
        command = typer.main.get_command(build_app())
        readable_metavars(command)
        command(args=argv, prog_name="relreason")
    except InterruptedRunError as error:
        from relreason.run.budget import BudgetReachedError

        # a budget's stop is a clean one: no thread is left working to abandon
        clean = isinstance(error, BudgetReachedError)
        fail(str(error), error.exit_code, interrupted=True, abandon=not clean)
    except (KeyboardInterrupt, RelreasonError, OSError, RecursionError) as error:
        if stop_requested() or isinstance(error, KeyboardInterrupt):
            fail("interrupted", InterruptedRunError.exit_code, interrupted=True)
        _report(error)
    except SystemExit as done:  # typer turns a KeyboardInterrupt into a silent exit 130
        if done.code == InterruptedRunError.exit_code or (done.code and stop_requested()):
            fail("interrupted", InterruptedRunError.exit_code, interrupted=True)
        raise


def _report(error: BaseException) -> NoReturn:
    """One line for an error of the user's input or machine."""
    if isinstance(error, RelreasonError):
        fail(str(error), error.exit_code, interrupted=False)
    if isinstance(error, OSError):  # a disk or permission error outside the run's own writes
        where = f" {error.filename}" if error.filename else ""
        fail(f"cannot access{where}: {error.strerror or error}", 2, interrupted=False)
    fail("input nested too deeply to read", 2, interrupted=False)


def fail(message: str, code: int, *, interrupted: bool, abandon: bool | None = None) -> NoReturn:
    """Print one error line (secrets scrubbed) and exit with ``code``; after an interrupt
    (unless ``abandon`` is False), threads still busy (a local model's batch) are abandoned
    rather than waited for."""
    from relreason.redact import scrub_secrets

    label = "[yellow]stopped:[/]" if interrupted else "[red]error:[/]"
    err.print(f"{label} {escape(scrub_secrets(message))}", highlight=False, soft_wrap=True)
    if (interrupted if abandon is None else abandon) and threading.active_count() > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code) from None
