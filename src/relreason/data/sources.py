"""Find, load and verify the official benchmark files (downloading: ``relreason.data.download``).

The data folder holds ``convre/`` and ``mcr/`` laid out like the official release; it is the
``--data-dir`` flag, else ``RELREASON_DATA_DIR``, else ``<user cache>/data`` (the cache root is
``platformdirs.user_cache_dir("relreason")`` unless ``RELREASON_CACHE_DIR`` overrides it).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from relreason.data.spec import DataFiles
from relreason.errors import DataError, UsageError
from relreason.paths import DATA_DIR_ENV, cache_root

_CACHE_SIZE = 64
_lock = threading.Lock()
_json_cache: OrderedDict[tuple[str, int, int, int], Any] = OrderedDict()
_hash_cache: OrderedDict[tuple[str, int, int, int], str] = OrderedDict()


def resolve_data_dir(data_dir: Path | str | None = None) -> Path:
    """Return the data folder: ``data_dir``, else ``$RELREASON_DATA_DIR``, else the user cache.

    The folder need not exist. Never raises for a missing folder.
    """
    if data_dir is not None and str(data_dir) != "":
        return Path(data_dir).expanduser()
    from_env = os.environ.get(DATA_DIR_ENV, "")
    if from_env:
        return Path(from_env).expanduser()
    return cache_root() / "data"


def _origin(data_dir: Path | str | None) -> str:
    if data_dir is not None and str(data_dir) != "":
        return "given by --data-dir"
    if os.environ.get(DATA_DIR_ENV, ""):
        return f"from {DATA_DIR_ENV}"
    return "the default user cache"


def data_file(benchmark: str, filename: str, data_dir: Path | str | None = None) -> Path:
    """Return the path of ``<data dir>/<benchmark>/<filename>``.

    Raises ``UsageError`` for an unknown benchmark or a file name with a path separator, and
    ``DataError`` (naming the file and saying how to get it) when the file is not there.
    """
    if not benchmark or benchmark != Path(benchmark).name or benchmark in (".", ".."):
        raise UsageError(f"bad benchmark folder name {benchmark!r}")
    if not filename or filename != Path(filename).name or filename in (".", ".."):
        raise UsageError(f"bad data file name {filename!r}: expected a plain file name")
    folder = resolve_data_dir(data_dir)
    path = folder / benchmark / filename
    if not path.is_file():
        raise DataError(
            str(path),
            f"file not found (data folder {folder} is {_origin(data_dir)}). "
            f"Fetch the official data with `relreason download {benchmark}`, or point "
            f"--data-dir or {DATA_DIR_ENV} at a folder holding convre/ and mcr/.",
        )
    return path


Stamp = tuple[str, int, int, int]
"""A file's version as caches key it: resolved path, mtime_ns, size, inode."""


def file_stamp(path: Path) -> Stamp:
    """Return ``path``'s ``Stamp`` (``DataError`` when it is missing or cannot be read)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise DataError(str(path), "file not found") from None
    except OSError as exc:
        raise DataError(str(path), f"cannot read file: {exc.strerror or exc}") from None
    return (str(path.resolve()), st.st_mtime_ns, st.st_size, st.st_ino)


def _remember(cache: OrderedDict[tuple[str, int, int, int], Any], key: Any, value: Any) -> None:
    with _lock:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > _CACHE_SIZE:
            cache.popitem(last=False)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise DataError(str(path), "is a folder, not a file") from None
    except OSError as exc:
        raise DataError(str(path), f"cannot read file: {exc.strerror or exc}") from None


def load_json(path: Path) -> Any:
    """Return the parsed JSON content of ``path``.

    Parsed content is cached per (path, mtime_ns, size, inode): loading an unchanged file returns
    the *same* object, so callers must not mutate it (copy first if needed).
    Raises ``DataError`` naming the file for a missing, unreadable or non-UTF-8 file, and with
    line and column for invalid JSON.
    """
    path = Path(path)
    key = file_stamp(path)
    with _lock:
        if key in _json_cache:
            _json_cache.move_to_end(key)
            return _json_cache[key]
    raw = _read_bytes(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(str(path), f"not UTF-8 text (bad byte at offset {exc.start})") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(
            str(path), f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    if file_stamp(path) == key:  # cache only if the file did not change while we read it
        _remember(_json_cache, key, value)
    return value


def sha256_file(path: Path) -> str:
    """Return the hex SHA-256 of ``path``, cached per (path, mtime_ns, size, inode).

    Raises ``DataError`` when the file cannot be read.
    """
    key = file_stamp(path)
    with _lock:
        if key in _hash_cache:
            return _hash_cache[key]
    digest = hashlib.sha256(_read_bytes(path)).hexdigest()
    if file_stamp(path) == key:
        _remember(_hash_cache, key, digest)
    return digest


def file_checksums(files: DataFiles, data_dir: Path | str | None = None) -> dict[str, str]:
    """Return file name -> SHA-256 for each of a benchmark's files present in the data folder.

    Files that are absent are left out (``verify`` reports them). Raises ``DataError`` for a
    present but unreadable file.
    """
    folder = resolve_data_dir(data_dir) / files.folder
    sums: dict[str, str] = {}
    for name in sorted(files.pinned()):
        path = folder / name
        if path.is_file():
            sums[name] = sha256_file(path)
    return sums


def verify(files: DataFiles, data_dir: Path | str | None = None) -> list[str]:
    """Return one human-readable line per file that is missing or differs from its pinned hash.

    An empty list means the local copy is the official release. Raises ``DataError`` for an
    unreadable file.
    """
    present = file_checksums(files, data_dir)
    folder = resolve_data_dir(data_dir) / files.folder
    problems: list[str] = []
    for name, pinned in sorted(files.pinned().items()):
        actual = present.get(name)
        if actual is None:
            problems.append(f"{folder / name}: missing")
        elif actual != pinned:
            problems.append(f"{folder / name}: SHA-256 is {actual}, the pinned one is {pinned}")
    return problems
