"""The official data files of a benchmark by its name, for the tests: fetched, checked,
pinned (``relreason download`` does the same from the command line)."""

from __future__ import annotations

from pathlib import Path

from relreason.benchmarks import data_files
from relreason.data.download import RAW_BASE, download_files
from relreason.data.sources import verify as verify_files


def download(
    which: str,
    dest: Path | str | None = None,
    *,
    mirror: str | None = None,
    timeout: float = 60,
    raw_base: str = RAW_BASE,
) -> list[Path]:
    """Fetch the official files of ``which`` (a benchmark name or ``all``) into ``dest``."""
    return download_files(
        data_files(which), dest, mirror=mirror, timeout=timeout, raw_base=raw_base
    )


def verify(name: str, data_dir: Path | str | None = None) -> list[str]:
    """One line per file of benchmark ``name`` that is missing or differs from its pin."""
    return verify_files(data_files(name)[0], data_dir)


def pinned_files(name: str) -> dict[str, str]:
    """File name -> pinned SHA-256 of benchmark ``name``'s official files."""
    return data_files(name)[0].pinned()
