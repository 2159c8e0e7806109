"""The ``relreason sweep``, ``report``, ``compare`` and ``export`` commands."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from relreason.cli.options import DataDir, DryRunOpt, PricesOpt, ProgressOpt, RerunChangedOpt
from relreason.errors import ItemsFailedError, UsageError

if TYPE_CHECKING:
    from relreason.report.report import Report


def sweep(
    file: Annotated[Path, typer.Argument(help="YAML sweep: models x benchmarks x settings.")],
    data_dir: DataDir = None,
    show_progress: ProgressOpt = True,
    dry_run: DryRunOpt = False,
    prices: PricesOpt = None,
    rerun_changed: RerunChangedOpt = False,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="ADDRESS",
            help="Run each cell as a task on a Ray cluster: auto (the cluster this machine "
            "belongs to), ray://HOST:10001, or local (start one here). Needs the 'ray' extra.",
        ),
    ] = None,
    ray_logs: Annotated[
        bool,
        typer.Option(
            "--ray-logs", help="With --ray: show the workers' output (loading bars, logs) here."
        ),
    ] = False,
) -> None:
    """Run every run of a sweep file that is not complete yet, then print the results table
    (exit 3 when some items failed)."""
    if dry_run:
        _sweep_dry_run(file, data_dir, prices)
        return
    from relreason.run.sweep import run_sweep

    result = run_sweep(
        file,
        data_dir=data_dir,
        show_progress=show_progress,
        rerun_changed=rerun_changed,
        ray=ray,
        ray_logs=ray_logs,
    )
    typer.echo(str(result))
    failed = sum(int(row.get("failed") or 0) for row in result.rows)
    if failed:
        raise ItemsFailedError(
            f"{failed} item(s) failed across the sweep; run it again to redo them"
        )


def _sweep_dry_run(file: Path, data_dir: Path | None, prices: Path | None) -> None:
    """Print the dry-run estimate of each run of a sweep and their total."""
    from relreason.run.cost import dry_run
    from relreason.run.sweep import load_sweep, plan_sweep

    sweep_file = load_sweep(file)
    requests = input_tokens = output_tokens = approximate = runs = 0
    cost: float | None = 0.0
    for run in plan_sweep(sweep_file, path=file, data_dir=data_dir):
        run_options = sweep_file.options.run_options(show_progress=False, task=run.task)
        report = dry_run(run.task, run.model.spec, run_options, prices_file=prices)
        typer.echo(str(report))
        requests += report.requests
        runs += 1
        approximate += report.approximate is not None
        input_tokens += report.input_tokens
        output_tokens += report.output_tokens
        cost = None if cost is None or report.cost_usd is None else cost + report.cost_usd
    total = "unknown (a model has no price)" if cost is None else f"${cost:.2f}"
    typer.echo(
        f"total: {requests} requests, ~{input_tokens} input tokens, "
        f"<= {output_tokens} output tokens, estimated cost {total}"
        + (
            f" (token counts approximate, chars/4, for {approximate} of {runs} runs)"
            if approximate
            else ""
        )
    )


def _pairs(values: list[str] | None, option: str, what: str) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for pair in values or []:
        key, sep, value = pair.rpartition("=")
        if not sep or not key or not value:
            raise UsageError(f"{option} takes SPEC={what}, got {pair!r}")
        mapping[key] = value
    return mapping


def report(
    folder: Annotated[Path, typer.Argument(help="A sweep's out folder (or any folder of runs).")],
    compare: Annotated[
        list[str] | None,
        typer.Option(
            "--compare",
            help="SPEC=PAPER_MODEL: set a model's results beside a paper model's figures, "
            "e.g. --compare openai:gpt-4=gpt-4 (relreason list shows the paper models).",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON row per run (beside the papers).")
    ] = False,
    fmt: Annotated[
        Literal["markdown", "csv", "latex", "json"] | None,
        typer.Option(
            "--format",
            help="Print every analysis as markdown, csv, latex (booktabs) or json (for papers); "
            "csv is one long table with a 'table' column.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write the --format output here instead: for csv a folder with one tidy file "
            "per table and index.csv, for the others one file.",
            show_default=False,
        ),
    ] = None,
    figures: Annotated[
        Path | None,
        typer.Option(
            "--figures",
            help="Write every figure into this folder as SVG, PDF and PNG (for a paper).",
            show_default=False,
        ),
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Write one self-contained HTML report (figures, tables, drill-down to items).",
            show_default=False,
        ),
    ] = None,
    size: Annotated[
        list[str] | None,
        typer.Option("--size", help="SPEC=PARAMETERS (e.g. hf:x=7e9), for scaling trends."),
    ] = None,
    data_dir: DataDir = None,
) -> None:
    """Tabulate runs beside the papers' figures, and every analysis of the papers the runs
    allow (terminal tables, --format for papers, --html for one self-contained page)."""
    import json

    from relreason.report.paper import beside_paper
    from relreason.run.runs_table import collect

    mapping = _pairs(compare, "--compare", "PAPER_MODEL")
    sizes = _sizes(size)
    _check_output(folder, fmt, out)
    if as_json:
        rows = collect(folder)
        if not rows:
            raise UsageError(f"no run folders (with a manifest.json) under {folder}")
    from relreason.analysis import load_runs
    from relreason.report import build_report
    from relreason.report.paper import check_compare

    runs = load_runs(folder)  # UsageError when no run folder is there
    check_compare(runs, mapping)  # unknown specs or paper models: UsageError listing them
    if as_json:
        for row in beside_paper(rows, mapping):
            typer.echo(json.dumps(row, ensure_ascii=False))
        return
    texts = html is not None or data_dir is not None or figures is not None  # from the data
    built = build_report(runs, mapping, sizes=sizes, data_dir=data_dir, texts=texts)
    _show(built, html=html, figures=figures, fmt=fmt, out=out)


def _show(
    built: Report, *, html: Path | None, figures: Path | None, fmt: str | None, out: Path | None
) -> None:
    """Write or print the report as the options ask (the terminal tables when none does)."""
    from relreason.report import render_html

    if html is not None:
        render_html(built, html)
        typer.echo(f"wrote {html}")
    if figures is not None:
        written = built.write_figures(figures)
        typer.echo(f"wrote {len(written)} figure files into {figures}")
    if fmt is not None and out is not None:
        _write_format(built, fmt, out)
    elif fmt is not None:
        typer.echo(built.format(fmt))
    elif html is None and figures is None:
        built.print()


def _sizes(size: list[str] | None) -> dict[str, float]:
    """``--size SPEC=PARAMETERS`` as numbers by model spec."""
    sizes: dict[str, float] = {}
    for spec, value in _pairs(size, "--size", "PARAMETERS").items():
        try:
            sizes[spec] = float(value)
        except ValueError:
            raise UsageError(f"--size takes SPEC=PARAMETERS (a number), got {value!r}") from None
    return sizes


def _check_output(folder: Path, fmt: str | None, out: Path | None) -> None:
    """Refuse ``--out`` without ``--format``, and a ``folder`` that is none."""
    if out is not None and fmt is None:
        raise UsageError("--out needs --format (markdown, csv, latex or json)")
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder")


def _write_format(built: Report, fmt: str, out: Path) -> None:
    """Write the report in ``fmt`` to ``out`` (csv: a folder of tables), saying what it wrote."""
    from relreason.files import atomic_write_text

    if fmt == "csv":
        if out.exists() and not out.is_dir():
            raise UsageError(
                f"--out {out}: csv writes a folder (one file per table); {out} is a file"
            )
        written = built.write_csv(out)
        typer.echo(f"wrote {len(written) - 1} tables and index.csv into {out}")
        return
    if out.is_dir():
        raise UsageError(f"--out {out} is a folder; {fmt} writes one file")
    atomic_write_text(out, built.format(fmt))
    typer.echo(f"wrote {out}")


def export(
    folder: Annotated[Path, typer.Argument(help="A folder of runs.")],
    out: Annotated[Path, typer.Option("--out", help="The file to write.")],
    fmt: Annotated[Literal["csv", "parquet"], typer.Option("--format", help="Its format.")] = "csv",
) -> None:
    """Write one row per item (with its run's metadata) as CSV or Parquet."""
    from relreason.analysis import export_items

    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder")
    export_items(folder, out, format=fmt)
    typer.echo(f"wrote {out}")


def compare(
    run_a: Annotated[Path, typer.Argument(help="A run folder.")],
    run_b: Annotated[Path, typer.Argument(help="Another run folder of the same task.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Compare two runs item by item: 2x2 table, answer agreement, McNemar's exact test."""
    import json

    from relreason.analysis.compare import compare_runs

    result = compare_runs(run_a, run_b)
    typer.echo(json.dumps(result.to_json()) if as_json else str(result))
