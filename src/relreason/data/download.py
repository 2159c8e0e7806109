"""Download a benchmark's official files, verify each SHA-256, and write them atomically.

All files asked for are fetched and verified in memory first; only then are they written, each
to a temp file in its own folder and moved into place with ``os.replace``. A failure (HTTP
error, checksum mismatch) therefore leaves the destination as it was.

Files come from the upstream repository at the pinned commit (``DataFiles``), or from a mirror
serving ``<folder>/<file>`` as they are (``--mirror`` / ``RELREASON_MIRROR``). A file with a
``transform`` is derived from its upstream file (MCR's exemplars from ``main.py``).
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Sequence
from pathlib import Path

import httpx

from relreason.data.sources import resolve_data_dir, sha256_file
from relreason.data.spec import DataFile, DataFiles
from relreason.errors import ChecksumError, RelreasonError, UsageError
from relreason.files import atomic_write_bytes

log = logging.getLogger(__name__)

MIRROR_ENV = "RELREASON_MIRROR"
RAW_BASE = "https://raw.githubusercontent.com"
MAX_BYTES = 64 * 1024 * 1024
OFFLINE_HINT = (
    "To go on without this network: copy the data folder (convre/, mcr/) from a machine that "
    "has it (`relreason download all --dest DIR` there) and set RELREASON_DATA_DIR=DIR (or "
    f"pass --data-dir DIR), or fetch from a mirror you can reach with --mirror URL (or "
    f"{MIRROR_ENV}=URL) serving <benchmark>/<file>. The generated benchmark needs no download: "
    "relreason run compose."
)
"""What a failed connection says to do next."""


def raw_url(files: DataFiles, path: str, raw_base: str = RAW_BASE) -> str:
    """Return the raw address of ``path`` in the benchmark's repository at the pinned commit."""
    return f"{raw_base.rstrip('/')}/{files.repo}/{files.commit}/{path}"


def source_url(
    files: DataFiles, data_file: DataFile, mirror: str | None, raw_base: str = RAW_BASE
) -> str:
    """Return where a file is fetched from: the mirror's copy, else its upstream file."""
    if mirror:
        return f"{mirror.rstrip('/')}/{files.folder}/{data_file.name}"
    return raw_url(files, data_file.upstream, raw_base)


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
        raise RelreasonError(f"download failed: {url} timed out. {OFFLINE_HINT}") from None
    except httpx.TransportError as exc:
        raise RelreasonError(
            f"download failed: {url}: {exc or type(exc).__name__} (no network, or the host is "
            f"unreachable). {OFFLINE_HINT}"
        ) from None
    except httpx.HTTPError as exc:
        raise RelreasonError(f"download failed: {url}: {exc}") from None
    return b"".join(chunks)


def _is_current(path: Path, pinned: str) -> bool:
    if not path.is_file():
        return False
    if sha256_file(path) == pinned:
        return True
    log.warning("%s differs from the official release; it will be replaced", path)
    return False


def _fetch_verified(
    client: httpx.Client,
    files: DataFiles,
    data_file: DataFile,
    mirror: str | None,
    raw_base: str,
) -> bytes:
    url = source_url(files, data_file, mirror, raw_base)
    body = fetch(client, url)
    if not mirror and data_file.transform is not None:
        body = data_file.transform(body, url)
        url = f"{url} (derived)"
    actual = hashlib.sha256(body).hexdigest()
    if actual != data_file.sha256:
        raise ChecksumError(
            f"{files.folder}/{data_file.name}",
            f"downloaded from {url}: SHA-256 is {actual}, expected {data_file.sha256}; "
            "nothing was written",
        )
    return body


def download_files(
    specs: Sequence[DataFiles],
    dest: Path | str | None = None,
    *,
    mirror: str | None = None,
    timeout: float = 60,
    raw_base: str = RAW_BASE,
) -> list[Path]:
    """Fetch the files of each ``DataFiles`` into ``dest`` (default: ``resolve_data_dir()``).

    Every file is checked against its pinned SHA-256 before anything is written; files already
    present with the right hash are skipped. Returns the local path of every file asked for,
    all verified. ``raw_base`` is for tests only. Raises ``UsageError`` for a bad mirror or an
    unwritable destination, ``ChecksumError`` for a file whose hash differs (nothing is written
    then), ``RelreasonError`` naming the URL for HTTP errors.
    """
    base = _mirror(mirror)
    root = resolve_data_dir(dest)
    pending: list[tuple[Path, bytes]] = []
    ready: list[Path] = []
    with httpx.Client(timeout=timeout, follow_redirects=True) as client:
        for files in specs:
            for data_file in sorted(files.files, key=lambda f: f.name):
                path = root / files.folder / data_file.name
                ready.append(path)
                if _is_current(path, data_file.sha256):
                    log.info("%s is present and verified", path)
                    continue
                body = _fetch_verified(client, files, data_file, base, raw_base)
                pending.append((path, body))
    for path, body in pending:
        atomic_write_bytes(path, body, make_parents=True)
        log.info("wrote %s", path)
    return ready
