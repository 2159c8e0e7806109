"""What a benchmark's official files are: where they live upstream (repository, pinned commit,
path) and the SHA-256 each must have. A benchmark package declares one ``DataFiles``; the data
layer (find, verify, download) works from it and knows no benchmark by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Transform = Callable[[bytes, str], bytes]
"""Turns an upstream file's bytes (and its URL, for messages) into the local file's bytes."""


@dataclass(frozen=True)
class DataFile:
    """One local file: its name, pinned SHA-256 and upstream path (relative to the repository).

    ``transform`` derives the file from the upstream one (e.g. MCR's exemplars, taken from a
    dict in ``main.py``); a mirror serves the local file as it is, so it is not applied there.
    """

    name: str
    sha256: str
    upstream: str
    transform: Transform | None = field(default=None, compare=False)


@dataclass(frozen=True)
class DataFiles:
    """A benchmark's official files: ``<data dir>/<folder>/<name>``, from ``repo`` at ``commit``."""

    folder: str
    repo: str
    commit: str
    files: tuple[DataFile, ...]

    def pinned(self) -> dict[str, str]:
        """Return file name -> pinned SHA-256."""
        return {f.name: f.sha256 for f in self.files}

    def get(self, name: str) -> DataFile:
        """Return the file called ``name``; raises ``KeyError`` for an unknown one."""
        for data_file in self.files:
            if data_file.name == name:
                return data_file
        raise KeyError(name)
