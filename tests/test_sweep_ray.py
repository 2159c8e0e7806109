"""Sweeps on a real local Ray cluster (two worker CPUs, started once for this module): the run
folders equal a local sweep's, finished cells are skipped and changed ones refused the same
way, a partial cell is continued, and a worker killed mid-cell (``os.kill``) costs nothing: its
cell runs again elsewhere and is written once."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from relreason.errors import UsageError
from relreason.records import load_records, read_manifest
from relreason.run.sweep import load_sweep, plan_sweep, run_sweep

ray = pytest.importorskip("ray")

SWEEP = """\
out: {out}
models: [random, first, oracle]
runs:
  - {{benchmark: compose, language: en, method: [zs, fs]}}
options: {{scoring: {scoring}, limit: {limit}, use_cache: false{extra}}}
"""
VOLATILE = {"latency_s", "elapsed_s", "created", "timestamp"}


@pytest.fixture(scope="module")
def cluster() -> Any:
    """A real Ray cluster of this machine, for this module (workers import this source)."""
    started = not ray.is_initialized()
    if started:
        env = {"PYTHONPATH": os.pathsep.join(p for p in os.sys.path if p)}  # type: ignore[attr-defined]
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": env},
        )
    ready = ray.remote(num_cpus=1)(_pid)  # two workers started once, for every test
    assert len(set(ray.get([ready.remote(0.5) for _ in range(2)]))) == 2
    yield ray
    if started:
        ray.shutdown()


def _pid(wait_s: float) -> int:
    """This worker's process id, after ``wait_s`` seconds (so that two run at once)."""
    import time

    time.sleep(wait_s)
    return os.getpid()


def _write(
    folder: Path, out: Path, *, scoring: str = "logprob", limit: int = 16, extra: str = ""
) -> Path:
    path = folder / f"sweep-{out.name}.yaml"
    path.write_text(SWEEP.format(out=out, scoring=scoring, limit=limit, extra=extra))
    return path


def _folders(out: Path) -> dict[str, tuple[list[dict[str, Any]], dict[str, Any]]]:
    """Each cell's records (without timings) and summary figures, by relative folder."""
    cells = {}
    for summary_path in sorted(out.glob("*/*/summary.json")):
        folder = summary_path.parent
        records = [
            {k: v for k, v in r.items() if k not in VOLATILE}
            for _, r in sorted(load_records(folder).items())
        ]
        summary = json.loads(summary_path.read_text())
        figures = {k: summary[k] for k in ("accuracy", "correct", "n", "statuses", "by_label")}
        assert summary["out_dir"] == str(folder), "the summary names the driver's folder"
        cells[str(folder.relative_to(out))] = (records, figures)
    return cells


def _ray_sweep(path: Path, grants: dict[str, Any] | None = None, **kwargs: Any) -> list[Any]:
    from relreason.run.sweep_ray import run_on_ray

    sweep = load_sweep(path)
    starts: list[Any] = []
    on_start = kwargs.pop("on_start", starts.append)
    planned = plan_sweep(sweep, path=path)
    got = run_on_ray(planned, sweep.options, "local", show=False, on_start=on_start, **kwargs)
    if grants is not None:
        grants.update(got)
    return starts


def test_a_ray_sweep_writes_what_a_local_sweep_writes(cluster: Any, tmp_path: Path) -> None:
    local, remote = tmp_path / "local", tmp_path / "ray"
    run_sweep(_write(tmp_path, local), show_progress=False)
    path = _write(tmp_path, remote)
    starts = _ray_sweep(path)
    assert len(starts) == 6 and len({s.out_dir for s in starts}) == 6
    expected = _folders(local)
    assert len(expected) == 6 and _folders(remote) == expected
    for folder in remote.glob("*/*"):
        manifest = read_manifest(folder)
        assert manifest["status"] == "complete" and len(manifest["sessions"]) == 1
        assert not list(folder.glob("*.tmp*"))
    # finished cells are skipped: nothing is sent to the cluster
    assert _ray_sweep(path) == []
    # a partial cell is continued where it stopped (a second session), the others skipped
    cell = remote / "first" / "compose-en-zs"
    lines = (cell / "records.jsonl").read_text().splitlines(keepends=True)
    (cell / "records.jsonl").write_text("".join(lines[:5]))
    manifest = json.loads((cell / "manifest.json").read_text())
    manifest["status"] = "interrupted"
    (cell / "manifest.json").write_text(json.dumps(manifest))
    starts = _ray_sweep(path)
    assert [s.out_dir for s in starts] == [cell]
    assert _folders(remote) == expected
    assert len(read_manifest(cell)["sessions"]) == 2
    # a finished cell asked with other options is refused, as by a local sweep
    changed = _write(tmp_path, remote, limit=12)
    with pytest.raises(UsageError) as by_ray:
        _ray_sweep(changed)
    with pytest.raises(UsageError) as by_local:
        run_sweep(changed, show_progress=False)
    assert str(by_ray.value) == str(by_local.value) and "limit/sample" in str(by_ray.value)


API_SWEEP = """\
out: {out}
models: [{{spec: "openai:toy", base_url: "{url}"}}]
runs: [{{benchmark: compose, language: en, method: [zs, fs]}}]
options: {{limit: 8, use_cache: false, requests_per_minute: 120, max_new_tokens: 4,
  concurrency: 1}}
"""


def _api_sweep(folder: Path, url: str) -> Path:
    """Two API cells of 8 items, one request at a time each, two a second over both."""
    path = folder / "api-sweep.yaml"
    path.write_text(API_SWEEP.format(out=folder / "out", url=url))
    return path


def _recorded(path: Path) -> dict[Path, set[str]]:
    """The prompts of the items each cell of the sweep ``path`` has a record of."""
    kept: dict[Path, set[str]] = {}
    for run in plan_sweep(load_sweep(path), path=path):
        records = load_records(run.out_dir) if run.out_dir.is_dir() else {}
        prompts = {item.index: item.prompt for item in run.task.items}
        kept[run.out_dir] = {prompts[i] for i, r in records.items() if r["status"] != "failed"}
    return kept


def _answered(server: Any, prompts: set[str] | None = None) -> int:
    """How many requests the server answered (of ``prompts`` when given)."""
    answered = server.stats()["answered"]
    return sum(n for p, n in answered.items() if prompts is None or p in prompts)


def _wait_for(condition: Any, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_worker_killed_mid_cell_loses_nothing(cluster: Any, tmp_path: Path) -> None:
    """The first attempt's worker is killed (SIGKILL) once it has two answers: its cell runs
    again in another worker from the records the killed one sent back, so no item it answered
    is asked again (only the one request it may have had in flight), and the cell is whole."""
    from servers.fault_server import FaultServer

    with FaultServer(fault_rate=0.0, reply=lambda prompt: "A") as server:
        path = _api_sweep(tmp_path, server.url)
        planned = plan_sweep(load_sweep(path), path=path)
        items = {run.out_dir: {item.prompt for item in run.task.items} for run in planned}
        killed: list[Any] = []
        starts: list[Any] = []

        def kill(start: Any) -> None:
            _wait_for(lambda: _answered(server, items[start.out_dir]) >= 2, 60)
            killed.append(_answered(server, items[start.out_dir]))
            os.kill(start.pid, signal.SIGKILL)

        def kill_first(start: Any) -> None:
            starts.append(start)
            if len(starts) == 1:
                threading.Thread(target=kill, args=(start,), daemon=True).start()

        _ray_sweep(path, on_start=kill_first)
        counts = server.stats()["counts"]
    victim = starts[0]
    again = [s for s in starts if s.out_dir == victim.out_dir]
    assert len(again) == 2 and again[1].pid != victim.pid, "run again in another worker"
    assert killed and killed[0] >= 2
    asked_twice = [p for p, n in counts.items() if n > 1]
    assert len(asked_twice) <= 1, asked_twice  # at most the request in flight at the kill
    recorded = _recorded(path)
    assert set(counts) == set().union(*recorded.values())
    for folder in recorded:
        manifest = read_manifest(folder)
        assert manifest["status"] == "complete"
        lines = (folder / "records.jsonl").read_text().splitlines()
        assert len(lines) == len({json.loads(line)["index"] for line in lines}) == 8
    assert len(read_manifest(victim.out_dir)["sessions"]) == 2, "the killed attempt's session"


def test_a_stopped_driver_keeps_what_was_answered(cluster: Any, tmp_path: Path) -> None:
    """``relreason sweep --ray local`` in a process of its own, stopped by SIGINT once the
    server answered four requests: it exits 130, the cells in flight keep every record their
    workers sent back and are marked interrupted, their manifest names the user's command, no
    worker's output reached its terminal, and no process of its cluster is left. The sweep
    run again asks none of the recorded items again and completes every cell."""
    from servers.fault_server import FaultServer

    with FaultServer(fault_rate=0.0, reply=lambda prompt: "A") as server:
        path = _api_sweep(tmp_path, server.url)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        command = [sys.executable, "-m", "relreason", "sweep", str(path), "--ray", "local"]
        driver = subprocess.Popen(
            [*command, "--no-progress"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            _wait_for(lambda: _answered(server) >= 4 or driver.poll() is not None, 120)
            driver.send_signal(signal.SIGINT)
            _, err = driver.communicate(timeout=60)
        finally:
            if driver.poll() is None:
                driver.kill()
                driver.wait()
            left = _session(driver.pid, wait_s=15)
            for pid in left:  # ours: started in the driver's session
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        assert driver.returncode == 130, err
        assert not left, f"processes of the stopped sweep left running: {left}"
        assert "\x1b[" not in err and "pid=" not in err, err
        kept = _recorded(path)
        assert sum(len(p) for p in kept.values()) >= 3, kept
        for folder in kept:
            manifest = read_manifest(folder)
            assert manifest["status"] == "interrupted"
            said = manifest["sessions"][-1]["command"]
            assert said[1:] == ["sweep", str(path), "--ray", "local", "--no-progress"], said
        before = server.stats()["counts"]
        _ray_sweep(path)
        after = server.stats()["counts"]
    for folder, prompts in kept.items():
        assert all(after[p] == before[p] for p in prompts), "a recorded item was asked again"
        assert read_manifest(folder)["status"] == "complete"
        assert len(load_records(folder)) == 8


def _session(sid: int, wait_s: float) -> dict[int, str]:
    """The processes of the session ``sid`` (a process started with ``start_new_session``
    and every process it started: Ray's workers make process groups of their own, not
    sessions) still running after ``wait_s`` seconds at most, by pid (their command lines)."""
    deadline = time.monotonic() + wait_s
    while True:
        found = {}
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and os.getsid(int(proc.name)) == sid:
                    command = (proc / "cmdline").read_bytes().replace(b"\0", b" ")
                    found[int(proc.name)] = command.decode(errors="replace")[:100]
            except OSError:
                continue
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def test_api_cells_on_one_server_share_its_rate_limit(cluster: Any, tmp_path: Path) -> None:
    """Two API cells on two workers against one real local server: every request of both
    goes through the one limit of that server (30 a minute: one every 2 s), held by a Ray
    actor, so the 10 requests are let through over 16 s or more, as one process would."""
    from servers.fault_server import FaultServer

    arrived: list[str] = []
    with FaultServer(fault_rate=0.0, reply=lambda prompt: arrived.append(prompt) or "A") as server:
        path = tmp_path / "api.yaml"
        path.write_text(
            f"out: {tmp_path / 'out'}\n"
            f'models: [{{spec: "openai:toy", base_url: "{server.url}"}}]\n'
            "runs: [{benchmark: compose, language: en, method: [zs, fs]}]\n"
            "options: {limit: 5, use_cache: false, requests_per_minute: 30,"
            " max_new_tokens: 4}\n"
        )
        grants: dict[str, list[float]] = {}
        starts = _ray_sweep(path, grants)
    assert len({s.pid for s in starts}) == 2, "the two cells ran in two workers"
    assert len(arrived) == 10
    assert list(grants) == [f"openai {server.url}"]
    times = sorted(grants[f"openai {server.url}"])
    assert len(times) == 10, "every request of both cells went through the one limit"
    gaps = [round(b - a, 2) for a, b in itertools.pairwise(times)]
    assert times[-1] - times[0] >= 0.9 * 2.0 * 8, gaps  # a first burst of 2 at most
    for folder in (tmp_path / "out").glob("*/*"):
        assert read_manifest(folder)["status"] == "complete"
