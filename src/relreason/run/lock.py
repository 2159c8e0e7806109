"""One writer per run folder: a lock file ``.lock`` holding the writer's pid, host and start.

The lock is an ``flock`` on that file, so it dies with its process: a lock file left by a dead
process (SIGKILL, power loss) is taken over safely, with no guessing from pids. A second run or
resume of a folder whose lock is held is refused with the holder's pid and host. The file is
removed when the run ends (after checking it is still the one locked, so a waiting process never
holds a lock on a file that is gone).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
from pathlib import Path
from types import TracebackType
from typing import Any

from relreason.errors import UsageError
from relreason.records.manifest import utc_now

LOCK_FILE = ".lock"


def _holder(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class RunLock:
    """The lock of the run folder ``folder`` (a context manager).

    :meth:`acquire` raises ``UsageError`` naming the holder when another process holds it, or
    when the lock file cannot be created (an unwritable folder).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock (never waits)."""
        for _ in range(5):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as error:
                raise UsageError(
                    f"cannot lock run folder {self.folder}: {error.strerror or error}"
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                holder = _holder(self.path)
                who = f"pid {holder.get('pid', '?')} on host {holder.get('host', '?')}"
                since = f" since {holder['started_at']}" if holder.get("started_at") else ""
                raise UsageError(
                    f"run folder {self.folder} is being written by another relreason process "
                    f"({who}{since}); wait for it to end, or use another --out folder"
                ) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # the holder removed the file as we opened it: try again
                os.close(fd)
                continue
            info = {"pid": os.getpid(), "host": socket.gethostname(), "started_at": utc_now()}
            data = json.dumps(info).encode()
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, data, 0)
            except OSError as error:
                os.close(fd)
                raise UsageError(
                    f"cannot lock run folder {self.folder}: {error.strerror or error}"
                ) from None
            self._fd = fd
            return
        raise UsageError(f"cannot lock run folder {self.folder}: its lock file keeps changing")

    def release(self) -> None:
        """Remove the lock file and release the lock (idempotent)."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()
