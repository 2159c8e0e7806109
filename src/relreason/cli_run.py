"""The ``relreason run`` and ``relreason sweep`` commands: evaluate a model end to end."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from relreason import tasks
from relreason.cli_options import (
    Api,
    ConvReChoice,
    ConvReMode,
    DataDir,
    ExemplarsOpt,
    LanguageOpt,
    LimitOpt,
    McrMode,
    MethodOpt,
    Scoring,
    convre_task_of,
    gather_options,
    with_convre_setting,
)
from relreason.errors import UnreadableAnswersError, UsageError
from relreason.models.registry import DEFAULT_MODEL, ModelOptions, load_backend
from relreason.types import GenerationParams, Task

run_app = typer.Typer(
    no_args_is_help=False,
    invoke_without_command=True,
    help="Run a model on a benchmark setting into a run folder (or --resume one).",
)

ModelOpt = Annotated[
    str,
    typer.Option(
        "--model",
        "-m",
        help="smollm2 | hf:PATH | openai:MODEL | anthropic:MODEL | random[:SEED] | first | oracle",
    ),
]
BaseUrlOpt = Annotated[
    list[str] | None,
    typer.Option("--base-url", help="Server URL; repeat to spread over several servers."),
]
PricesOpt = Annotated[
    Path | None,
    typer.Option("--prices", envvar="RELREASON_PRICES", help="Your price table (YAML/JSON)."),
]
OutDirOpt = Annotated[
    Path | None, typer.Option("--out", help="Run folder (default: runs/<task>-<model>-<time>).")
]


class RunConfig:
    """Everything ``run`` needs besides the task, gathered from the command line."""

    def __init__(self, **values: Any) -> None:
        self.values = values

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None


def _run_options(cfg: RunConfig, task: Task) -> Any:
    from relreason.runner import RunOptions

    params = GenerationParams(
        max_new_tokens=cfg.max_new_tokens or task.max_new_tokens,
        temperature=cfg.temperature,
        top_logprobs=cfg.top_logprobs,
        seed=cfg.seed,
    )
    return RunOptions(
        scoring=cfg.scoring.value,
        params=params,
        concurrency=cfg.concurrency,
        requests_per_minute=cfg.rpm,
        tokens_per_minute=cfg.tpm,
        max_retries=cfg.max_retries,
        request_timeout=cfg.request_timeout,
        use_cache=not cfg.no_cache,
        refresh=cfg.refresh,
        limit=cfg.limit,
        show_progress=cfg.progress,
        seed=cfg.seed,
    )


def _model_options(cfg: RunConfig) -> ModelOptions:
    return ModelOptions(
        base_urls=tuple(cfg.base_url or ()),
        api=cfg.api.value,
        chat_template=cfg.chat_template,
        device=cfg.device,
        dtype=cfg.dtype,
        batch_size=cfg.batch_size,
        timeout=cfg.request_timeout,
        seed=cfg.seed,
    )


def _default_out(task: Task, model: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in f"{task.name}-{model}")
    return Path("runs") / f"{safe}-{stamp}"


def _execute(task: Task, cfg: RunConfig, strict: bool) -> None:
    options = _run_options(cfg, task)
    if cfg.dry_run:
        from relreason.cost import dry_run

        report = dry_run(task, cfg.model, options, prices_file=cfg.prices)
        typer.echo(str(report))
        return
    from relreason.runner import run_task

    backend = load_backend(cfg.model, _model_options(cfg))
    out = cfg.out or _default_out(task, cfg.model)
    summary = run_task(
        task,
        backend,
        out,
        options,
        model_options=_model_options(cfg).to_json(),
        data_dir=cfg.data_dir,
        prices_file=cfg.prices,
    )
    _finish(summary, out, strict, printed=cfg.progress)


def _finish(summary: Any, out: Path, strict: bool, printed: bool) -> None:
    """Print the summary unless the progress display already did; strict mode exits 1."""
    if not printed:
        typer.echo(str(summary))
    unreadable = summary.statuses.get("unparseable", 0)
    if strict and unreadable:
        raise UnreadableAnswersError(
            f"{unreadable} output(s) could not be read as an answer (strict mode); "
            f"see the records with status 'unparseable' in {out / 'records.jsonl'}"
        )


def register(app: typer.Typer) -> None:
    """Add ``run`` (its ``convre`` and ``mcr`` subcommands), ``sweep``, ``report``, ``compare``."""
    app.add_typer(run_app, name="run")
    app.command("sweep")(sweep)
    app.command("report")(report)
    app.command("compare")(compare)


@run_app.callback()
def run_main(
    ctx: typer.Context,
    resume: Annotated[
        Path | None, typer.Option("--resume", help="Continue a run folder that was stopped.")
    ] = None,
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
    from relreason.runner import resume_run

    summary = resume_run(resume, data_dir=data_dir)
    _finish(summary, resume, strict=False, printed=True)


def _shared_run_options(
    model: ModelOpt = DEFAULT_MODEL,
    base_url: BaseUrlOpt = None,
    api: Annotated[Api, typer.Option("--api")] = Api.chat,
    chat_template: Annotated[bool, typer.Option(help="Wrap prompts in the chat template.")] = False,
    device: Annotated[str, typer.Option(help="cpu | cuda")] = "cpu",
    dtype: Annotated[str, typer.Option(help="float32 | bfloat16 | float16")] = "float32",
    batch_size: Annotated[int | None, typer.Option(min=1, show_default=False)] = None,
    scoring: Annotated[Scoring, typer.Option("--scoring")] = Scoring.generate,
    max_new_tokens: Annotated[
        int | None, typer.Option(min=1, help="Default: the setting's own (32, or 256 for CoT).")
    ] = None,
    temperature: Annotated[float, typer.Option(min=0.0)] = 0.0,
    top_logprobs: Annotated[int, typer.Option(min=0, max=20)] = 5,
    concurrency: Annotated[int, typer.Option(min=1)] = 8,
    rpm: Annotated[float | None, typer.Option(help="Requests per minute.")] = None,
    tpm: Annotated[float | None, typer.Option(help="Tokens per minute.")] = None,
    max_retries: Annotated[int, typer.Option(min=0)] = 6,
    request_timeout: Annotated[float, typer.Option(min=0.1)] = 60.0,
    no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
    refresh: Annotated[bool, typer.Option("--refresh")] = False,
    limit: LimitOpt = None,
    seed: int = 0,
    out: OutDirOpt = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Estimate requests, tokens, cost.")
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress display.")] = True,
    prices: PricesOpt = None,
    data_dir: DataDir = None,
) -> None:
    """Holds, in its signature, the options every ``run`` subcommand takes (never called)."""


with_run_options = gather_options(_shared_run_options, "cfg", RunConfig)
"""Gives a command the model and runner options, as its ``cfg: RunConfig``."""


@run_app.command("convre")
@with_run_options
@with_convre_setting
def run_convre(
    convre: ConvReChoice,
    mode: Annotated[ConvReMode, typer.Option("--mode")] = ConvReMode.auto,
    logprob_fallback: Annotated[bool, typer.Option(help="Appendix F log-prob fallback.")] = True,
    *,
    cfg: RunConfig,
) -> None:
    """Run a model on one ConvRe setting (default model: the bundled SmolLM2)."""
    built = convre_task_of(convre, cfg.data_dir, logprob_fallback)
    _execute(built, cfg, strict=mode is ConvReMode.strict)


@run_app.command("mcr")
@with_run_options
def run_mcr(
    language: LanguageOpt,
    method: MethodOpt,
    mode: Annotated[McrMode, typer.Option("--mode")] = McrMode.robust,
    exemplars: ExemplarsOpt = None,
    *,
    cfg: RunConfig,
) -> None:
    """Run a model on one MCR language and method (default model: the bundled SmolLM2)."""
    built = tasks.mcr_task(
        language, method, mode=mode.value, data_dir=cfg.data_dir, exemplars=exemplars
    )
    _execute(built, cfg, strict=False)


def sweep(
    file: Annotated[Path, typer.Argument(help="YAML sweep: models x benchmarks x settings.")],
    data_dir: DataDir = None,
    progress: Annotated[bool, typer.Option(help="Show a progress display.")] = True,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Estimate requests, tokens and cost of every run.")
    ] = False,
    prices: PricesOpt = None,
) -> None:
    """Run every run of a sweep file that is not complete yet, then print the results table."""
    if dry_run:
        _sweep_dry_run(file, data_dir, prices)
        return
    from relreason.sweep import run_sweep

    result = run_sweep(file, data_dir=data_dir, show_progress=progress)
    typer.echo(str(result))


def _sweep_dry_run(file: Path, data_dir: Path | None, prices: Path | None) -> None:
    """Print the dry-run estimate of each run of a sweep and their total."""
    from relreason.cost import dry_run
    from relreason.run_options import with_task_length
    from relreason.sweep import load_sweep, plan_sweep

    sweep_file = load_sweep(file)
    options = sweep_file.options.run_options(show_progress=False)
    requests = input_tokens = output_tokens = 0
    cost: float | None = 0.0
    for run in plan_sweep(sweep_file, path=file, data_dir=data_dir):
        run_options = options
        if sweep_file.options.max_new_tokens is None:
            run_options = with_task_length(options, run.task)
        report = dry_run(run.task, run.model.spec, run_options, prices_file=prices)
        typer.echo(str(report))
        requests += report.requests
        input_tokens += report.input_tokens
        output_tokens += report.output_tokens
        cost = None if cost is None or report.cost_usd is None else cost + report.cost_usd
    total = "unknown (a model has no price)" if cost is None else f"${cost:.2f}"
    typer.echo(
        f"total: {requests} requests, ~{input_tokens} input tokens, "
        f"<= {output_tokens} output tokens, estimated cost {total}"
    )


def report(
    folder: Annotated[Path, typer.Argument(help="A sweep's out folder (or any folder of runs).")],
    compare: Annotated[
        list[str] | None,
        typer.Option(
            "--compare",
            help="SPEC=PAPER_MODEL: set a model's results beside a paper model's figures, "
            "e.g. --compare openai:gpt-4=gpt-4",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON rows.")] = False,
) -> None:
    """Tabulate finished runs, beside the papers' published figures for the same cells."""
    import json

    from relreason.sweep import beside_paper, collect, format_rows

    mapping: dict[str, str] = {}
    for pair in compare or []:
        spec, sep, paper_model = pair.rpartition("=")
        if not sep or not spec or not paper_model:
            raise UsageError(f"--compare takes SPEC=PAPER_MODEL, got {pair!r}")
        mapping[spec] = paper_model
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder")
    rows = beside_paper(collect(folder), mapping)
    if not rows:
        raise UsageError(f"no run folders (with a manifest.json) under {folder}")
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row, ensure_ascii=False))
        return
    typer.echo(format_rows(rows))


def compare(
    run_a: Annotated[Path, typer.Argument(help="A run folder.")],
    run_b: Annotated[Path, typer.Argument(help="Another run folder of the same task.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Compare two runs item by item: 2x2 table, answer agreement, McNemar's exact test."""
    import json

    from relreason.compare import compare_runs

    result = compare_runs(run_a, run_b)
    typer.echo(json.dumps(result.to_json()) if as_json else str(result))
