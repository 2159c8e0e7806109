"""The tests' data lookup (conftest): a local copy, else relreason's pinned, checksummed download
into a cache folder, else a skip that says why (no network, or the download failed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clihelp import free_port
from conftest import find_official_data
from http_static import StaticServer


def test_the_official_files_are_downloaded_and_verified_when_no_copy_is_given(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with StaticServer(shared_data) as mirror:
        monkeypatch.setenv("RELREASON_MIRROR", mirror.url)
        folder, how = find_official_data(tmp_path / "absent", tmp_path / "cache")
        assert folder == tmp_path / "cache" and "verified" in how
        assert (folder / "convre" / "triple_dataset.json").read_bytes() == (
            shared_data / "convre" / "triple_dataset.json"
        ).read_bytes()
        asked = len(mirror.requests)
        again, how = find_official_data(tmp_path / "absent", tmp_path / "cache")
        assert again == folder and "downloaded copy" in how and len(mirror.requests) == asked


def test_a_damaged_mirror_file_is_refused(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with StaticServer(shared_data) as mirror:
        mirror.corrupt["mcr/composition_english.json"] = lambda body: body + b" "
        monkeypatch.setenv("RELREASON_MIRROR", mirror.url)
        folder, how = find_official_data(tmp_path / "absent", tmp_path / "cache")
    assert folder is None and "SHA-256" in how and "RELREASON_TEST_DATA" in how


def test_no_network_is_said_clearly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELREASON_MIRROR", "http://no-such-host.invalid")
    folder, how = find_official_data(tmp_path / "absent", tmp_path / "cache")
    assert folder is None and "there is no network" in how


def test_a_dead_mirror_is_a_failed_download(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RELREASON_MIRROR", f"http://127.0.0.1:{free_port()}")
    folder, how = find_official_data(tmp_path / "absent", tmp_path / "cache")
    assert folder is None and "download failed" in how
