"""Progress that fits where it is shown: a live bar within 80 columns in a terminal, plain lines
every few seconds elsewhere, and the model libraries' own bars silenced."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from relreason.models.baselines import BaselineBackend
from relreason.run.events import ItemFinished, Retrying
from relreason.run.progress import (
    RunCounts,
    RunProgress,
    format_duration,
    format_rate,
    plain_line,
)
from relreason.run.runner import RunOptions, run_task
from servers.fault_server import toy_task


def test_the_live_bar_keeps_its_numbers_at_80_columns() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, color_system=None, record=True)
    name = "convre/re2text/setting-1/subset | hf:HuggingFaceTB/SmolLM2-135M-Instruct"
    with RunProgress(enabled=True, console=console, live=True) as progress:
        run_id = progress.start_run(name, 328)
        for i in range(32):
            status = "failed" if i == 0 else "correct" if i % 2 == 0 else "wrong"
            progress.event(run_id, ItemFinished(i, status, i % 2 == 0, cached=False))
    # the record holds every refresh one after the other: the last one is the final display
    last = "convre" + console.export_text().rstrip("\n").split("convre")[-1]
    assert len(last) <= 80
    assert "32/328" in last and "acc 0.500" in last and "failed 1" in last
    assert "…" not in last.split(" ", 1)[1]  # only the name is cut


def test_plain_lines_come_every_interval_and_count_retries() -> None:
    stream = io.StringIO()
    with RunProgress(enabled=True, live=False, stream=stream, interval=0.05) as progress:
        run_id = progress.start_run("toy | first", 3)
        progress.event(run_id, ItemFinished(0, "correct", True, False))
        progress.event(run_id, Retrying(attempt=1, wait_s=0.1, reason="429"))
        time.sleep(0.3)
        lines = stream.getvalue().splitlines()
        assert len(lines) >= 2  # several ticks, each a whole line
        assert lines[0].startswith("toy | first: 0/3 (0%) ")  # at once, as the run starts
        assert lines[-1].startswith("toy | first: 1/3 (33%) ")
        assert lines[-1].endswith("acc 1.000 failed 0 retries 1")
        progress.event(run_id, ItemFinished(1, "failed", False, False))
        progress.event(run_id, ItemFinished(2, "wrong", False, False))
        assert stream.getvalue().splitlines()[-1].startswith("toy | first: 3/3 (100%)")
        ticks = len(stream.getvalue().splitlines())
        time.sleep(0.2)
        assert len(stream.getvalue().splitlines()) == ticks  # a finished run says no more
    assert "\r" not in stream.getvalue()
    assert "failed 1 retries 1" in stream.getvalue().splitlines()[-1]


def test_a_stopped_run_ends_with_where_it_stopped() -> None:
    stream = io.StringIO()
    progress = RunProgress(enabled=True, live=False, stream=stream, interval=60)
    run_id = progress.start_run("r", 10, done=4, correct=2)
    progress.event(run_id, ItemFinished(0, "correct", True, cached=False))
    progress.close()
    progress.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2  # as it started, then where it stopped
    assert lines[0].startswith("r: 4/10 (40%) ") and lines[1].startswith("r: 5/10 (50%) ")


@given(
    st.integers(min_value=1, max_value=10_000),
    st.integers(min_value=0, max_value=10_000),
    st.floats(min_value=0.5, max_value=1e5),
)
def test_a_plain_line_holds_done_total_rate_and_eta(total: int, done: int, elapsed: float) -> None:
    done = min(done, total)
    counts = RunCounts(total=total, done=done, started=0.0)
    line = plain_line("run", counts, now=elapsed)
    assert line.startswith(f"run: {done}/{total} (")
    if done:
        assert f" {format_rate(done / elapsed)}/s " in line
        assert f" ETA {format_duration((total - done) / (done / elapsed))} " in line
    else:
        assert " -/s - tok/s ETA ? " in line


@pytest.mark.parametrize(
    ("s", "text"), [(None, "?"), (42.4, "42s"), (185, "3m05s"), (3720, "1h02m")]
)
def test_durations_read_as_a_person_says_them(s: float | None, text: str) -> None:
    assert format_duration(s) == text


_QUIET_CHECK = """
import io, sys
from relreason.run.progress import quiet_library_bars
if sys.argv[1] == "hf":
    import transformers.utils.logging as hf_logging
    quiet_library_bars()
    print(hf_logging.is_progress_bar_enabled())
else:
    quiet_library_bars()
    from tqdm import tqdm  # tqdm reads TQDM_* when it is imported
    print(not tqdm(range(2), file=io.StringIO()).disable)
"""


@pytest.mark.parametrize("library", ["tqdm", "hf"])
def test_library_bars_are_silenced(library: str) -> None:
    if library == "hf":
        pytest.importorskip("transformers")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TQDM_", "HF_HUB_"))}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    shown = subprocess.run(
        [sys.executable, "-c", _QUIET_CHECK, library],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert shown == "False"


def test_a_run_without_a_terminal_prints_plain_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = run_task(
        toy_task(30),
        BaselineBackend("first"),
        tmp_path / "r",
        RunOptions(use_cache=False, show_progress=True),
    )
    out, err = capsys.readouterr()
    assert "toy | first: 30/30 (100%)" in err
    assert f"accuracy {summary.accuracy:.4f}" in out and "chance 0.500" in out


def test_a_sweep_in_a_log_also_shows_the_overall_count() -> None:
    stream = io.StringIO()
    with RunProgress(enabled=True, live=False, stream=stream, interval=60, overall=10) as progress:
        progress.add_overall(4)  # a run finished in an earlier session
        run_id = progress.start_run("run 2", 6)
        progress.event(run_id, ItemFinished(0, "correct", True, cached=False))
        progress.write_plain()
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("run 2: 0/6 (0%) ")  # as it started
    assert lines[1].startswith("run 2: 1/6 (17%) ")
    assert lines[2].startswith("all runs: 5/10 (50%) ") and "acc" not in lines[2]
