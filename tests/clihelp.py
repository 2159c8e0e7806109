"""Helpers for the hardening tests: a tiny registered benchmark and a CLI runner."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from relreason import benchmarks
from relreason.cli import main
from test_tiny_benchmark import Tiny


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``relreason ARGS``; return (exit code, stdout, stderr)."""
    try:
        main(args)
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def tiny_registered() -> Iterator[Tiny]:
    """Register the tiny benchmark for one test (use as a fixture body)."""
    bench = Tiny()
    benchmarks.register(bench)
    try:
        yield bench
    finally:
        benchmarks.unregister("tiny")


def free_port() -> int:
    """A local TCP port nobody listens on (closed right after it is found)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def tiny_args(out: Path, n: int = 6, *extra: str) -> list[str]:
    """``run tiny`` arguments without progress display."""
    return ["run", "tiny", "--n", str(n), "--out", str(out), "--no-progress", *extra]
