"""Shared fixtures: where the official data lies, and skips when it is absent."""

from __future__ import annotations

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


def _has_data() -> bool:
    return (SHARED_DATA / "convre" / "triple_dataset.json").is_file() and (
        SHARED_DATA / "mcr" / "composition_english.json"
    ).is_file()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The official data folder (holding convre/ and mcr/); skips the test when it is absent."""
    if not _has_data():
        pytest.skip(f"official data not found at {SHARED_DATA} (set RELREASON_TEST_DATA)")
    return SHARED_DATA


@pytest.fixture()
def data_copy(shared_data: Path, tmp_path: Path) -> Path:
    """A writable copy of the official data folder, for tests that corrupt a file."""
    import shutil

    dest = tmp_path / "data"
    shutil.copytree(shared_data, dest)
    for path in dest.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dest
