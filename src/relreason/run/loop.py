"""The event loop of a synchronous run: Ctrl-C and SIGTERM cancel the run (which then flushes its
records and cache, marks the manifest ``interrupted`` and raises ``InterruptedRunError``), and
work in threads (local models) is abandoned rather than waited for.

A stop keeps a bound: if the run has not ended :data:`STOP_BOUND_S` seconds after the signal
(a loop held up by a busy machine, a thread that holds the interpreter), or a second signal
comes, the process prints one line and exits 130 at once. Nothing is half-written then: every
finished item's record line is already flushed, and whole-file writes are atomic.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
STOP_BOUND_S = 5.0
"""Seconds a stopped run may take to flush and mark its folder before the process exits anyway
(measured stops: perf/RESULTS-stops.md)."""
EXIT_INTERRUPTED = 130

_hint: list[str] = []


def set_stop_hint(text: str) -> None:
    """What a forced exit prints after ``stopped:`` (the run folder and its resume command)."""
    _hint[:] = [text]


def force_exit(reason: str) -> None:
    """Print one ``stopped:`` line and end the process with exit code 130 at once."""
    where = f"; {_hint[0]}" if _hint else ""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    with contextlib.suppress(Exception):
        sys.stderr.write(f"stopped: {reason}; every finished item is kept{where}\n")
        sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


class _Stopper:
    """The signal handler of a run (a plain Python handler: it runs even while the event loop
    is busy): the first signal arms the bound and cancels the run, a second one exits at once."""

    def __init__(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any], bound_s: float):
        self.loop = loop
        self.task = task
        self.bound_s = bound_s
        self.timer: threading.Timer | None = None

    def __call__(self, signum: int, frame: Any) -> None:
        if self.timer is not None:
            force_exit("interrupted again")
        self.timer = threading.Timer(
            self.bound_s, force_exit, args=(f"the run did not stop within {self.bound_s:g} s",)
        )
        self.timer.daemon = True
        self.timer.start()
        with contextlib.suppress(RuntimeError):  # the loop is closed: the run has ended
            self.loop.call_soon_threadsafe(self.task.cancel)

    def disarm(self) -> None:
        """The run ended: no forced exit."""
        if self.timer is not None:
            self.timer.cancel()


def run_coroutine(coroutine: Coroutine[Any, Any, T], *, bound_s: float = STOP_BOUND_S) -> T:
    """Run ``coroutine`` in a new event loop and return its result.

    In the main thread, SIGINT and SIGTERM cancel it (a run turns the cancel into
    ``InterruptedRunError``); a second signal, or a stop taking over ``bound_s`` seconds, exits
    the process (code 130) at once. Threads still busy when it ends (a local model's batch) are
    not waited for: their results are dropped and their items stay unfinished. The signal
    handlers in place before are restored afterwards. Called where an event loop is already
    running (Jupyter), it runs the coroutine in a worker thread with a loop of its own.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:  # inside a running loop (a notebook): a thread with its own loop
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(lambda: run_coroutine(coroutine, bound_s=bound_s)).result()
    loop = asyncio.new_event_loop()
    executor = ThreadPoolExecutor(thread_name_prefix="relreason")
    loop.set_default_executor(executor)
    task = loop.create_task(coroutine)
    stopper = _Stopper(loop, task, bound_s)
    handled: list[tuple[signal.Signals, Any]] = []
    if threading.current_thread() is threading.main_thread():
        for sig in STOP_SIGNALS:
            with contextlib.suppress(ValueError, OSError):
                if signal.getsignal(sig) is not signal.SIG_IGN:  # ``nohup``: left ignored
                    handled.append((sig, signal.signal(sig, stopper)))
    cancelled = False
    try:
        return loop.run_until_complete(task)
    except BaseException:
        cancelled = True
        raise
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for other in pending:
            other.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        with contextlib.suppress(Exception):
            loop.run_until_complete(loop.shutdown_asyncgens())
        executor.shutdown(wait=not cancelled, cancel_futures=True)
        for sig, before in handled:
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(sig, before)
        loop.close()
        stopper.disarm()
