"""The ``relreason view`` command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from relreason.cli.options import DataDir


def view(
    folder: Annotated[
        Path, typer.Argument(help="A folder of runs (a sweep's out folder, or one run).")
    ] = Path("runs"),
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port to serve on (0: a free one).")
    ] = 8765,
    host: Annotated[
        str,
        typer.Option(
            "--host", help="Address to listen on (keep 127.0.0.1: nothing checks who asks)."
        ),
    ] = "127.0.0.1",
    data_dir: DataDir = None,
) -> None:
    """Browse runs in a local web viewer: the runs table, each run's items with filters, one
    item's prompt, output and readings, two runs side by side. Runs in progress show their new
    items on reload. Needs the 'view' extra."""
    from relreason.view import serve

    serve(folder, host=host, port=port, data_dir=data_dir)
