"""Find, load and verify the official benchmark files (downloading is in ``sources_download``).

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

import platformdirs

from relreason.errors import DataError, UsageError

_PINNED_SHA256 = """
f01e8f503d1650cf82d3e992f6a7b47285f1d25bf973da29807b37a1073acf91  convre/re2text_examples.json
83f43ab7833e3824ae943cc82ee71cd0648c817f4b5e747fde16008524dd4d36  convre/re2text_relations.json
163f36d8f8c7aaeb67e47bceab33ca78633fb0da3e8ae25128cf08e2c098a40e  convre/text2re_examples.json
2831a70e630e2bb960e3b6306f135ce7fe22fa2f5daf5787909f955e4ef90526  convre/text2re_relations.json
8648382cb5c24ced80663e7a58b9a6d34167225210e44aa0224e3508478deb03  convre/triple_dataset.json
f6fa9acd4c0f3ba8f172fc33a77434f4b5899bf9f8274b8f9dd361ac4fccd1ca  convre/triple_subset.json
ffffadb748f8ce41ec09f5eee1f0dd24fd35954ba564c69afb5e8ec987fe4106  mcr/composition_chinese.json
1df97dc056e79f975f59c8e224244a3e78da289a9c9c66c169646aacabfdbf87  mcr/composition_english.json
2a50d435b021a505f4b525e7b8177bbfa660cff6ec214345d8ea8d54b3c42978  mcr/composition_french.json
de60db0a4098fd4cca00f5927a2b1410bda6bba88265265330e660cdd16222cd  mcr/composition_japanese.json
ccad5487b43f46e6ea272cca0aee8db3b0291031931541704895f39cefab4d8c  mcr/composition_korean.json
27aadd8621ad98d79fe69bae29570d2bc26370e775f7553f67970cf80beb730c  mcr/exemplars_official.json
"""
# Copied from the official data README (sha256sum format, so `sha256sum -c` can check a copy).


def _parse_pins(text: str) -> dict[str, dict[str, str]]:
    pins: dict[str, dict[str, str]] = {}
    for line in text.strip().splitlines():
        digest, relative = line.split()
        benchmark, name = relative.split("/")
        pins.setdefault(benchmark, {})[name] = digest
    return pins


BENCHMARK_FILES: dict[str, dict[str, str]] = _parse_pins(_PINNED_SHA256)
"""benchmark -> file name -> pinned SHA-256 of the official release (see the data README)."""

DATA_DIR_ENV = "RELREASON_DATA_DIR"
CACHE_DIR_ENV = "RELREASON_CACHE_DIR"

_CACHE_SIZE = 64
_lock = threading.Lock()
_json_cache: OrderedDict[tuple[str, int, int, int], Any] = OrderedDict()
_hash_cache: OrderedDict[tuple[str, int, int, int], str] = OrderedDict()


def check_benchmark(benchmark: str) -> str:
    """Return ``benchmark`` if it is ``convre`` or ``mcr``; raise ``UsageError`` otherwise."""
    if benchmark not in BENCHMARK_FILES:
        known = ", ".join(sorted(BENCHMARK_FILES))
        raise UsageError(f"unknown benchmark {benchmark!r}: expected one of {known}")
    return benchmark


def resolve_data_dir(data_dir: Path | str | None = None) -> Path:
    """Return the data folder: ``data_dir``, else ``$RELREASON_DATA_DIR``, else the user cache.

    The folder need not exist. Never raises for a missing folder.
    """
    if data_dir is not None and str(data_dir) != "":
        return Path(data_dir).expanduser()
    from_env = os.environ.get(DATA_DIR_ENV, "")
    if from_env:
        return Path(from_env).expanduser()
    cache_root = os.environ.get(CACHE_DIR_ENV, "") or platformdirs.user_cache_dir("relreason")
    return Path(cache_root).expanduser() / "data"


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
    check_benchmark(benchmark)
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


def _stat_key(path: Path) -> tuple[str, int, int, int]:
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
    key = _stat_key(path)
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
    if _stat_key(path) == key:  # cache only if the file did not change while we read it
        _remember(_json_cache, key, value)
    return value


def sha256_file(path: Path) -> str:
    """Return the hex SHA-256 of ``path``, cached per (path, mtime_ns, size, inode).

    Raises ``DataError`` when the file cannot be read.
    """
    key = _stat_key(path)
    with _lock:
        if key in _hash_cache:
            return _hash_cache[key]
    digest = hashlib.sha256(_read_bytes(path)).hexdigest()
    if _stat_key(path) == key:
        _remember(_hash_cache, key, digest)
    return digest


def file_checksums(benchmark: str, data_dir: Path | str | None = None) -> dict[str, str]:
    """Return file name -> SHA-256 for each of the benchmark's files present in the data folder.

    Files that are absent are left out (``verify`` reports them). Raises ``UsageError`` for an
    unknown benchmark and ``DataError`` for a present but unreadable file.
    """
    folder = resolve_data_dir(data_dir) / check_benchmark(benchmark)
    sums: dict[str, str] = {}
    for name in sorted(BENCHMARK_FILES[benchmark]):
        path = folder / name
        if path.is_file():
            sums[name] = sha256_file(path)
    return sums


def verify(benchmark: str, data_dir: Path | str | None = None) -> list[str]:
    """Return one human-readable line per file that is missing or differs from its pinned hash.

    An empty list means the local copy is the official release. Raises ``UsageError`` for an
    unknown benchmark and ``DataError`` for an unreadable file.
    """
    present = file_checksums(benchmark, data_dir)
    folder = resolve_data_dir(data_dir) / benchmark
    problems: list[str] = []
    for name, pinned in sorted(BENCHMARK_FILES[benchmark].items()):
        actual = present.get(name)
        if actual is None:
            problems.append(f"{folder / name}: missing")
        elif actual != pinned:
            problems.append(f"{folder / name}: SHA-256 is {actual}, the pinned one is {pinned}")
    return problems


def download(
    which: str,
    dest: Path | str | None = None,
    *,
    mirror: str | None = None,
    timeout: float = 60,
) -> list[Path]:
    """Fetch the official files of ``which`` (``convre``, ``mcr`` or ``all``) into ``dest``.

    ``dest`` defaults to ``resolve_data_dir()``. Files come from the source repositories at the
    pinned commits, or from ``mirror`` (else ``$RELREASON_MIRROR``), a base URL serving
    ``convre/<file>`` and ``mcr/<file>``. Every file is checked against its pinned SHA-256
    before anything is written; files already present with the right hash are skipped.
    Returns the local path of every file asked for, all verified (fetched or already there).
    Raises ``UsageError`` for a bad ``which`` or mirror, ``ChecksumError`` for a file whose
    hash differs (nothing is written then), ``RelreasonError`` naming the URL for HTTP errors.
    """
    from relreason.sources_download import download_files

    return download_files(which, dest, mirror=mirror, timeout=timeout)
