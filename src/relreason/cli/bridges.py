"""The ``relreason export-tasks`` and ``relreason import`` commands: relreason's cells as other
harnesses' tasks, and those harnesses' logs read back into run folders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from relreason.cli.options import DataDir

CellsArg = Annotated[
    list[str] | None,
    typer.Argument(
        help="Cells: run names (convre-re2text-s09, mcr-en-zs, compose-en-zs) or "
        "BENCHMARK:key=value,... (convre:task=re2text,setting=9). Default: every cell of "
        "every benchmark's sweep grid.",
        show_default=False,
    ),
]
LogOut = Annotated[
    Path, typer.Option("--out", help="The run folder to write (new, or an empty folder).")
]
ModelName = Annotated[
    str | None,
    typer.Option(
        "--model", help="The model's name in the run folder (default: what the log says)."
    ),
]


def export_lm_eval_command(
    out_dir: Annotated[Path, typer.Argument(help="Folder to write the tasks into.")],
    cells: CellsArg = None,
    data_dir: DataDir = None,
) -> None:
    """Write lm-evaluation-harness tasks (YAML + JSON lines) for relreason cells:
    relreason_<cell>_mc (log-likelihood of the choice letters) and relreason_<cell>_gen
    (generation read by relreason's reader). Run them with lm_eval --include_path DIR."""
    from relreason.bridges.cells import all_cells, parse_cell
    from relreason.bridges.lm_eval_export import export_lm_eval

    chosen = [parse_cell(c) for c in cells] if cells else all_cells()
    for exported in export_lm_eval(chosen, out_dir, data_dir):
        note = f" ({exported.skipped})" if exported.skipped else ""
        typer.echo(f"{exported.cell}: {', '.join(exported.tasks)}{note}")
    typer.echo(f"run them with: lm_eval --include_path {out_dir} --tasks TASK --log_samples ...")


def import_lm_eval_command(
    samples: Annotated[Path, typer.Argument(help="lm-eval's samples_<task>_<date>.jsonl.")],
    out: LogOut,
    model: ModelName = None,
    data_dir: DataDir = None,
) -> None:
    """Read an lm-eval samples file (lm_eval --log_samples) of an exported task into a
    relreason run folder (each output read by relreason's readers), for report and compare."""
    from relreason.bridges.imported import write_imported_run
    from relreason.bridges.lm_eval_log import read_lm_eval_samples
    from relreason.records import format_summary

    run = read_lm_eval_samples(samples, data_dir=data_dir, model=model)
    typer.echo(format_summary(write_imported_run(run, out)))


def import_inspect_command(
    log: Annotated[Path, typer.Argument(help="An inspect_ai log (.eval or .json).")],
    out: LogOut,
    model: ModelName = None,
    data_dir: DataDir = None,
) -> None:
    """Read an inspect_ai log of a relreason task (relreason/convre, mcr, compose) into a
    relreason run folder (each output read by relreason's readers), for report and compare."""
    from relreason.bridges.imported import write_imported_run
    from relreason.bridges.inspect_log import read_inspect_log
    from relreason.records import format_summary

    run = read_inspect_log(log, data_dir=data_dir, model=model)
    typer.echo(format_summary(write_imported_run(run, out)))


def register_bridge_commands(app: typer.Typer) -> None:
    """Add ``export-tasks lm-eval`` and ``import lm-eval`` / ``import inspect``."""
    from relreason.cli.helptext import command_group

    export_app = command_group("Write relreason cells as another harness's tasks.")
    export_app.command("lm-eval")(export_lm_eval_command)
    import_app = command_group("Read another harness's log of relreason tasks into a run folder.")
    import_app.command("lm-eval")(import_lm_eval_command)
    import_app.command("inspect")(import_inspect_command)
    app.add_typer(export_app, name="export-tasks")
    app.add_typer(import_app, name="import")
