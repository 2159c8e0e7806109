"""One writer per run folder: a second run or resume is refused naming the holder (pid, host);
a lock left by a dead process is taken over; two racing processes never both write."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from relreason.errors import UsageError
from relreason.models.baselines import BaselineBackend
from relreason.records import load_records
from relreason.run.lock import LOCK_FILE, RunLock
from relreason.run.runner import RunOptions, resume_run, run_task
from servers.fault_server import toy_task

TESTS_DIR = Path(__file__).resolve().parent
SRC = TESTS_DIR.parent / "src"

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from relreason.run.lock import RunLock
    lock = RunLock(Path(sys.argv[1]))
    lock.acquire()
    print("locked", flush=True)
    time.sleep(60)
    """
)


def hold_lock(folder: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "locked"
    return child


def test_a_held_folder_is_refused_naming_pid_and_host(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_task(toy_task(6), BaselineBackend("first"), out, RunOptions(use_cache=False))
    child = hold_lock(out)
    try:
        before = (out / "records.jsonl").read_bytes()
        with pytest.raises(UsageError, match=rf"pid {child.pid} on host {socket.gethostname()}"):
            run_task(toy_task(6), BaselineBackend("first"), out, RunOptions(use_cache=False))
        with pytest.raises(UsageError, match="being written by another relreason process"):
            resume_run(out, task=toy_task(6), backend=BaselineBackend("first"))
        assert (out / "records.jsonl").read_bytes() == before
    finally:
        child.kill()
        child.wait()


def test_a_lock_left_by_a_killed_process_is_taken_over(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    child = hold_lock(out)
    child.send_signal(signal.SIGKILL)
    child.wait()
    left = json.loads((out / LOCK_FILE).read_text())
    assert left["pid"] == child.pid  # the dead process's lock file is still there
    summary = run_task(toy_task(6), BaselineBackend("first"), out, RunOptions(use_cache=False))
    assert summary.n == 6 and not (out / LOCK_FILE).exists()


def test_the_same_process_cannot_take_a_held_lock_twice(tmp_path: Path) -> None:
    with RunLock(tmp_path), pytest.raises(UsageError, match=f"pid {os.getpid()}"):
        RunLock(tmp_path).acquire()
    RunLock(tmp_path).acquire()  # released: free again


RACER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from servers.fault_server import toy_task
    from relreason.models.baselines import BaselineBackend
    from relreason.errors import UsageError
    from relreason.run.runner import RunOptions, run_task
    import time
    go = Path(sys.argv[2])
    print("ready", flush=True)
    while not go.exists():  # all three start writing at the same moment
        time.sleep(0.001)
    try:
        run_task(toy_task(300), BaselineBackend("random", seed=2), Path(sys.argv[1]),
                 RunOptions(use_cache=False, concurrency=2))
    except UsageError as error:
        print("refused:", error)
        sys.exit(2)
    """
)


def test_two_racing_processes_never_both_write(tmp_path: Path) -> None:
    out = tmp_path / "run"
    script = tmp_path / "racer.py"
    script.write_text(RACER.format(tests=str(TESTS_DIR)))
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    go = tmp_path / "go"
    racers = [
        subprocess.Popen(
            [sys.executable, str(script), str(out), str(go)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    try:  # once all three are ready (however slowly a loaded machine started them), go
        for racer in racers:
            assert racer.stdout is not None and racer.stdout.readline().strip() == "ready"
        go.touch()
        results = [(r.wait(120), r.communicate()) for r in racers]
    finally:
        for racer in racers:
            if racer.poll() is None:
                racer.kill()
                racer.communicate()
    codes = sorted(code for code, _ in results)
    assert codes[0] == 0, results
    refused = [out_err for code, out_err in results if code == 2]
    assert all("being written by another relreason process" in o for o, _ in refused)
    lines = (out / "records.jsonl").read_text().splitlines()
    assert len(lines) == 300 and len(load_records(out)) == 300  # no duplicates, none lost
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
