"""Fault tests: the real OpenAIBackend (official SDK) against a real local server that fails
20-30% of requests (429 + Retry-After, 500, 503, hangs past the time-out, dropped connections,
truncated JSON bodies). Runs must lose nothing, duplicate nothing, and resume after SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from relreason.records import comparable, load_records
from relreason.run.runner import RunOptions, run_task
from servers.fault_server import FAULTS, FaultServer, toy_task

pytest.importorskip("openai")
from relreason.models.openai.backend import OpenAIBackend

pytestmark = pytest.mark.server

TESTS_DIR = Path(__file__).resolve().parent
N_ITEMS = 120
CLIENT_TIMEOUT = 0.5


def fault_options(**kw: Any) -> RunOptions:
    base: dict[str, Any] = {
        "use_cache": False,
        "concurrency": 8,
        "request_timeout": 2.0,
        "max_retries": 6,
        "retry_initial_wait": 0.05,
        "retry_max_wait": 0.3,
    }
    return RunOptions(**{**base, **kw})


def run_against(server: FaultServer, out: Path, n: int = N_ITEMS) -> dict[int, dict[str, Any]]:
    backend = OpenAIBackend("fault-model", base_urls=[server.url], timeout=CLIENT_TIMEOUT)
    run_task(toy_task(n), backend, out, fault_options())
    return load_records(out)


@pytest.fixture(scope="module")
def clean_records(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, Any]]:
    """The records of a fault-free run of the toy task (the reference for every other run)."""
    with FaultServer(fault_rate=0.0) as server:
        records = run_against(server, tmp_path_factory.mktemp("clean") / "run")
    assert len(records) == N_ITEMS and all(r["status"] != "failed" for r in records.values())
    return records


def same(a: dict[int, dict[str, Any]], b: dict[int, dict[str, Any]]) -> bool:
    return sorted(a) == sorted(b) and all(comparable(a[i]) == comparable(b[i]) for i in a)


def test_a_faulty_server_changes_nothing_in_the_records(
    tmp_path: Path, clean_records: dict[int, dict[str, Any]]
) -> None:
    with FaultServer(fault_rate=0.25, hang_s=1.5, retry_after=0.2) as server:
        start = time.monotonic()
        records = run_against(server, tmp_path / "run")
        elapsed = time.monotonic() - start
        faults = dict(server.faults)
        total = sum(server.counts.values())
    assert set(faults) == set(FAULTS), faults  # every kind of fault was played
    assert 0.15 <= sum(faults.values()) / total <= 0.35
    assert same(records, clean_records)
    assert max(r["attempts"] for r in records.values()) > 1
    assert elapsed < 60


def test_retries_exhausted_on_a_broken_server_are_recorded_then_redone(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with FaultServer(fault_rate=1.0, kinds=("503",), max_faults_per_prompt=10**6) as server:
        backend = OpenAIBackend("fault-model", base_urls=[server.url], timeout=CLIENT_TIMEOUT)
        summary = run_task(toy_task(8), backend, out, fault_options(max_retries=1))
        assert set(server.counts.values()) == {2}  # one try and one retry per item
    assert summary.failed == 8 and summary.n == 8
    assert all("503" in r["error"] for r in load_records(out).values())
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    with FaultServer(fault_rate=0.0, port=port) as server:  # the same server, mended
        backend = OpenAIBackend("fault-model", base_urls=[server.url], timeout=CLIENT_TIMEOUT)
        summary = run_task(toy_task(8), backend, out, fault_options())
    assert summary.failed == 0 and len(load_records(out)) == 8


SCRIPT = textwrap.dedent(
    """
    import logging, sys
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from servers.fault_server import toy_task
    from relreason.models.openai.backend import OpenAIBackend
    from relreason.run.runner import RunOptions, resume_run, run_task

    logging.basicConfig(level=logging.DEBUG)
    url, out, mode, retries = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    task = toy_task({n})
    backend = OpenAIBackend("fault-model", base_urls=[url], timeout={timeout})
    options = RunOptions(use_cache=False, concurrency=3, request_timeout=2.0,
                         max_retries=retries, retry_initial_wait=0.05, retry_max_wait=0.3,
                         show_progress=True)
    if mode == "run":
        summary = run_task(task, backend, out, options)
    else:
        override = {{"max_retries": retries}}
        summary = resume_run(out, task=task, backend=backend, options_override=override)
    print(summary)
    """
)


def write_script(tmp_path: Path) -> Path:
    script = tmp_path / "entry.py"
    script.write_text(SCRIPT.format(tests=str(TESTS_DIR), n=N_ITEMS, timeout=CLIENT_TIMEOUT))
    return script


def test_sigkill_midway_then_resume_sends_no_finished_item_again(
    tmp_path: Path, clean_records: dict[int, dict[str, Any]]
) -> None:
    script = write_script(tmp_path)
    out = tmp_path / "run"
    with FaultServer(fault_rate=0.25, hang_s=1.5, retry_after=0.2, delay_s=0.03) as server:
        child = subprocess.Popen(
            [sys.executable, str(script), server.url, str(out), "run", "6"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 120
            lines = 0
            while child.poll() is None and lines < 30 and time.monotonic() < deadline:
                time.sleep(0.05)
                records_file = out / "records.jsonl"
                lines = records_file.read_bytes().count(b"\n") if records_file.exists() else 0
            assert child.poll() is None, "the run finished before it could be killed"
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.wait(10)
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["status"] == "running"
        finished = {i for i, r in load_records(out).items() if r["status"] != "failed"}
        assert 30 <= len(finished) < N_ITEMS
        time.sleep(0.2)  # let the server take in what the dead client had already sent
        at_kill = server.stats()["counts"]
        done = subprocess.run(
            [sys.executable, str(script), server.url, str(out), "resume", "6"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        after = server.stats()["counts"]
    prompts = {item.index: item.prompt for item in toy_task(N_ITEMS).items}
    resent = [i for i in finished if after.get(prompts[i]) != at_kill.get(prompts[i])]
    assert resent == []
    final_lines = (out / "records.jsonl").read_text().splitlines()
    assert [json.loads(line)["index"] for line in final_lines] == list(range(N_ITEMS))
    assert same(load_records(out), clean_records)
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"


def test_a_planted_key_appears_nowhere(tmp_path: Path) -> None:
    key = "sk-test-PLANTED-4f1e9c0d2b7a4e6f8a1b3c5d"
    script = write_script(tmp_path)
    out = tmp_path / "run"
    env = {**os.environ, "OPENAI_API_KEY": key}
    with FaultServer(fault_rate=0.3, hang_s=1.5, retry_after=0.2) as server:
        done = subprocess.run(
            [sys.executable, str(script), server.url, str(out), "run", "0"],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    records = load_records(out)
    assert any(r["status"] == "failed" and r["error"] for r in records.values())
    assert "Authorization" in done.stderr or "HTTP Request" in done.stderr  # logs were on
    texts = [done.stdout, done.stderr] + [p.read_text() for p in out.rglob("*") if p.is_file()]
    assert not [t for t in texts if key in t]
