"""The suite's own guards, run on a small suite of their own in a subprocess: a test that leaves
a child process running errors and the process is killed; the last lines of a run group the
skipped tests by reason and say how many need the official data."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil

TESTS_DIR = Path(__file__).resolve().parent
SRC = TESTS_DIR.parent / "src"

SUITE = textwrap.dedent(
    """
    import subprocess, sys
    import pytest

    def test_leaves_a_process(tmp_path):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        (tmp_path.parent.parent / "leaked.pid").write_text(str(child.pid))

    def test_ends_its_process():
        subprocess.run([sys.executable, "-c", "pass"], check=True)

    def test_needs_the_data(shared_data):
        pass

    def test_skips_for_another_reason():
        pytest.skip("no such device here")
    """
)


def test_a_leaked_process_is_killed_and_skips_are_summed_up_last(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(TESTS_DIR / "conftest.py", suite / "conftest.py")
    (suite / "test_suite.py").write_text(SUITE)
    summary = tmp_path / "skips.txt"
    env = {
        **os.environ,
        "PYTHONPATH": f"{SRC}{os.pathsep}{TESTS_DIR}",
        "RELREASON_TEST_DATA": str(tmp_path / "absent"),
        "RELREASON_DATA_DIR": str(tmp_path / "absent"),
        "RELREASON_TEST_DATA_CACHE": str(tmp_path / "cache"),
        "RELREASON_MIRROR": "http://no-such-host.invalid",  # no network, whatever the machine
        "RELREASON_SKIP_SUMMARY": str(summary),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--basetemp",
            str(tmp_path / "base"),
            str(suite),
        ],
        cwd=suite,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 1, out[-3000:]
    assert "ERROR at teardown of test_leaves_a_process" in out, out[-3000:]
    assert "the test left child processes running (killed now)" in out
    pid = int((tmp_path / "leaked.pid").read_text())
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    last = out.rstrip().splitlines()[-4:]
    assert last[0] == "2 skipped, by reason:", out[-3000:]
    assert any("official data not found" in line and "no network" in line for line in last)
    assert any(line.strip() == "1  no such device here" for line in last)
    assert last[-1].startswith("1 of the 2 skipped tests need the official data: run `relreason")
    assert summary.read_text().splitlines() == last
