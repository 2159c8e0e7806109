"""The ``relreason run`` command (one subcommand per registered benchmark, and ``--resume``):
evaluate a model end to end. ``sweep``, ``report``, ``compare`` and ``export`` are in
:mod:`relreason.cli.reports`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from relreason import benchmarks
from relreason.benchmarks.base import Benchmark
from relreason.benchmarks.registry import build_recorded
from relreason.cli.helptext import benchmark_help
from relreason.cli.options import (
    Api,
    DataDir,
    LimitOpt,
    PermuteOpt,
    PricesOpt,
    Scoring,
    gather_options,
    with_params,
)
from relreason.errors import ItemsFailedError, UnreadableAnswersError, UsageError
from relreason.models.options import OPTION_HELP, ModelOptions
from relreason.models.registry import DEFAULT_MODEL, SPEC_FORMS, load_backend, refuse_inapplicable
from relreason.run.options import BOUNDS, RunOptions, run_options_from
from relreason.types import Task


class RunConfig:
    """Everything ``run`` needs besides the task, gathered from the command line by name."""

    def __init__(self, **values: Any) -> None:
        self.values = values

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None

    def run_options(self, task: Task) -> RunOptions:
        """The run options (the task's own generation length unless --max-new-tokens)."""
        values = dict(self.values)
        values["scoring"] = self.scoring.value
        values["show_progress"] = self.progress
        return run_options_from(values, task)

    def model_options(self) -> ModelOptions:
        """The backend options (``timeout`` and ``seed`` from the run's own options)."""
        return ModelOptions(
            base_urls=tuple(self.base_urls or ()),
            api=self.api.value,
            chat_template=self.chat_template,
            device=self.device,
            dtype=self.dtype,
            batch_size=self.batch_size,
            threads=self.threads,
            max_model_len=self.max_model_len,
            tensor_parallel_size=self.tensor_parallel_size,
            data_parallel_size=self.data_parallel_size,
            gpu_memory_utilization=self.gpu_memory_utilization,
            enforce_eager=self.enforce_eager,
            timeout=self.request_timeout,
            seed=self.seed,
        )


def _run_options(
    model: Annotated[
        str, typer.Option("--model", "-m", help=" | ".join(SPEC_FORMS))
    ] = DEFAULT_MODEL,
    base_urls: Annotated[
        list[str] | None, typer.Option("--base-url", help=OPTION_HELP["base_urls"])
    ] = None,
    api: Annotated[Api, typer.Option("--api", help=OPTION_HELP["api"])] = Api.chat,
    chat_template: Annotated[
        bool,
        typer.Option(
            help=OPTION_HELP["chat_template"]
            + " Off by default: the model sees the prompt exactly as `relreason prompts`"
            " prints it (the papers' text, byte for byte)."
        ),
    ] = False,
    device: Annotated[str, typer.Option(help=OPTION_HELP["device"])] = "cpu",
    dtype: Annotated[str, typer.Option(help=OPTION_HELP["dtype"])] = "float32",
    batch_size: Annotated[
        int | None, typer.Option(min=1, show_default=False, help=OPTION_HELP["batch_size"])
    ] = None,
    threads: Annotated[
        int | None, typer.Option(min=1, show_default=False, help=OPTION_HELP["threads"])
    ] = None,
    max_model_len: Annotated[
        int | None, typer.Option(min=2, show_default=False, help=OPTION_HELP["max_model_len"])
    ] = None,
    tensor_parallel_size: Annotated[
        int, typer.Option(min=1, help=OPTION_HELP["tensor_parallel_size"])
    ] = 1,
    data_parallel_size: Annotated[
        int, typer.Option(min=1, help=OPTION_HELP["data_parallel_size"])
    ] = 1,
    gpu_memory_utilization: Annotated[
        float | None,
        typer.Option(
            min=0.01, max=1.0, show_default=False, help=OPTION_HELP["gpu_memory_utilization"]
        ),
    ] = None,
    enforce_eager: Annotated[
        bool, typer.Option("--enforce-eager", help=OPTION_HELP["enforce_eager"])
    ] = False,
    scoring: Annotated[
        Scoring,
        typer.Option(
            "--scoring",
            help="generate: the model writes its answer and it is read from the text (as in "
            "the papers); logprob: the log-likelihood of each choice letter after the prompt.",
        ),
    ] = Scoring.generate,
    max_new_tokens: Annotated[
        int | None,
        typer.Option(
            **BOUNDS["max_new_tokens"].typer_args(),
            help="Default: the setting's own (32, or 256 for CoT).",
        ),
    ] = None,
    temperature: Annotated[
        float,
        typer.Option(
            **BOUNDS["temperature"].typer_args(),
            help="Sampling temperature (0: greedy, as in the papers).",
        ),
    ] = 0.0,
    top_logprobs: Annotated[
        int,
        typer.Option(
            **BOUNDS["top_logprobs"].typer_args(),
            help="Alternatives kept for the first generated token (in records).",
        ),
    ] = 5,
    concurrency: Annotated[
        int,
        typer.Option(
            **BOUNDS["concurrency"].typer_args(),
            help="Requests (or local batches) in flight at once.",
        ),
    ] = 8,
    requests_per_minute: Annotated[
        float | None, typer.Option("--rpm", "--requests-per-minute", help="Requests per minute.")
    ] = None,
    tokens_per_minute: Annotated[
        float | None, typer.Option("--tpm", "--tokens-per-minute", help="Tokens per minute.")
    ] = None,
    max_retries: Annotated[
        int,
        typer.Option(
            **BOUNDS["max_retries"].typer_args(),
            help="Retries of a request that failed transiently (429, 5xx, time-out), "
            "with backoff; then the item is recorded as failed.",
        ),
    ] = 6,
    request_timeout: Annotated[
        float, typer.Option(**BOUNDS["request_timeout"].typer_args(), help=OPTION_HELP["timeout"])
    ] = 60.0,
    max_wait: Annotated[
        float,
        typer.Option(
            **BOUNDS["max_wait"].typer_args(),
            help="Longest single wait in s (Retry-After, rate limits).",
        ),
    ] = 120.0,
    max_answer_chars: Annotated[
        int,
        typer.Option(
            **BOUNDS["max_answer_chars"].typer_args(),
            help="Longer answers are cut and their item recorded as failed.",
        ),
    ] = 200_000,
    use_cache: Annotated[
        bool,
        typer.Option(
            "--cache/--no-cache",
            help="Reuse and store responses in the response cache "
            "($RELREASON_CACHE_DIR/cache.sqlite3).",
        ),
    ] = True,
    refresh: Annotated[
        bool,
        typer.Option(
            "--refresh",
            help="Ask the model again even when the cache has an answer (and store it).",
        ),
    ] = False,
    limit: LimitOpt = None,
    permute: PermuteOpt = None,
    sample: Annotated[
        int | None,
        typer.Option(
            "--sample",
            **BOUNDS["sample"].typer_args(),
            show_default=False,
            help="A seeded sample of N items, stratified by relation/category (partial run).",
        ),
    ] = None,
    rerun_changed: Annotated[
        bool,
        typer.Option(
            "--rerun-changed", help="Start the run folder again if its items or model changed."
        ),
    ] = False,
    seed: Annotated[
        int,
        typer.Option(help="Seed of the retry jitter and of sampling, where a backend takes one."),
    ] = 0,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Run folder (default: runs/<task>-<model>-<time>)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Estimate requests, tokens, cost.")
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress display.")] = True,
    prices: PricesOpt = None,
    data_dir: DataDir = None,
) -> None:
    """Holds, in its signature, the options every ``run`` subcommand takes (never called)."""


with_run_options = gather_options(_run_options, "cfg", RunConfig)
"""Gives a command the model and runner options, as its ``cfg: RunConfig``."""


def _default_out(task: Task, model: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in f"{task.name}-{model}")
    return Path("runs") / f"{safe}-{stamp}"


def execute(task: Task, cfg: RunConfig) -> None:
    """Run (or dry-run) ``task`` as the command line options say; print its summary."""
    options = cfg.run_options(task)
    options.validate()
    model_options = cfg.model_options()
    refuse_inapplicable(cfg.model, model_options)
    if cfg.dry_run:
        from relreason.run.cost import dry_run

        typer.echo(str(dry_run(task, cfg.model, options, prices_file=cfg.prices)))
        return
    from relreason.run.progress import loading
    from relreason.run.runner import run_task

    with loading(cfg.model, enabled=cfg.progress):
        backend = load_backend(cfg.model, model_options)
    out = cfg.out or _default_out(task, cfg.model)
    announce(out)
    summary = run_task(
        task,
        backend,
        out,
        options,
        model_options=model_options.to_json(),
        data_dir=cfg.data_dir,
        prices_file=cfg.prices,
        rerun_changed=cfg.rerun_changed,
    )
    _finish(summary, out, task.strict, printed=cfg.progress, data_dir=cfg.data_dir)


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


def _run_command(bench: Benchmark) -> Callable[..., None]:
    @with_run_options
    @with_params(bench, reading=True)
    def command(params: Any, *, cfg: RunConfig) -> None:
        from relreason.benchmarks.registry import permuted

        params = bench.for_model(params, cfg.model, cfg.api.value)
        execute(permuted(build_recorded(bench, params, cfg.data_dir), cfg.permute), cfg)

    command.__doc__ = benchmark_help(
        bench, f"Run a model on one {bench.name} setting (default model: the bundled SmolLM2)."
    )
    return command


def _run_main(
    ctx: typer.Context,
    resume: Annotated[
        Path | None, typer.Option("--resume", help="Continue a run folder that was stopped.")
    ] = None,
    rerun_changed: Annotated[
        bool,
        typer.Option(
            "--rerun-changed", help="With --resume: start again if its items or model changed."
        ),
    ] = False,
    data_dir: DataDir = None,
) -> None:
    """Run a benchmark setting on a model, or continue a stopped run with --resume DIR."""
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
    task = resume_task(manifest, data_dir)  # every option the run was given, --mode included
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
