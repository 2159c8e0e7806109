"""The ``relreason`` command line: a thin typer layer over the public functions.

This module imports nothing heavy: a Ctrl-C (or SIGTERM) at any moment, the imports of the
command line and of a model included, ends with one ``stopped:`` line and exit code 130.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any, NoReturn


def _stop_at_once(signum: int, frame: Any) -> None:
    """SIGTERM before a run has its own handler: stop as Ctrl-C does."""
    raise KeyboardInterrupt


def _interrupted() -> NoReturn:
    """One line, exit 130; threads (a model half loaded) abandoned rather than waited for."""
    try:
        sys.stderr.write("stopped: interrupted\n")
        sys.stderr.flush()
        sys.stdout.flush()
    finally:
        if threading.active_count() > 1:
            os._exit(130)
    raise SystemExit(130) from None


def main(argv: list[str] | None = None) -> None:
    """Run the command line; user errors print one message (no traceback) and exit non-zero."""
    try:
        before = signal.signal(signal.SIGTERM, _stop_at_once)
    except (ValueError, OSError):  # not the main thread (a caller embedding the CLI)
        before = None
    try:
        from relreason.cli.app import main as run

        run(argv)
    except KeyboardInterrupt:
        _interrupted()
    finally:
        if before is not None:
            signal.signal(signal.SIGTERM, before)


__all__ = ["main"]
