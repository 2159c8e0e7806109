"""The ``relreason run`` command (one subcommand per registered benchmark, and ``--resume``):
evaluate a model end to end. ``sweep``, ``report``, ``compare`` and ``export`` are in
:mod:`relreason.cli.reports`."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from relreason import benchmarks
from relreason.benchmarks.base import Benchmark
from relreason.cli.declared import merged_templates, option_template
from relreason.cli.helptext import benchmark_help
from relreason.cli.options import (
    CommandOptions,
    DataDir,
    RerunChangedOpt,
    gather_options,
    with_params,
)
from relreason.declare import plain
from relreason.errors import ItemsFailedError, UnreadableAnswersError, UsageError
from relreason.models.options import ModelOptions
from relreason.run.plan import Plan, plan_run
from relreason.run.settings import RunSettings


class RunConfig:
    """Everything ``run`` needs besides the task, gathered from the command line by name: the
    command's own options (``command``), the run options' values by their flat names (``run``;
    ``RunOptions`` comes from the plan) and the backend options (:meth:`model_options`)."""

    def __init__(self, **values: Any) -> None:
        given = {name: plain(value) for name, value in values.items()}
        self.command = CommandOptions(**{k: given[k] for k in CommandOptions.model_fields})
        self.run = {k: v for k, v in given.items() if k in RunSettings.model_fields}
        fields = ModelOptions.model_fields
        self._model = {k: v for k, v in given.items() if k in fields and v is not None}

    def model_options(self) -> ModelOptions:
        """The backend options (``timeout`` and ``seed`` from the run's own options)."""
        own = {"timeout": self.run["request_timeout"], "seed": self.run["seed"]}
        return ModelOptions.from_json({**self._model, **own})


_run_options = merged_templates(
    option_template(CommandOptions, only=("model",)),
    option_template(ModelOptions),
    option_template(RunSettings),
    option_template(CommandOptions, only=("rerun_changed", "out", "dry_run", "prices", "data_dir")),
)
"""The options every ``run`` subcommand takes, generated from their declarations: the model,
the backend options (``ModelOptions``), the run options (``RunSettings``), then the command's
own (``CommandOptions``)."""

with_run_options = gather_options(_run_options, "cfg", RunConfig)
"""Gives a command the model and runner options, as its ``cfg: RunConfig``."""


def execute(plan: Plan, cfg: RunConfig) -> None:
    """Run (or dry-run) the planned run as the command line options say; print its summary."""
    say_reading(plan.task)
    command, shown = cfg.command, bool(cfg.run["show_progress"])
    if command.dry_run:
        from relreason.run.cost import dry_run

        typer.echo(str(dry_run(plan.task, plan.model, plan.options, prices_file=command.prices)))
        return
    from relreason.run.progress import loading
    from relreason.run.runner import run_task

    with loading(plan.model, enabled=shown):
        backend = plan.backend()
    announce(plan.out)
    summary = run_task(
        plan.task,
        backend,
        plan.out,
        plan.options,
        model_options=plan.model_options.to_json(),
        data_dir=command.data_dir,
        prices_file=command.prices,
        rerun_changed=command.rerun_changed,
    )
    _finish(summary, plan.out, plan.task.strict, printed=shown, data_dir=command.data_dir)


def say_reading(task: Any) -> None:
    """Print which rules read the answers (ConvRe's ``reading`` note), to stderr."""
    note = task.description.get("reading")
    if note:  # 80 columns, as every other line a run writes to a log
        line = textwrap.fill(f"reading: {note}", 80, subsequent_indent="  ", break_on_hyphens=False)
        typer.echo(line, err=True)


def announce(out: Path) -> None:
    """Print the run folder as a run starts (to stderr, so stdout stays the summary)."""
    typer.echo(f"run folder: {out}", err=True)


def _finish(
    summary: Any, out: Path, strict: bool, printed: bool, data_dir: Path | None = None
) -> None:
    """Print the summary unless the progress display already did; exit 3 when items failed,
    strict mode exits 1 when answers stayed unread."""
    if not printed:
        typer.echo(str(summary))
    if summary.failed:
        from relreason.run.stops import resume_command

        said = summary.extra.get("verdict")
        raise ItemsFailedError(
            (f"{said}\n" if said else "")
            + f"{summary.failed} of {summary.n} item(s) failed; most common error "
            f"({summary.most_common_error_count}x): {summary.most_common_error}\n"
            f"redo them with: {resume_command(out, data_dir)}"
        )
    unreadable = summary.statuses.get("unparseable", 0)
    if strict and unreadable:
        raise UnreadableAnswersError(
            f"{unreadable} output(s) could not be read as an answer (strict mode); "
            f"see the records with status 'unparseable' in {out / 'records.jsonl'}"
        )


def _run_command(bench: Benchmark[Any]) -> Callable[..., None]:
    @with_run_options
    @with_params(bench, reading=True)
    def command(params: Any, *, cfg: RunConfig) -> None:
        plan = plan_run(
            bench,
            params,
            cfg.command.model,
            cfg.model_options(),
            cfg.run,
            data_dir=cfg.command.data_dir,
            permute=cfg.run["permute"],
            epochs=cfg.run["epochs"],
            out=cfg.command.out,
        )
        execute(plan, cfg)

    command.__doc__ = benchmark_help(
        bench, f"Run a model on one {bench.name} setting (default model: the bundled SmolLM2)."
    )
    return command


def _run_main(
    ctx: typer.Context,
    resume: Annotated[
        Path | None, typer.Option("--resume", help="Continue a run folder that was stopped.")
    ] = None,
    rerun_changed: RerunChangedOpt = False,
    data_dir: DataDir = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", hidden=True, help="Refused: the run's selection is fixed."),
    ] = None,
    sample: Annotated[
        int | None,
        typer.Option("--sample", hidden=True, help="Refused: the run's selection is fixed."),
    ] = None,
) -> None:
    """Run a benchmark setting on a model, or continue a stopped run with --resume DIR."""
    for flag, value in (("--limit", limit), ("--sample", sample)):
        if value is None:
            continue
        if resume is not None:
            raise UsageError(
                f"{flag} cannot change on resume: the run's selection is fixed (its manifest "
                "records it); resume without it, or start a new run with --out NEW_FOLDER"
            )
        raise UsageError(
            f"{flag} goes after the benchmark name: relreason run BENCHMARK {flag} {value} ..."
        )
    if ctx.invoked_subcommand is not None:
        if resume is not None:
            raise UsageError("--resume takes a run folder and no benchmark subcommand")
        return
    if resume is None:
        typer.echo(ctx.get_help())
        raise typer.Exit(0)
    from relreason.records import load_manifest
    from relreason.run.runner import resume_run, resume_task

    manifest = load_manifest(resume)
    shown = bool(manifest.options.get("show_progress"))
    task = resume_task(manifest, data_dir, resume)  # every option given, its kept items
    announce(resume)
    summary = resume_run(resume, data_dir=data_dir, task=task, rerun_changed=rerun_changed)
    _finish(summary, resume, task.strict, printed=shown, data_dir=data_dir)


def register_run_commands(app: typer.Typer) -> None:
    """Add ``run``: one subcommand per benchmark, and ``--resume``."""
    run_app = typer.Typer(
        rich_markup_mode=None,
        no_args_is_help=False,
        invoke_without_command=True,
        help="Run a model on a benchmark setting into a run folder (or --resume one).",
    )
    run_app.callback()(_run_main)
    for bench in benchmarks.all_benchmarks():
        run_app.command(bench.name)(_run_command(bench))
    app.add_typer(run_app, name="run")
