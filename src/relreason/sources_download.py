"""Download the official benchmark files, verify each SHA-256, and write them atomically.

All files asked for are fetched and verified in memory first; only then are they written, each
to a temp file in its own folder and moved into place with ``os.replace``. A failure (HTTP
error, checksum mismatch) therefore leaves the destination as it was.

``mcr/exemplars_official.json`` is not a file of the MCR repository: it is the dict named
``examplars`` in that repository's ``main.py``. Outside mirror mode it is extracted from
``main.py`` with ``ast`` and serialised as ``json.dumps(d, indent=2, ensure_ascii=False)``
(no trailing newline), which reproduces the pinned file byte for byte.
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from relreason.errors import ChecksumError, DataError, RelreasonError, UsageError
from relreason.sources import BENCHMARK_FILES, check_benchmark, resolve_data_dir, sha256_file

log = logging.getLogger(__name__)

MIRROR_ENV = "RELREASON_MIRROR"
RAW_BASE = "https://raw.githubusercontent.com"
MAX_BYTES = 64 * 1024 * 1024
EXEMPLARS_FILE = "exemplars_official.json"
EXEMPLARS_NAME = "examplars"  # sic: the name used in the MCR main.py


@dataclass(frozen=True)
class Repository:
    """Where a benchmark's files live upstream: ``owner/name`` at ``commit``, under ``folder``."""

    repo: str
    commit: str
    folder: str


REPOSITORIES: dict[str, Repository] = {
    "convre": Repository("3B-Group/ConvRe", "afb9a21fd2e4216c85faf3934abf7004bbe6d48d", "data"),
    "mcr": Repository(
        "zhaojinm/Multilingual_Composition_Relation_benchmark",
        "23aaee66440a95eb7ffb2b3f396eed722038ad2e",
        "dataset/composition",
    ),
}
MCR_MAIN_PY = "main.py"


def raw_url(benchmark: str, path: str, raw_base: str = RAW_BASE) -> str:
    """Return the raw address of ``path`` in the benchmark's repository at the pinned commit."""
    source = REPOSITORIES[benchmark]
    return f"{raw_base.rstrip('/')}/{source.repo}/{source.commit}/{path}"


def source_url(benchmark: str, filename: str, mirror: str | None, raw_base: str = RAW_BASE) -> str:
    """Return where ``benchmark/filename`` is fetched from (for the exemplars: the main.py URL)."""
    if mirror:
        return f"{mirror.rstrip('/')}/{benchmark}/{filename}"
    if benchmark == "mcr" and filename == EXEMPLARS_FILE:
        return raw_url(benchmark, MCR_MAIN_PY, raw_base)
    return raw_url(benchmark, f"{REPOSITORIES[benchmark].folder}/{filename}", raw_base)


def _benchmarks(which: str) -> list[str]:
    name = which.strip().lower()
    if name == "all":
        return sorted(BENCHMARK_FILES)
    if name not in BENCHMARK_FILES:
        raise UsageError(f"unknown data set {which!r}: expected convre, mcr or all")
    return [check_benchmark(name)]


def _mirror(mirror: str | None) -> str | None:
    base = mirror if mirror is not None else os.environ.get(MIRROR_ENV, "")
    if not base:
        return None
    if httpx.URL(base).scheme not in ("http", "https"):
        raise UsageError(f"mirror {base!r} is not an http:// or https:// address")
    return base


def fetch(client: httpx.Client, url: str) -> bytes:
    """Return the body of a GET of ``url``.

    Raises ``RelreasonError`` naming the URL for a non-200 answer, a time-out, a connection
    failure, or a body larger than ``MAX_BYTES``.
    """
    try:
        with client.stream("GET", url) as response:
            if response.status_code != 200:
                raise RelreasonError(
                    f"download failed: {url} answered HTTP {response.status_code} "
                    f"{response.reason_phrase}".rstrip()
                )
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_BYTES:
                    raise RelreasonError(f"download failed: {url} is larger than {MAX_BYTES} bytes")
                chunks.append(chunk)
    except httpx.TimeoutException:
        raise RelreasonError(f"download failed: {url} timed out") from None
    except httpx.HTTPError as exc:
        raise RelreasonError(f"download failed: {url}: {exc}") from None
    return b"".join(chunks)


def extract_exemplars(source: bytes, origin: str) -> dict[str, str]:
    """Return the ``examplars`` dict assigned at the top level of a Python source file.

    Only that assignment's value is evaluated, with ``ast.literal_eval``. Raises ``DataError``
    naming ``origin`` when the source does not parse, has no such assignment, or its value is
    not a literal dict of strings.
    """
    try:
        tree = ast.parse(source, filename=origin)
    except (SyntaxError, ValueError) as exc:
        raise DataError(origin, f"not valid Python: {exc}") from None
    found: ast.expr | None = None
    for node in tree.body:  # the last top-level assignment wins, as when Python runs the file
        if isinstance(node, ast.Assign):
            targets, value_node = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value_node = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == EXEMPLARS_NAME for t in targets):
            found = value_node
    if found is None:
        raise DataError(origin, f"no top-level assignment to {EXEMPLARS_NAME!r}")
    try:
        value: Any = ast.literal_eval(found)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise DataError(origin, "not a literal value", field=EXEMPLARS_NAME) from None
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise DataError(origin, "expected a dict of strings", field=EXEMPLARS_NAME)
    return value


def exemplars_json(exemplars: dict[str, str]) -> bytes:
    """Return the bytes of ``exemplars_official.json`` for an exemplar dict (key order kept)."""
    return json.dumps(exemplars, indent=2, ensure_ascii=False).encode("utf-8")


def _is_current(path: Path, pinned: str) -> bool:
    if not path.is_file():
        return False
    if sha256_file(path) == pinned:
        return True
    log.warning("%s differs from the official release; it will be replaced", path)
    return False


def _fetch_verified(
    client: httpx.Client, benchmark: str, filename: str, mirror: str | None, raw_base: str
) -> bytes:
    url = source_url(benchmark, filename, mirror, raw_base)
    body = fetch(client, url)
    if not mirror and benchmark == "mcr" and filename == EXEMPLARS_FILE:
        body = exemplars_json(extract_exemplars(body, url))
        url = f"{url} ({EXEMPLARS_NAME} dict)"
    expected = BENCHMARK_FILES[benchmark][filename]
    actual = hashlib.sha256(body).hexdigest()
    if actual != expected:
        raise ChecksumError(
            f"{benchmark}/{filename}",
            f"downloaded from {url}: SHA-256 is {actual}, expected {expected}; nothing was written",
        )
    return body


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temp file in the same folder and ``os.replace``.

    Creates the folder if needed. On failure the temp file is removed and ``path`` is untouched;
    raises ``RelreasonError`` naming the path.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise RelreasonError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise RelreasonError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


def download_files(
    which: str,
    dest: Path | str | None = None,
    *,
    mirror: str | None = None,
    timeout: float = 60,
    raw_base: str = RAW_BASE,
) -> list[Path]:
    """Implement ``relreason.sources.download`` (see there); ``raw_base`` is for tests only.

    Returns every requested file's local path. Raises ``UsageError``, ``ChecksumError`` or
    ``RelreasonError``.
    """
    benchmarks = _benchmarks(which)
    base = _mirror(mirror)
    root = resolve_data_dir(dest)
    pending: list[tuple[Path, bytes]] = []
    ready: list[Path] = []
    with httpx.Client(timeout=timeout, follow_redirects=True) as client:
        for benchmark in benchmarks:
            for filename, pinned in sorted(BENCHMARK_FILES[benchmark].items()):
                path = root / benchmark / filename
                ready.append(path)
                if _is_current(path, pinned):
                    log.info("%s is present and verified", path)
                    continue
                pending.append((path, _fetch_verified(client, benchmark, filename, base, raw_base)))
    for path, body in pending:
        write_atomic(path, body)
        log.info("wrote %s", path)
    return ready
