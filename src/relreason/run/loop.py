"""The event loop of a synchronous run: Ctrl-C and SIGTERM cancel the run (which then flushes its
records and cache, marks the manifest ``interrupted`` and raises ``InterruptedRunError``), and
work in threads (local models) is abandoned rather than waited for.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` in a new event loop and return its result.

    In the main thread, SIGINT and SIGTERM cancel it (once each signal; a run turns the cancel
    into ``InterruptedRunError``). Threads still busy when it ends (a local model's batch) are
    not waited for: their results are dropped and their items stay unfinished.
    """
    loop = asyncio.new_event_loop()
    executor = ThreadPoolExecutor(thread_name_prefix="relreason")
    loop.set_default_executor(executor)
    task = loop.create_task(coroutine)
    handled: list[signal.Signals] = []
    if threading.current_thread() is threading.main_thread():
        for sig in STOP_SIGNALS:
            with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):
                loop.add_signal_handler(sig, task.cancel)
                handled.append(sig)
    cancelled = False
    try:
        return loop.run_until_complete(task)
    except BaseException:
        cancelled = True
        raise
    finally:
        for sig in handled:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for other in pending:
            other.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        with contextlib.suppress(Exception):
            loop.run_until_complete(loop.shutdown_asyncgens())
        executor.shutdown(wait=not cancelled, cancel_futures=True)
        loop.close()
