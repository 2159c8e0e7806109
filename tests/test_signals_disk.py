"""Signals and disk: SIGINT/SIGTERM stop a run within seconds (also a local model busy in a
thread), flush what finished, mark the manifest ``interrupted`` and print the folder and the
exact resume command; a full disk at a write is one clear message (exit 2) losing nothing."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from relreason.errors import UsageError
from relreason.models.baselines import BaselineBackend
from relreason.records import load_records
from relreason.run.loop import STOP_BOUND_S
from relreason.run.runner import RunOptions, resume_run, run_task
from servers.fault_server import FaultServer, toy_task

pytestmark = pytest.mark.server

TESTS_DIR = Path(__file__).resolve().parent
SRC = TESTS_DIR.parent / "src"

SCRIPT = textwrap.dedent(
    """
    import asyncio, sys, time
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from servers.fault_server import toy_task
    from relreason.cli.app import fail
    from relreason.errors import RelreasonError
    from relreason.models.base import ModelBackend
    from relreason.run.runner import RunOptions, run_task
    from relreason.types import Response

    class SlowLocal(ModelBackend):
        spec = "slow-local"
        batch_size = 4
        def describe(self):
            return {{"backend": "slow-local"}}
        def _work(self, requests):
            time.sleep(0.05 if requests[0].prompt.startswith("Question 0 ") else 30)
            return [Response(text=r.reference) for r in requests]
        async def generate(self, requests):
            return await asyncio.to_thread(self._work, list(requests))
        async def score_choices(self, requests):
            raise NotImplementedError

    url, out, kind = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    if kind == "api":
        from relreason.models.openai.backend import OpenAIBackend
        backend = OpenAIBackend("fault-model", base_urls=[url], timeout=5)
    else:
        backend = SlowLocal()
    options = RunOptions(use_cache=False, concurrency=2, request_timeout=10)
    print("started", flush=True)
    try:
        run_task(toy_task(200), backend, out, options)
    except RelreasonError as error:
        fail(str(error), error.exit_code, interrupted=error.exit_code == 130)
    """
)


def start(tmp_path: Path, url: str, kind: str) -> tuple[subprocess.Popen[str], Path]:
    script = tmp_path / "entry.py"
    script.write_text(SCRIPT.format(tests=str(TESTS_DIR)))
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    child = subprocess.Popen(
        [sys.executable, str(script), url, str(out), kind],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    return child, out


def wait_for_records(out: Path, n: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        file = out / "records.jsonl"
        if file.exists() and file.read_bytes().count(b"\n") >= n:
            return
        time.sleep(0.05)
    raise AssertionError("the run wrote too few records")


@contextlib.contextmanager
def killed_at_the_end(child: subprocess.Popen[str]) -> Iterator[subprocess.Popen[str]]:
    """``child``, killed when the block ends if it still runs (a failed test leaves nothing)."""
    try:
        yield child
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate(timeout=30)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_an_api_run_cleanly_and_it_resumes(
    tmp_path: Path, sig: signal.Signals
) -> None:
    with FaultServer(fault_rate=0.0, delay_s=0.05) as server:
        child, out = start(tmp_path, server.url, "api")
        with killed_at_the_end(child):
            wait_for_records(out, 10)
            child.send_signal(sig)
            sent = time.monotonic()
            _, err = child.communicate(timeout=60)
            took = time.monotonic() - sent
        # the run ends itself within STOP_BOUND_S; the margin is for a loaded machine
        assert took < STOP_BOUND_S + 15, took
        assert child.returncode == 130, err
        assert f"relreason run --resume {out}" in err and "Traceback" not in err
        manifest = json.loads((out / "manifest.json").read_text())
        # a machine too busy to close the run within the bound exits before marking it
        forced = f"did not stop within {STOP_BOUND_S:g} s" in err
        assert manifest["status"] in (("interrupted", "running") if forced else ("interrupted",))
        finished = {i for i, r in load_records(out).items() if r["status"] != "failed"}
        assert 10 <= len(finished) < 200
        at_stop = dict(server.counts)
        from relreason.models.openai.backend import OpenAIBackend

        summary = resume_run(
            out, task=toy_task(200), backend=OpenAIBackend("fault-model", base_urls=[server.url])
        )
        prompts = {item.index: item.prompt for item in toy_task(200).items}
        resent = [i for i in finished if server.counts[prompts[i]] != at_stop.get(prompts[i])]
    assert summary.complete and summary.n == 200 and resent == []


def test_a_signal_abandons_a_busy_local_model_within_seconds(tmp_path: Path) -> None:
    child, out = start(tmp_path, "-", "local")
    with killed_at_the_end(child):
        wait_for_records(out, 4)  # the first batch (fast) is written; the others sleep 30 s
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, err = child.communicate(timeout=60)
        took = time.monotonic() - sent
    # within STOP_BOUND_S, with a margin for a loaded machine, well before a batch's 30 s
    assert took < STOP_BOUND_S + 15, "waited for the local model's batch"
    assert child.returncode == 130 and "relreason run --resume" in err
    forced = f"did not stop within {STOP_BOUND_S:g} s" in err  # a busy machine: not marked
    status = json.loads((out / "manifest.json").read_text())["status"]
    assert status in (("interrupted", "running") if forced else ("interrupted",))
    assert len(load_records(out)) == 4  # the abandoned batch's items stay unfinished


def test_a_full_disk_is_one_clear_message_and_nothing_is_lost(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    out = tmp_path / "run"
    run_task(toy_task(20), BaselineBackend("oracle"), out, RunOptions(use_cache=False, limit=5))
    (out / "records.jsonl").rename(tmp_path / "kept.jsonl")
    (out / "records.jsonl").symlink_to("/dev/full")  # every append fails with ENOSPC
    with pytest.raises(UsageError, match="No space left on device") as caught:
        resume_run(
            out,
            task=toy_task(20),
            backend=BaselineBackend("oracle"),
            options_override={"limit": None},
        )
    assert "relreason run --resume" in str(caught.value)
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"


@pytest.fixture()
def small_disk(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A 256 KiB tmpfs (needs root; skipped elsewhere, where /dev/full covers ENOSPC)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (not root)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_disk_that_fills_mid_run_loses_nothing_and_resumes(small_disk: Path) -> None:
    filler = small_disk / "filler"
    filler.write_bytes(b"x" * 150_000)
    out = small_disk / "run"
    task = toy_task(400)
    with pytest.raises(UsageError, match="No space left on device") as caught:
        run_task(task, BaselineBackend("oracle"), out, RunOptions(use_cache=False))
    assert f"relreason run --resume {out}" in str(caught.value)
    kept = load_records(out)  # whatever is on disk reads cleanly (a torn last line dropped)
    assert 0 < len(kept) < 400
    # the manifest is whole (its rewrite may itself have found no room)
    assert json.loads((out / "manifest.json").read_text())["status"] in ("interrupted", "running")
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    filler.unlink()  # free space, then resume
    summary = resume_run(out, task=task, backend=BaselineBackend("oracle"))
    lines = (out / "records.jsonl").read_text().splitlines()
    assert summary.complete and summary.n == 400 and len(lines) == 400
    assert [json.loads(line)["index"] for line in lines] == list(range(400))


def test_a_folder_left_by_a_crash_in_the_first_manifest_write_is_reused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / ".manifest.json.x1y2.tmp").write_text('{"kind": "relre')  # torn temporary file
    (out / ".lock").write_text('{"pid": 999999, "host": "gone"}')  # its dead writer's lock
    summary = run_task(toy_task(5), BaselineBackend("oracle"), out, RunOptions(use_cache=False))
    assert summary.complete and sorted(p.name for p in out.iterdir()) == [
        "manifest.json",
        "records.jsonl",
        "summary.json",
    ]
