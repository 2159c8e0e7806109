"""Whether a Ctrl-C or SIGTERM came while the command line ran outside a run's loop: the one
flag ``relreason.cli.main`` sets and ``relreason.cli.app`` reads (imports nothing heavy)."""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any

_stop = threading.Event()


def stop_requested() -> bool:
    """Whether a Ctrl-C or SIGTERM came while the command line ran outside a run's loop."""
    return _stop.is_set()


def stop_at_once(signum: int, frame: Any) -> None:
    """Ctrl-C or SIGTERM outside a run: remember it (an import it breaks may end in another
    error, reported as the stop it was) and stop as Ctrl-C does."""
    _stop.set()
    raise KeyboardInterrupt


def swallowed(unraisable: Any) -> None:
    """A stop that landed where Python cannot raise it (an import lock's callback, a
    finaliser): not printed, and sent again a moment later, where it can stop the command."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _stop.is_set():
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
        return
    sys.__unraisablehook__(unraisable)


def clear() -> None:
    """Forget an earlier stop (a command line started again in the same process)."""
    _stop.clear()
