"""Failures are loud: exit codes (0 all answered, 3 items failed, 2 bad input), the circuit
breaker naming the unreachable server, and no accuracy printed when nothing was answered.
Real OpenAI backend (official SDK) against the real local fault server, through the CLI."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from clihelp import free_port, run_cli, tiny_args, tiny_registered
from relreason.records import Record, format_summary, load_records, summarize
from servers.fault_server import FaultServer
from test_tiny_benchmark import Tiny

pytest.importorskip("openai")
pytestmark = pytest.mark.server


@pytest.fixture(autouse=True)
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Tiny]:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    yield from tiny_registered()


def api(url: str, *extra: str) -> list[str]:
    return ["--model", "openai:fault-model", "--base-url", url, "--no-cache", *extra]


def test_all_answered_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FaultServer(fault_rate=0.0) as server:
        code, out, _ = run_cli(tiny_args(tmp_path / "run", 6, *api(server.url)), capsys)
    assert code == 0, out
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["failed"] == 0 and summary["answered"] == 6


def test_failed_items_exit_3_with_count_and_commonest_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    with FaultServer(fault_rate=1.0, kinds=("503",), max_faults_per_prompt=10**6) as server:
        code, stdout, stderr = run_cli(
            tiny_args(out, 6, *api(server.url, "--max-retries", "0")), capsys
        )
    assert code == 3
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failed"] == 6 and summary["answered"] == 0
    assert summary["most_common_error_count"] == 6 and "503" in summary["most_common_error"]
    assert "0.0000" not in stdout and "accuracy n/a" in stdout
    assert f"relreason run --resume {out}" in stderr and "6 of 6 item(s) failed" in stderr


def test_refused_connections_trip_the_breaker_fast_and_name_the_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "run"
    start = time.monotonic()
    code, _, stderr = run_cli(tiny_args(out, 40, *api(url)), capsys)
    assert time.monotonic() - start < 15
    assert code == 3
    assert f"connection refused at {url}: is the server running?" in stderr
    assert json.loads((out / "manifest.json").read_text())["status"] == "failed"


def test_the_breaker_keeps_what_finished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.0) as server:
        code, _, _ = run_cli(tiny_args(out, 30, *api(server.url), "--limit", "10"), capsys)
        url = server.url
    assert code == 0 and len(load_records(out)) == 10
    # the server is gone: a resume without the limit stops, keeping the ten
    from relreason.errors import ServerUnreachableError
    from relreason.run.runner import resume_run

    with pytest.raises(ServerUnreachableError, match="is the server running"):
        resume_run(out, options_override={"limit": None})
    kept = load_records(out)
    assert sum(r["status"] != "failed" for r in kept.values()) == 10
    assert url in (out / "manifest.json").read_text()


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, stderr = run_cli(tiny_args(tmp_path / "run", 6, "--model", "no-such-model:x"), capsys)
    assert code == 2 and "Traceback" not in stderr


def test_nothing_answered_never_prints_zero_accuracy() -> None:
    records = [Record(i, str(i), "A", status="failed", error="boom") for i in range(3)]
    text = format_summary(
        summarize(records, out_dir=Path("x"), task="t", model="m", cost_usd=None, complete=True)
    )
    assert "0.0000" not in text and "n/a" in text and "3 item(s) failed" in text
    empty = format_summary(
        summarize([], out_dir=Path("x"), task="t", model="m", cost_usd=None, complete=True)
    )
    assert "0.0000" not in empty


def test_resume_of_a_no_progress_run_prints_its_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    code, _, err = run_cli(tiny_args(out, 6, "--model", "oracle", "--limit", "2"), capsys)
    assert code == 0 and f"run folder: {out}" in err
    code, stdout, err = run_cli(["run", "--resume", str(out)], capsys)
    assert code == 0 and "accuracy 1.0000 (2/2" in stdout and f"run folder: {out}" in err
