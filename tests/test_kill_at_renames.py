"""A SIGKILL just before or just after every atomic rename of a run (manifest, sorted records,
summary) leaves a folder that a rerun or resume finishes equal to an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from relreason.models.baselines import BaselineBackend
from relreason.records import comparable, load_records
from relreason.run.runner import RunOptions, resume_run, run_task
from servers.fault_server import toy_task

TESTS_DIR = Path(__file__).resolve().parent
SRC = TESTS_DIR.parent / "src"
N = 40

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from servers.fault_server import toy_task
    from relreason.models.baselines import BaselineBackend
    from relreason.run.runner import RunOptions, run_task

    nth, after = int(sys.argv[2]), sys.argv[3] == "after"
    real, calls = os.replace, [0]
    def replace(src, dst, *args, **kwargs):
        calls[0] += 1
        if calls[0] == nth and not after:
            os.kill(os.getpid(), signal.SIGKILL)
        real(src, dst, *args, **kwargs)
        if calls[0] == nth:
            os.kill(os.getpid(), signal.SIGKILL)
    os.replace = replace
    run_task(toy_task({n}), BaselineBackend("random", seed=4), Path(sys.argv[1]),
             RunOptions(use_cache=False))
    """
)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, object]]:
    out = tmp_path_factory.mktemp("ref") / "run"
    run_task(toy_task(N), BaselineBackend("random", seed=4), out, RunOptions(use_cache=False))
    return load_records(out)


@pytest.mark.parametrize("when", ["before", "after"])
@pytest.mark.parametrize("nth", [1, 2, 3, 4, 5])
def test_a_kill_at_a_rename_is_survived(
    tmp_path: Path, nth: int, when: str, reference: dict[int, dict[str, object]]
) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(tests=str(TESTS_DIR), n=N))
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(
        [sys.executable, str(script), str(out), str(nth), when],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode == 0:
        pytest.skip(f"a run makes fewer than {nth} renames")
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    backend = BaselineBackend("random", seed=4)
    if (out / "manifest.json").is_file():
        summary = resume_run(out, task=toy_task(N), backend=backend)
    else:  # killed before the first manifest: the same command again
        summary = run_task(toy_task(N), backend, out, RunOptions(use_cache=False))
    assert summary.complete and summary.n == N
    records = load_records(out)
    assert {i: comparable(r) for i, r in records.items()} == {
        i: comparable(r) for i, r in reference.items()
    }
    lines = (out / "records.jsonl").read_text().splitlines()
    assert len(lines) == N and not [p for p in out.iterdir() if p.name.endswith(".tmp")]
