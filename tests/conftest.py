"""Shared fixtures: where the official data lies (a local copy, else downloaded with relreason's
own pinned, checksummed download), and a clear skip only when neither is possible."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest
from hypothesis import settings

# Wall-clock deadlines make property tests flaky on a loaded 2-core CI machine; speed is
# measured in benchmarks/, not asserted in tests.
settings.register_profile("relreason", deadline=None)
settings.load_profile("relreason")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("RELREASON_TEST_DATA", REPO_ROOT.parent / "shared" / "data"))
DOWNLOADED_DATA = Path(
    os.environ.get("RELREASON_TEST_DATA_CACHE", REPO_ROOT / ".pytest_cache" / "relreason-data")
)
"""Where the tests download the official data when no local copy is given (never committed:
.pytest_cache ignores itself)."""


def _has_data(folder: Path) -> bool:
    return (folder / "convre" / "triple_dataset.json").is_file() and (
        folder / "mcr" / "composition_english.json"
    ).is_file()


def _verified(folder: Path) -> bool:
    from relreason.benchmarks.registry import verify

    return _has_data(folder) and not verify("convre", folder) and not verify("mcr", folder)


def find_official_data(shared: Path, downloaded: Path) -> tuple[Path | None, str]:
    """The official data folder and how it was found, or None and why not.

    ``shared`` (``RELREASON_TEST_DATA`` or ``../shared/data``) when it holds the files; else
    ``downloaded`` once verified, fetching the files into it with relreason's own pinned,
    SHA-256-checked download (from ``RELREASON_MIRROR`` when set) if needed.
    """
    if _has_data(shared):
        return shared, f"local copy at {shared}"
    if _verified(downloaded):
        return downloaded, f"downloaded copy at {downloaded}"
    from relreason.benchmarks.registry import download
    from relreason.errors import RelreasonError

    try:
        download("all", downloaded, timeout=60)
    except RelreasonError as error:
        text = str(error)
        offline = any(hint in text for hint in _OFFLINE_HINTS)
        why = "there is no network" if offline else "the download failed"
        return None, (
            f"official data not found at {shared} and {why} ({text}); set "
            "RELREASON_TEST_DATA to a folder holding convre/ and mcr/, or run the tests online "
            f"once (the files are then kept in {downloaded})"
        )
    return downloaded, f"downloaded (pinned, verified) to {downloaded}"


_OFFLINE_HINTS = (
    "Name or service not known",
    "nodename nor servname",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "No address associated",
)


@functools.cache
def official_data() -> tuple[Path | None, str]:
    """:func:`find_official_data` for this test session (looked up once)."""
    return find_official_data(SHARED_DATA, DOWNLOADED_DATA)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The official data folder (holding convre/ and mcr/): a local copy, else relreason's
    pinned, checksummed download; skips (saying why, e.g. no network) only when neither works."""
    folder, how = official_data()
    if folder is None:
        pytest.skip(how)
    return folder


@pytest.fixture()
def data_copy(shared_data: Path, tmp_path: Path) -> Path:
    """A writable copy of the official data folder, for tests that corrupt a file."""
    import shutil

    dest = tmp_path / "data"
    shutil.copytree(shared_data, dest)
    for path in dest.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dest
