"""The report's cache of read runs: what ``load_runs`` made of one run folder, kept under the
cache root (``<cache root>/report/<hash of the folder>.marshal``) and reused while the folder's
``records.jsonl``, ``manifest.json`` and ``summary.json`` keep their size and modification time
and the reading code is the same (its source's hash). Runs still running are not kept. Written
atomically; an unreadable or stale entry is read again from the records (never an error).

``marshal`` holds plain values only (dicts, lists, text, numbers): loading it runs no code."""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from relreason.errors import UsageError
from relreason.files import atomic_write_bytes
from relreason.paths import cache_root

CACHE_VERSION = 1
_WATCHED = ("records.jsonl", "manifest.json", "summary.json")


@cache
def _code_version() -> str:
    """A hash of the code that reads a run (this module, ``load.py``, ``item_columns.py``)."""
    digest = hashlib.sha256(f"{CACHE_VERSION} {sys.version}".encode())
    for name in ("load.py", "item_columns.py", "run_cache.py"):
        digest.update((Path(__file__).parent / name).read_bytes())
    return digest.hexdigest()


def folder_stamp(folder: Path) -> list[Any]:
    """What a cached reading of ``folder`` is kept under: the reading code's hash and the size
    and modification time of each watched file (the HTML report keys its item blocks on it)."""
    key: list[Any] = [_code_version()]
    for name in _WATCHED:
        try:
            stat = (folder / name).stat()
            key += [name, stat.st_size, stat.st_mtime_ns]
        except OSError:
            key += [name, None, None]
    return key


def cache_file(folder: Path) -> Path:
    """Where the cached reading of ``folder`` is kept."""
    name = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:32]
    return cache_root() / "report" / f"{name}.marshal"


def cached_read(
    folder: Path, read: Callable[[], dict[str, Any]], *, keep: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """Return ``read()`` for ``folder``, from the cache when the folder is unchanged; a fresh
    reading is kept when ``keep(value)`` (e.g. the run is complete)."""
    key = folder_stamp(folder)
    path = cache_file(folder)
    with contextlib.suppress(OSError, EOFError, ValueError, TypeError, KeyError):
        found = marshal.loads(path.read_bytes())
        if isinstance(found, dict) and found.get("key") == key:
            return found["value"]  # type: ignore[no-any-return]
    value = read()
    if keep(value):
        with contextlib.suppress(UsageError, ValueError):  # an unwritable cache only costs time
            atomic_write_bytes(path, marshal.dumps({"key": key, "value": value}), make_parents=True)
    return value
