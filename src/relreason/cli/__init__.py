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

_stop = threading.Event()


def stop_requested() -> bool:
    """Whether a Ctrl-C or SIGTERM came while the command line ran outside a run's loop."""
    return _stop.is_set()


def _stop_at_once(signum: int, frame: Any) -> None:
    """Ctrl-C or SIGTERM outside a run: remember it (an import it breaks may end in another
    error, reported as the stop it was) and stop as Ctrl-C does."""
    _stop.set()
    raise KeyboardInterrupt


def _swallowed(unraisable: Any) -> None:
    """A stop that landed where Python cannot raise it (an import lock's callback, a
    finaliser): not printed, and sent again a moment later, where it can stop the command."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _stop.is_set():
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
        return
    sys.__unraisablehook__(unraisable)


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
    _stop.clear()
    before: dict[signal.Signals, Any] = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            if signal.getsignal(sig) is not signal.SIG_IGN:  # ``nohup``, ``&``: left ignored
                before[sig] = signal.signal(sig, _stop_at_once)
        except (ValueError, OSError):  # not the main thread (a caller embedding the CLI)
            break
    sys.unraisablehook = _swallowed
    try:
        from relreason.cli.app import main as run

        run(argv)
    except KeyboardInterrupt:
        _interrupted()
    finally:
        sys.unraisablehook = sys.__unraisablehook__
        for number, handler in before.items():
            signal.signal(number, handler)


__all__ = ["main", "stop_requested"]
