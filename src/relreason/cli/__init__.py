"""The ``relreason`` command line: a thin typer layer over the public functions.

This module imports nothing heavy: a Ctrl-C (or SIGTERM) at any moment, the imports of the
command line and of a model included, ends with one ``stopped:`` line and exit code 130.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
from typing import Any, NoReturn

from relreason.cli import stops
from relreason.cli.stops import stop_requested


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


def _stop_while_exiting(signum: int, frame: Any) -> None:
    """Ctrl-C or SIGTERM after the command ended, while the interpreter shuts down."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write("stopped: interrupted\n")
        sys.stderr.flush()
    os._exit(130)


def _ignore_stops_in_teardown() -> None:
    """The last exit hook: the command's work and every other hook are done. Python's own
    teardown (collection, modules) comes next, after it has put a handled signal back to its
    default action (a Ctrl-C then killed the process by the signal); an ignored one it leaves
    ignored, so a stop there leaves the command's exit status as it was."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, signal.SIG_IGN)


def main(argv: list[str] | None = None) -> None:
    """Run the command line; user errors print one message (no traceback) and exit non-zero.
    Called without ``argv`` (the script, ``python -m relreason``) it is the process: a stop
    while Python shuts down afterwards ends it with the same one line and 130 (until the last
    exit hook; in Python's teardown after it, a stop is ignored)."""
    stops.clear()
    if argv is None:
        atexit.register(_ignore_stops_in_teardown)  # registered first: runs last
    before: dict[signal.Signals, Any] = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            if signal.getsignal(sig) is not signal.SIG_IGN:  # ``nohup``, ``&``: left ignored
                before[sig] = signal.signal(sig, stops.stop_at_once)
        except (ValueError, OSError):  # not the main thread (a caller embedding the CLI)
            break
    sys.unraisablehook = stops.swallowed
    try:
        from relreason.cli.app import main as run

        run(argv)
    except KeyboardInterrupt:
        _interrupted()
    finally:
        sys.unraisablehook = sys.__unraisablehook__
        for number, handler in before.items():
            # the process's own command line (no argv: the script, ``python -m``): a stop that
            # comes while Python shuts down ends it as one during the command does, instead of
            # the signal's default killing it (a fast run is over before a Ctrl-C lands)
            signal.signal(number, _stop_while_exiting if argv is None else handler)


__all__ = ["main", "stop_requested"]
