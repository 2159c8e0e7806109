"""Sweeps on a real local Ray cluster (two worker CPUs, started once for this module): the run
folders equal a local sweep's, finished cells are skipped and changed ones refused the same
way, a partial cell is continued, and a worker killed mid-cell (``os.kill``) costs nothing: its
cell runs again elsewhere and is written once."""

from __future__ import annotations

import itertools
import json
import os
import signal
import threading
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


def test_a_worker_killed_mid_cell_loses_nothing(cluster: Any, tmp_path: Path) -> None:
    """Two requests a second (``requests_per_minute: 120``) make each cell last seconds; the
    first attempt's worker is killed a second in."""
    local, remote = tmp_path / "local", tmp_path / "ray"
    extra = ", requests_per_minute: 120"
    run_sweep(_write(tmp_path, local, limit=8), show_progress=False)
    killed: list[int] = []
    starts: list[Any] = []

    def kill_first(start: Any) -> None:
        starts.append(start)
        if not killed:
            killed.append(start.pid)
            threading.Timer(1.0, os.kill, (start.pid, signal.SIGKILL)).start()

    _ray_sweep(_write(tmp_path, remote, limit=8, extra=extra), on_start=kill_first)
    victim = next(s for s in starts if s.pid == killed[0])
    again = [s for s in starts if s.out_dir == victim.out_dir]
    assert len(again) == 2 and again[1].pid != victim.pid, "run again in another worker"
    assert _folders(remote) == _folders(local)
    manifest = read_manifest(victim.out_dir)
    assert manifest["status"] == "complete" and len(manifest["sessions"]) == 1, "written once"
    lines = (victim.out_dir / "records.jsonl").read_text().splitlines()
    assert len(lines) == len({json.loads(line)["index"] for line in lines}) == 8


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
