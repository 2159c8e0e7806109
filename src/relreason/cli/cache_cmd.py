"""``relreason cache info|clear``: the response cache's place and size, and emptying it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

CachePathOpt = Annotated[
    Path | None,
    typer.Option("--path", help="The cache file (default: <cache folder>/cache.sqlite3)."),
]

cache_app = typer.Typer(no_args_is_help=True, help="Show or clear the response cache.")


@cache_app.command("info")
def info(path: CachePathOpt = None) -> None:
    """Print where the response cache is, how many responses it holds and its size."""
    from relreason.paths import default_cache_path
    from relreason.run.cache import ResponseCache

    file = path or default_cache_path()
    if not file.exists():
        typer.echo(f"cache: {file} (empty: not created yet)")
        return
    details = ResponseCache(file).info()
    typer.echo(
        f"cache: {details['path']}\n  responses: {details['responses']}\n"
        f"  size: {details['bytes'] / 1e6:.1f} MB"
    )


@cache_app.command("clear")
def clear(path: CachePathOpt = None) -> None:
    """Remove every cached response (runs then ask the models again)."""
    from relreason.paths import default_cache_path
    from relreason.run.cache import ResponseCache

    file = path or default_cache_path()
    if not file.exists():
        typer.echo(f"cache: {file} is already empty")
        return
    removed = ResponseCache(file).clear()
    typer.echo(f"cache: removed {removed} response(s) from {file}")
