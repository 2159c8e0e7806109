"""An engine's own reason for failing to start, read from what it printed.

vLLM starts its engine in another process; when that process fails, the exception this process
gets says only "Engine core initialization failed. See root cause above": the cause (e.g. "Free
memory on device ... is less than desired GPU memory utilization") is in the log the engine
process printed. :class:`TeeOutput` passes this process's standard output and error (which the
engine processes it starts inherit) through pipes while an engine starts, copying everything on
to where it went before and keeping the last lines; :func:`root_cause` finds the final
``SomethingError: message`` line of the last traceback there.
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import sys
import threading
import time
from collections.abc import Iterable
from types import TracebackType

_ERROR_LINE = re.compile(
    r"(?:^|[\s)\]])((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)): (.+)$"
)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_GENERIC = ("root cause above", "Engine core initialization failed", "stack trace for root cause")
"""vLLM's own pointers to the cause, never the cause itself."""
_KEPT_LINES = 400


def root_cause(lines: Iterable[str]) -> str | None:
    """The last ``SomethingError: message`` line that is not vLLM's generic "see root cause
    above", as ``message``, with colour codes and process prefixes removed; None when none."""
    found = None
    for raw in lines:
        line = _ANSI.sub("", raw).strip()
        match = _ERROR_LINE.search(line)
        if match and not any(generic in line for generic in _GENERIC):
            found = match.group(2).strip()
    return found


class TeeOutput:
    """While active, file descriptors 1 and 2 go through pipes: each byte is copied to where
    it went before and the last lines are kept (``lines()``). Processes started meanwhile
    inherit the pipes and keep being copied after the block ends, for as long as they live."""

    def __init__(self) -> None:
        self._kept: collections.deque[str] = collections.deque(maxlen=_KEPT_LINES)
        self._saved: list[tuple[int, int]] = []
        self._last_read = time.monotonic()

    def __enter__(self) -> TeeOutput:
        for fd in (1, 2):
            try:
                saved = os.dup(fd)
            except OSError:  # no such descriptor (a daemon): nothing to copy
                continue
            read, write = os.pipe()
            _flush()
            os.dup2(write, fd)
            os.close(write)
            self._saved.append((fd, saved))
            threading.Thread(target=self._pump, args=(read, os.dup(saved)), daemon=True).start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        _flush()
        for fd, saved in self._saved:
            os.dup2(saved, fd)
            os.close(saved)
        self._saved = []

    def lines(self, settle_s: float = 0.3, most_s: float = 3.0) -> list[str]:
        """The last lines seen, once nothing new has come for ``settle_s`` (or ``most_s``
        passed): what a process that just failed wrote may still be in the pipe."""
        end = time.monotonic() + most_s
        while time.monotonic() < end and time.monotonic() - self._last_read < settle_s:
            time.sleep(0.05)
        return list(self._kept)

    def _pump(self, read: int, target: int) -> None:
        pending = b""
        with contextlib.suppress(OSError):
            while chunk := os.read(read, 65536):
                self._last_read = time.monotonic()
                with contextlib.suppress(OSError):
                    written = 0
                    while written < len(chunk):
                        written += os.write(target, chunk[written:])
                *complete, pending = (pending + chunk).split(b"\n")
                self._kept.extend(line.decode("utf-8", "replace") for line in complete)
        os.close(read)
        os.close(target)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
