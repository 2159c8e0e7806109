"""Run folders: ``manifest.json``, ``records.jsonl`` and ``summary.json``.

``records.jsonl`` is appended (and flushed; fsync'd in batches) as items finish, so a crash loses
at most the line being written; loading drops such a torn last line and the item is redone. At the
end the records are rewritten sorted by index (atomically), so a resumed run's file equals an
uninterrupted run's, apart from :data:`VOLATILE_RECORD_FIELDS`. Every whole-file write goes to a
temporary file first and is moved into place with ``os.replace``.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from relreason.errors import DataError, UsageError

MANIFEST = "manifest.json"
RECORDS = "records.jsonl"
SUMMARY = "summary.json"

RECORD_FIELDS = (
    "index",
    "item_id",
    "gold",
    "answer",
    "status",
    "correct",
    "method",
    "detail",
    "output",
    "second_output",
    "choice_logprobs",
    "top_logprobs",
    "usage",
    "latency_s",
    "attempts",
    "cached",
    "error",
    "labels",
)
VOLATILE_RECORD_FIELDS = ("latency_s", "attempts", "cached")
"""Record fields that legitimately differ between two runs of the same configuration."""

STATUSES = ("correct", "wrong", "unparseable", "no_answer", "failed")
_SECRET_NAME = re.compile(r"(API_KEY|_TOKEN|_SECRET)$")
_SECRET_SHAPE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{8,})")
_FSYNC_EVERY_S = 1.0


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_FILE_MODE = _file_mode()


def scrub_secrets(text: str) -> str:
    """Return ``text`` with the values of ``*_API_KEY``/``*_TOKEN``/``*_SECRET`` environment
    variables and anything shaped like an ``sk-...`` key replaced by ``***``."""
    for name, value in os.environ.items():
        if _SECRET_NAME.search(name) and len(value) >= 6 and value in text:
            text = text.replace(value, "***")
    return _SECRET_SHAPE.sub("***", text)


def strip_secret_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``options`` without keys that name a secret (``api_key``, ``token``, ...)."""
    return {
        k: v
        for k, v in options.items()
        if not re.search(r"key|secret|token|password", k, flags=re.IGNORECASE)
    }


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


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace`` (never half-written).

    Raises ``UsageError`` when the folder is not writable.
    """
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise UsageError(f"cannot write to {path.parent}: {error.strerror or error}") from None
    try:
        os.fchmod(fd, _FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_json(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON to ``path`` atomically (see :func:`atomic_write_text`)."""
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def record_line(record: Mapping[str, Any]) -> str:
    """Return one record as a JSON line (with the trailing newline)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


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
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DataError(str(file), f"unreadable manifest ({error})") from None
    if not isinstance(data, dict):
        raise DataError(str(file), "expected a JSON object")
    return data


def load_records(path: Path, *, repair: bool = False) -> dict[int, dict[str, Any]]:
    """Return the records of the run folder ``path`` by index (a later line for an index wins).

    A torn last line (no trailing newline, or not JSON) is dropped; with ``repair`` the file is
    also truncated to its last whole line so that appends start clean. Raises ``DataError``
    naming the file and line for a malformed line elsewhere.
    """
    file = path / RECORDS
    if not file.is_file():
        return {}
    raw = file.read_bytes()
    lines = raw.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline, else a torn line
    keep = len(raw) - len(tail)
    if lines and not _parses(lines[-1]):
        keep -= len(lines.pop()) + 1
    records: dict[int, dict[str, Any]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            index = record["index"]
        except (ValueError, KeyError, TypeError):
            message = "not a JSON record with an index"
            raise DataError(str(file), message, item=f"line {number}") from None
        if not isinstance(index, int) or isinstance(index, bool):
            raise DataError(str(file), "expected an integer", item=f"line {number}", field="index")
        records[index] = record
    if repair and keep != len(raw):
        with open(file, "r+b") as handle:
            handle.truncate(keep)
    return records


def _parses(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


class RecordWriter:
    """Appends records to ``records.jsonl``: flushed per record, fsync'd at most once a second."""

    def __init__(self, path: Path) -> None:
        self.file = path / RECORDS
        self._handle: IO[str] = open(self.file, "a", encoding="utf-8")  # noqa: SIM115
        self._last_sync = time.monotonic()

    def append(self, record: Mapping[str, Any]) -> str:
        """Write one record line and flush it; return the line."""
        line = record_line(record)
        self._handle.write(line)
        self._handle.flush()
        now = time.monotonic()
        if now - self._last_sync >= _FSYNC_EVERY_S:
            os.fsync(self._handle.fileno())
            self._last_sync = now
        return line

    def close(self) -> None:
        """Fsync and close the file."""
        if not self._handle.closed:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()


def write_sorted_records(
    path: Path, records: Iterable[Mapping[str, Any]], lines: Mapping[int, str] | None = None
) -> None:
    """Rewrite ``records.jsonl`` with ``records`` sorted by index, atomically.

    ``lines`` may hold already serialised lines by index (reused when given)."""
    known = lines or {}
    ordered = sorted(records, key=lambda r: int(r["index"]))
    text = "".join(known.get(int(r["index"])) or record_line(r) for r in ordered)
    atomic_write_text(path / RECORDS, text)


@dataclass
class RunSummary:
    """What a finished (or partly finished) run amounts to.

    ``accuracy`` is over all ``n`` items (failed ones count as not correct); ``statuses`` counts
    each status; ``by_label`` maps a label name to value -> ``{"n", "correct", "accuracy"}``.
    """

    out_dir: str
    task: str
    model: str
    n: int
    correct: int
    accuracy: float
    statuses: dict[str, int]
    by_label: dict[str, dict[str, dict[str, float]]]
    usage: dict[str, int]
    cost_usd: float | None
    cached: int
    complete: bool
    elapsed_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> int:
        """The number of items whose request failed for good."""
        return self.statuses.get("failed", 0)

    @property
    def counts(self) -> dict[str, int]:
        """The number of items per status (the same as ``statuses``)."""
        return self.statuses

    def __str__(self) -> str:
        return format_summary(self)

    def to_json(self) -> dict[str, Any]:
        """Return the summary as a JSON-ready dict."""
        data = dict(self.__dict__)
        data["failed"] = self.failed
        return data


def _label_values(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [str(value)]


def summarize(
    records: Iterable[Mapping[str, Any]],
    *,
    out_dir: Path,
    task: str,
    model: str,
    cost_usd: float | None,
    complete: bool,
    elapsed_s: float = 0.0,
    group_by: Sequence[str] | None = None,
) -> RunSummary:
    """Return the :class:`RunSummary` of ``records``.

    Accuracy is broken down by the labels in ``group_by`` (all labels when None); a label with a
    list value counts the item under each of its values. ``extra["accuracy_ci95"]`` holds the
    Wilson 95% interval of the accuracy.
    """
    statuses = dict.fromkeys(STATUSES, 0)
    by_label: dict[str, dict[str, dict[str, float]]] = {}
    usage = {"prompt_tokens": 0, "completion_tokens": 0}
    n = correct = cached = 0
    for record in records:
        n += 1
        status = str(record.get("status"))
        statuses[status] = statuses.get(status, 0) + 1
        hit = status == "correct"
        correct += hit
        cached += bool(record.get("cached"))
        for key in usage:
            usage[key] += int((record.get("usage") or {}).get(key, 0))
        for name, value in (record.get("labels") or {}).items():
            if group_by is not None and name not in group_by:
                continue
            for one in _label_values(value):
                cell = by_label.setdefault(name, {}).setdefault(one, {"n": 0, "correct": 0})
                cell["n"] += 1
                cell["correct"] += hit
    for values in by_label.values():
        for cell in values.values():
            cell["accuracy"] = cell["correct"] / cell["n"]
    summary = RunSummary(
        out_dir=str(out_dir),
        task=task,
        model=model,
        n=n,
        correct=correct,
        accuracy=correct / n if n else 0.0,
        statuses=statuses,
        by_label=by_label,
        usage=usage,
        cost_usd=cost_usd,
        cached=cached,
        complete=complete,
        elapsed_s=elapsed_s,
    )
    summary.extra["accuracy_ci95"] = list(wilson_interval(correct, n))
    return summary


def wilson_interval(correct: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of ``correct / n`` (95% by default); (0, 1) when n is 0."""
    if n == 0:
        return (0.0, 1.0)
    p = correct / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def _interval_text(summary: RunSummary) -> str:
    interval = summary.extra.get("accuracy_ci95")
    return f"; 95% CI {interval[0]:.3f}-{interval[1]:.3f}" if interval else ""


def format_summary(summary: RunSummary, *, max_label_values: int = 12) -> str:
    """Return a short human-readable text of ``summary`` (for printing)."""
    lines = [
        f"{summary.task} on {summary.model}: accuracy {summary.accuracy:.4f} "
        f"({summary.correct}/{summary.n}{_interval_text(summary)})"
        f"{'' if summary.complete else ' [incomplete]'}",
        "  " + ", ".join(f"{k} {v}" for k, v in summary.statuses.items()),
        f"  tokens: {summary.usage['prompt_tokens']} in, {summary.usage['completion_tokens']} out"
        + (f"; est. cost ${summary.cost_usd:.4f}" if summary.cost_usd is not None else "")
        + f"; {summary.cached} cached",
    ]
    for name, values in summary.by_label.items():
        if len(values) > max_label_values:
            lines.append(f"  by {name}: {len(values)} values (see summary.json)")
            continue
        cells = ", ".join(f"{v} {c['accuracy']:.3f} (n={int(c['n'])})" for v, c in values.items())
        lines.append(f"  by {name}: {cells}")
    lines.append(f"  folder: {summary.out_dir}")
    return "\n".join(lines)
