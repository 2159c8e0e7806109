"""The official data files: where they are (``sources``), what they must be (``spec``), and
how they are fetched (``download``). Knows no benchmark by name: each benchmark package
declares its ``DataFiles``.

Public face: ``DataFile``, ``DataFiles``, ``resolve_data_dir``, ``data_file``, ``load_json``,
``file_checksums(files)``, ``verify(files)``, ``download_files(specs)`` (imported on first use:
it needs httpx, which reading the files does not)."""

from __future__ import annotations

from typing import Any

from relreason.data.sources import data_file, file_checksums, load_json, resolve_data_dir, verify
from relreason.data.spec import DataFile, DataFiles

__all__ = [
    "DataFile",
    "DataFiles",
    "data_file",
    "download_files",
    "file_checksums",
    "load_json",
    "resolve_data_dir",
    "verify",
]


def __getattr__(name: str) -> Any:
    """``download_files``, imported on first use."""
    if name == "download_files":
        from relreason.data.download import download_files

        return download_files
    raise AttributeError(f"module 'relreason.data' has no attribute {name!r}")
