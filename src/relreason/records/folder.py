"""Run folders: ``manifest.json``, ``records.jsonl`` and ``summary.json``.

``records.jsonl`` is appended (and flushed; fsync'd in batches) as items finish, so a crash loses
at most the line being written; loading drops such a torn last line and the item is redone. At the
end the records are rewritten sorted by index (atomically), so a resumed run's file equals an
uninterrupted run's, apart from :data:`VOLATILE_RECORD_FIELDS`. Every whole-file write goes to a
temporary file first and is moved into place with ``os.replace``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from relreason.errors import DataError, UsageError
from relreason.files import atomic_write_text
from relreason.records.record import (
    VOLATILE_RECORD_FIELDS,
    Record,
    check_record,
    record_from_line,
)
from relreason.redact import scrub_secrets
from relreason.untrusted import clean_line

if TYPE_CHECKING:
    from relreason.records.manifest import Manifest

MANIFEST = "manifest.json"
RECORDS = "records.jsonl"
SUMMARY = "summary.json"

_FSYNC_EVERY_S = 1.0


def git_commit(source: Path | None = None) -> str | None:
    """Return ``git rev-parse HEAD`` of the tree holding relreason's source, or None."""
    where = source or Path(__file__).resolve().parent
    try:
        done = subprocess.run(
            ["git", "-C", str(where), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40}", commit) else None


def record_line(record: Mapping[str, Any]) -> str:
    """Return one record as a JSON line (with the trailing newline), secrets scrubbed (a
    server may echo the API key inside an answer) and any lone surrogate replaced (the call
    path replaces them first and says so in the record; this keeps every line valid UTF-8)."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return clean_line(scrub_secrets(line)) + "\n"


def comparable(record: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``record`` without :data:`VOLATILE_RECORD_FIELDS` (to compare two runs)."""
    return {k: v for k, v in record.items() if k not in VOLATILE_RECORD_FIELDS}


def is_run_folder(path: Path) -> bool:
    """Return whether ``path`` holds a ``manifest.json``."""
    return (path / MANIFEST).is_file()


def read_manifest(path: Path) -> dict[str, Any]:
    """Return the manifest of the run folder ``path``.

    Raises ``UsageError`` when ``path`` is not a run folder, ``DataError`` when the manifest is
    not a JSON object.
    """
    file = path / MANIFEST
    if not file.is_file():
        raise UsageError(f"{path} is not a run folder (no {MANIFEST})")
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:
        raise DataError(str(file), f"unreadable manifest ({error})") from None
    if not isinstance(data, dict):
        raise DataError(str(file), "expected a JSON object")
    return data


def load_manifest(path: Path) -> Manifest:
    """Return the typed manifest of the run folder ``path`` (any format version).

    Raises ``UsageError`` when ``path`` is not a run folder, ``DataError`` naming the field
    when the manifest is malformed.
    """
    from relreason.records.manifest import Manifest

    return Manifest.from_json(read_manifest(path), path / MANIFEST)


def load_records(
    path: Path, *, repair: bool = False, lines: dict[int, str] | None = None
) -> dict[int, dict[str, Any]]:
    """Return the records of the run folder ``path`` as JSON objects by index (a later line for
    an index wins), each checked as :func:`load_typed_records` checks it.

    A torn last line (no trailing newline, or not JSON) is dropped; with ``repair`` the file is
    also truncated to its last whole line so that appends start clean. Raises ``DataError``
    naming the file, line and field for a malformed line elsewhere. When ``lines`` is given,
    each record's line as written (with its newline) is put in it by index.
    """
    return _read_records(path, repair, lines, as_dicts=True)


def load_typed_records(
    path: Path, *, repair: bool = False, lines: dict[int, str] | None = None
) -> dict[int, Record]:
    """Return the records of the run folder ``path`` by index as typed :class:`Record` values
    (any format version: a field an older version did not write takes its default).

    Reads as :func:`load_records` does: a torn last line dropped (with ``repair``, also cut
    from the file), ``DataError`` naming the file, line and field for a malformed one (not
    JSON, not UTF-8, a field of the wrong type, a NaN or infinite number), ``lines`` filled
    with the lines as written (to write them again unchanged: a record of an older version
    keeps its form); keys no record field has are not kept.
    """
    return _read_records(path, repair, lines, as_dicts=False)


def _read_records(
    path: Path, repair: bool, lines: dict[int, str] | None, *, as_dicts: bool
) -> dict[int, Any]:
    file = path / RECORDS
    if not file.is_file():
        return {}
    try:
        raw = file.read_bytes()
    except OSError as error:
        raise DataError(str(file), f"cannot read ({error.strerror or error})") from None
    parts = raw.split(b"\n")
    tail = parts.pop()  # b"" when the file ends with a newline, else a torn line
    keep = len(raw) - len(tail)
    if parts and not _parses(parts[-1]):
        keep -= len(parts.pop()) + 1
    records: dict[int, Any] = {}
    for number, line in enumerate(parts, start=1):
        if not line.strip():
            continue
        # a whole current-format line: parsed and checked in one pass; anything else (an older
        # version's line, a damaged one) the slower way, which fills defaults or says what is
        # wrong
        record = None if as_dicts else record_from_line(line)
        if record is None:
            try:
                data = json.loads(line.decode("utf-8"))
            except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
                message = "not a JSON record (delete the line to have its item asked again)"
                raise DataError(str(file), message, item=f"line {number}") from None
            record = check_record(data, str(file), number)
        records[record.index] = data if as_dicts else record
        if lines is not None:
            lines[record.index] = line.decode("utf-8") + "\n"
    if repair and keep != len(raw):
        with open(file, "r+b") as handle:
            handle.truncate(keep)
    return records


def _parses(line: bytes) -> bool:
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


class RecordWriter:
    """Appends records to ``records.jsonl``: each line written and flushed at once (a killed
    process loses no finished item), fsync'd at most once a second in a background thread (the
    event loop does not wait for the disk), and once more, waited for, on ``close``."""

    def __init__(self, path: Path) -> None:
        self.file = path / RECORDS
        self._handle: IO[str] = open(self.file, "a", encoding="utf-8")  # noqa: SIM115
        self._last_sync = time.monotonic()
        self._syncing: Future[None] | None = None

    def append(self, record: Record) -> str:
        """Write one record's line and flush it; return the line. Raises ``OSError`` for a
        failed write, or a failed background fsync."""
        line = record_line(record.to_json())
        self._handle.write(line)
        self._handle.flush()
        now = time.monotonic()
        if now - self._last_sync >= _FSYNC_EVERY_S:
            if self._syncing is not None:
                if not self._syncing.done():
                    return line  # the disk is slow: the next one when this one is done
                self._syncing.result()  # an fsync that failed raises here
            self._syncing = _SYNCER.submit(os.fsync, self._handle.fileno())
            self._last_sync = now
        return line

    def close(self) -> None:
        """Wait for a background fsync, fsync and close the file."""
        if not self._handle.closed:
            try:
                if self._syncing is not None:
                    self._syncing.result()
                self._handle.flush()
                os.fsync(self._handle.fileno())
            finally:
                self._handle.close()


_SYNCER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="relreason-fsync")
"""The thread that fsyncs ``records.jsonl`` (one for the process; started on first use)."""


def write_sorted_records(
    path: Path, records: Iterable[Record], lines: Mapping[int, str] | None = None
) -> None:
    """Rewrite ``records.jsonl`` with ``records`` sorted by index, atomically.

    ``lines`` may hold already serialised lines by index (reused when given)."""
    known = lines or {}
    ordered = sorted(records, key=lambda r: r.index)
    text = "".join(known.get(r.index) or record_line(r.to_json()) for r in ordered)
    atomic_write_text(path / RECORDS, text)
