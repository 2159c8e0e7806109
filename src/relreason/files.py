"""Whole-file writes that are never half-done: a temporary file in the same folder, fsync'd and
moved into place with ``os.replace``. The one owner of atomic writes in relreason."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from relreason.errors import UsageError


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


FILE_MODE = _file_mode()
"""The mode a plain ``open()`` would give a new file (0o666 less the umask)."""


def atomic_write_bytes(path: Path, data: bytes, *, make_parents: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``.

    On any failure the temporary file is removed and ``path`` is untouched. Raises
    ``UsageError`` naming the path when the folder cannot be created or written.
    """
    path = Path(path)
    try:
        if make_parents:
            path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from None
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as error:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise UsageError(f"cannot write {path}: {error.strerror or error}") from None
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_write_bytes`)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON to ``path`` atomically (see :func:`atomic_write_bytes`)."""
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
