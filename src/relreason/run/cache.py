"""A SQLite response cache shared by runs (and by several processes at once).

Key: the SHA-256 of a canonical JSON of the backend's identity (``describe()`` without the
volatile fields that cannot change an output, such as batch size; the served model name and
the set of servers are in), the
operation, the prompt and everything else that shapes the answer (generation parameters, or the
scored continuations). Value: the ``Response`` as JSON. Only successful responses are stored.

The database runs in WAL mode with a busy timeout, short transactions and ``INSERT OR REPLACE``,
so several writers (processes or threads) can share one file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from relreason.errors import UsageError
from relreason.redact import scrub_secrets
from relreason.run.warnings import warn
from relreason.types import Response, Usage
from relreason.untrusted import clean_line

VOLATILE_DESCRIBE_FIELDS = frozenset({"batch_size", "concurrency", "timeout", "max_retries"})
"""``describe()`` fields that cannot change an output and so stay out of cache keys. The
servers (``base_url``/``base_urls``, as a set) are in: another server may serve another model
under the same name."""

_READ_CHUNK = 500  # keys per ``WHERE key IN (...)`` (SQLite allows 32766 variables)
_SCHEMA = "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
_FIELDS = fields(Response)
_USAGE_FIELDS = fields(Usage)


def response_to_json(response: Response) -> dict[str, Any]:
    """Return a JSON-ready dict of ``response`` (tuples become lists)."""
    data = {f.name: getattr(response, f.name) for f in _FIELDS}  # asdict() deep-copies
    data["usage"] = {f.name: getattr(response.usage, f.name) for f in _USAGE_FIELDS}
    if response.top_logprobs is not None:
        data["top_logprobs"] = [dict(p) for p in response.top_logprobs]
    if response.choice_logprobs is not None:
        data["choice_logprobs"] = dict(response.choice_logprobs)
    return data


def response_from_json(data: Any) -> Response:
    """Rebuild a ``Response`` written by :func:`response_to_json`.

    Raises ``ValueError`` naming the field for a value of the wrong shape (a corrupt or foreign
    cache entry): text that is not a string, an entry with neither text nor choice
    log-likelihoods (only answers are stored), log-probabilities that are not numbers, usage
    that is not a mapping of counts.
    """
    if not isinstance(data, Mapping):
        raise ValueError("not a JSON object")
    text = data.get("text")
    if text is not None and not isinstance(text, str):
        raise ValueError(f"text is {type(text).__name__}, not a string")
    choices = _logprob_map(data.get("choice_logprobs"), "choice_logprobs")
    if text is None and choices is None:
        raise ValueError("neither text nor choice_logprobs (only answers are stored)")
    top = data.get("top_logprobs")
    if top is not None and not isinstance(top, list):
        raise ValueError("top_logprobs is not a list")
    usage = data.get("usage") or {}
    if not isinstance(usage, Mapping):
        raise ValueError("usage is not a mapping")
    counts = [usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)]
    if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
        raise ValueError("usage holds something other than token counts")
    latency = data.get("latency_s", 0.0)
    served = data.get("served_model")
    note = data.get("note")
    if not isinstance(latency, int | float) or isinstance(latency, bool):
        raise ValueError("latency_s is not a number")
    if data.get("error") is not None:
        raise ValueError("an error is stored (only answers are)")
    if not all(v is None or isinstance(v, str) for v in (served, note)):
        raise ValueError("served_model or note is not a string")
    return Response(
        text=text,
        top_logprobs=None
        if top is None
        else tuple(_logprob_map(p, "top_logprobs") or {} for p in top),
        choice_logprobs=choices,
        usage=Usage(counts[0], counts[1]),
        latency_s=float(latency),
        served_model=served,
        note=note,
    )


def _logprob_map(value: Any, field: str) -> dict[str, float] | None:
    """``value`` as token -> log-probability, or None; raises ``ValueError`` when it is not."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, int | float) and not isinstance(v, bool)
        for k, v in value.items()
    ):
        raise ValueError(f"{field} is not a mapping of text to number")
    return {k: float(v) for k, v in value.items()}


def stable_identity(description: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``description`` without :data:`VOLATILE_DESCRIBE_FIELDS` (a list of servers is
    sorted: the same set of servers is the same identity)."""
    identity = {k: v for k, v in description.items() if k not in VOLATILE_DESCRIBE_FIELDS}
    urls = identity.get("base_urls")
    if isinstance(urls, list | tuple):
        identity["base_urls"] = sorted(str(u) for u in urls)
    return identity


def cache_key(
    identity: Mapping[str, Any], operation: str, prompt: str, extra: Mapping[str, Any]
) -> str:
    """Return the hex SHA-256 of the canonical JSON of one request.

    ``identity`` is :func:`stable_identity` of the backend; ``operation`` is ``"generate"`` or
    ``"score_choices"``; ``extra`` holds the generation parameters or the continuations (and
    anything else that can change the answer). Raises ``TypeError`` for non-JSON values.
    """
    payload = {"backend": identity, "op": operation, "prompt": prompt, "extra": extra}
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """Successful responses by request key, in one SQLite file (WAL mode).

    One connection per thread; every write is its own short transaction.
    Raises ``UsageError`` when the file cannot be created or opened.
    """

    def __init__(
        self, path: Path, *, busy_timeout_s: float = 30.0, max_bytes: int | None = None
    ) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        """Entries longer than this (in bytes) are not read: misses, asked again."""
        self.oversized = 0
        self._busy_ms = int(busy_timeout_s * 1000)
        self._local = threading.local()
        self.hits = 0
        self.misses = 0
        self.bad_rows = 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connection()
        except (OSError, sqlite3.Error) as error:
            raise UsageError(f"cannot open the response cache {self.path}: {error}") from None

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=self._busy_ms / 1000, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout={self._busy_ms}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(_SCHEMA)
            self._local.conn = conn
        return conn

    def get_many(self, keys: Sequence[str]) -> dict[str, Response]:
        """Return the cached responses of ``keys`` that are present (batched ``IN`` reads).

        Entries of the wrong shape, and entries over ``max_bytes`` (never loaded), count as misses
        (their items are asked again and the answer replaces them); the first time, one warning
        says how many and why. Raises
        ``sqlite3.Error`` only if the database fails.
        """
        conn = self._connection()
        found: dict[str, Response] = {}
        bad: list[str] = []
        oversized = 0
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), _READ_CHUNK):
            chunk = unique[start : start + _READ_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                "SELECT key, CASE WHEN ? IS NULL OR length(CAST(value AS BLOB)) <= ? "
                f"THEN value END FROM responses WHERE key IN ({marks})",
                [self.max_bytes, self.max_bytes, *chunk],
            )
            for key, value in rows:
                if value is None:
                    oversized += 1
                    continue
                try:
                    found[key] = response_from_json(json.loads(value))
                except (ValueError, TypeError, RecursionError) as error:
                    bad.append(str(error)[:120])
        if oversized and not self.oversized:
            warn(
                f"ignored {oversized} cache entr(ies) over {self.max_bytes} bytes in "
                f"{self.path} (the cap from --max-answer-chars); their items are asked again"
            )
        self.oversized += oversized
        if bad and not self.bad_rows:
            warn(
                f"ignored {len(bad)} cache row(s) of the wrong shape in {self.path} "
                f"({bad[0]}); their items are asked again"
            )
        self.bad_rows += len(bad)
        self.hits += len(found)
        self.misses += len(unique) - len(found)
        return found

    def get(self, key: str) -> Response | None:
        """Return the cached response of ``key``, or None."""
        return self.get_many([key]).get(key)

    def put_many(self, entries: Iterable[tuple[str, Response]]) -> int:
        """Store answers (responses with an error, or with neither text nor choice
        log-likelihoods, are skipped); return how many.

        One short transaction; ``INSERT OR REPLACE`` so a refresh overwrites.
        """
        rows = [
            (
                key,
                clean_line(
                    scrub_secrets(
                        json.dumps(response_to_json(r), ensure_ascii=False, separators=(",", ":"))
                    )
                ),
            )
            for key, r in entries
            if r.error is None and (r.text is not None or r.choice_logprobs is not None)
        ]
        if not rows:
            return 0
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT OR REPLACE INTO responses (key, value) VALUES (?, ?)", rows)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return len(rows)

    def info(self) -> dict[str, Any]:
        """The cache's path, number of responses and size on disk in bytes."""
        size = sum(
            p.stat().st_size
            for p in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm"))
            if p.exists()
        )
        return {"path": str(self.path), "responses": len(self), "bytes": size}

    def clear(self) -> int:
        """Remove every response; return how many there were."""
        count = len(self)
        conn = self._connection()
        conn.execute("DELETE FROM responses")
        conn.execute("VACUUM")
        return count

    def __len__(self) -> int:
        row = self._connection().execute("SELECT COUNT(*) FROM responses").fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
