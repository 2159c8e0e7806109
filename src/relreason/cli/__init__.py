"""The ``relreason`` command line: a thin typer layer over the public functions."""

from relreason.cli.app import main

__all__ = ["main"]
