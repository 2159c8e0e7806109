"""Progress that moves: a local model reports every request it finishes within a batch or a
prefix-tree pass (``Working`` events, forwarded by the runner), so the count moves before the
pass's records are written; a line says at once that the model loads; plain lines, whatever
their numbers, fit 80 columns. The model tests use the bundled SmolLM2, through the runner and
through the real command line."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.run.events import Event, ItemFinished, Retrying, Working
from relreason.run.progress import RunCounts, RunProgress, loading_line, plain_line

REPO = Path(__file__).resolve().parents[1]


def test_work_moves_the_count_before_the_records_and_is_not_counted_twice() -> None:
    counts = RunCounts(total=10, started=0.0)
    counts.take(Working(requests=3, tokens=300))
    assert counts.shown == 3 and counts.done == 0 and counts.tokens == 300
    for i in range(3):  # the three computed items are recorded: still 3
        counts.take(ItemFinished(i, "correct", True, cached=False, tokens=99))
    assert counts.shown == 3 and counts.done == 3
    assert counts.tokens == 300, "a model that reports work counts its own tokens"
    counts.take(ItemFinished(3, "wrong", False, cached=True))  # a cache hit: no work
    assert counts.shown == 4
    counts.take(Working(requests=20, tokens=1))
    assert counts.shown == 10, "never past the total"
    assert plain_line("r", counts, now=2.0).startswith("r: 10/10 (100%) 5.00/s 150 tok/s ")


def test_without_work_reports_tokens_come_from_the_records() -> None:
    counts = RunCounts(total=4, started=0.0)
    counts.take(ItemFinished(0, "correct", True, cached=False, tokens=40))
    counts.take(ItemFinished(1, "correct", True, cached=True, tokens=40))
    counts.take(Retrying(attempt=1, wait_s=0.5, reason="429"))
    assert (counts.tokens, counts.shown, counts.retries) == (40, 2, 1)
    line = plain_line("r", counts, now=4.0)
    assert line.endswith(" 10.0 tok/s ETA 4s acc 1.000 failed 0 retries 1")


@given(
    name=st.text(min_size=0, max_size=200),
    total=st.integers(min_value=0, max_value=10**7),
    done=st.integers(min_value=0, max_value=10**7),
    failed=st.integers(min_value=0, max_value=10**7),
    retries=st.integers(min_value=0, max_value=10**6),
    tokens=st.integers(min_value=0, max_value=10**12),
    elapsed=st.floats(min_value=1e-3, max_value=1e7),
    accuracy=st.booleans(),
)
def test_every_plain_line_fits_80_columns(
    name: str,
    total: int,
    done: int,
    failed: int,
    retries: int,
    tokens: int,
    elapsed: float,
    accuracy: bool,
) -> None:
    counts = RunCounts(
        total=total, done=min(done, total), failed=failed, retries=retries, started=0.0
    )
    counts.tokens = tokens
    line = plain_line(name.replace("\n", " "), counts, now=elapsed, accuracy=accuracy)
    assert len(line) <= 80
    assert f" {counts.shown}/{total} (" in line  # the count itself is never left out


class _Recorder(RunProgress):
    """A real progress display (plain, silent) that also keeps every event with its time."""

    def __init__(self) -> None:
        super().__init__(enabled=False)
        self.seen: list[tuple[float, Event, int]] = []

    def event(self, run_id: Any, event: Event) -> None:
        super().event(run_id, event)
        self.seen.append((time.monotonic(), event, self.counts(run_id).shown))


@pytest.fixture(scope="module")
def smollm2() -> Any:
    pytest.importorskip("torch")
    from relreason.models.smollm2 import load_smollm2

    return load_smollm2()


def _compose(n: int) -> Any:
    from relreason.benchmarks import get

    compose = get("compose")
    task = compose.build_task(compose.params(language="en", method="zs"), None)
    return task, n


@pytest.mark.model
def test_a_prefix_tree_pass_reports_each_item_before_it_ends(smollm2: Any, tmp_path: Path) -> None:
    from relreason.run.loop import run_coroutine
    from relreason.run.runner import RunOptions, arun_task

    task, n = _compose(48)  # about three passes of packed siblings (2048 tokens each)
    recorder = _Recorder()
    options = RunOptions(scoring="logprob", use_cache=False, limit=n)
    run_coroutine(arun_task(task, smollm2, tmp_path / "r", options, progress=recorder))
    work = [(t, e, shown) for t, e, shown in recorder.seen if isinstance(e, Working)]
    finished = [t for t, e, _ in recorder.seen if isinstance(e, ItemFinished)]
    assert len(finished) == n
    # the whole task is one prefix-tree pass (prepare_choices), recorded when it ends
    ahead = [shown for t, _, shown in work if t < min(finished)]
    assert sum(e.requests for _, e, _ in work) == n, "each request reported once"
    moving = [shown for shown in ahead if shown > 0]  # the first pass, the trunk, ends none
    assert moving[-1] == n and 0 < moving[0] < n, "the count moved within the pass"
    # every forward pass reports the items it finished (siblings are packed into one pass)
    assert len(set(moving)) >= 2
    assert sum(e.tokens for _, e, _ in work) > 0
    assert smollm2.work_listener is None, "the runner unhooks itself when the run ends"


@pytest.mark.model
def test_generation_reports_rows_within_a_batch(smollm2: Any, tmp_path: Path) -> None:
    from relreason.run.loop import run_coroutine
    from relreason.run.runner import RunOptions, arun_task
    from relreason.types import GenerationParams

    task, n = _compose(4)
    recorder = _Recorder()
    params = GenerationParams(max_new_tokens=6)
    options = RunOptions(scoring="generate", use_cache=False, limit=n, params=params)
    run_coroutine(arun_task(task, smollm2, tmp_path / "g", options, progress=recorder))
    events = [e for _, e, _ in recorder.seen]
    first_record = next(i for i, e in enumerate(events) if isinstance(e, ItemFinished))
    steps = [e for e in events[:first_record] if isinstance(e, Working)]
    assert len(steps) >= 2, "a report per generation step, before the batch is recorded"
    assert sum(e.requests for e in events if isinstance(e, Working)) == n, "each row once"
    assert steps[0].tokens > n  # the prompts' tokens come with the first step
    if sum(e.requests for e in steps) == 0:  # no row ended early (no end-of-sequence token)
        assert len(steps) == params.max_new_tokens


@pytest.mark.model
def test_the_command_line_says_it_loads_and_moves_within_80_columns(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    n = 48
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TERM")}
    env.update(COLUMNS="80", RELREASON_PROGRESS_INTERVAL="0.2")
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    code = "import sys; from relreason.cli import main; sys.argv[0] = 'relreason'; main()"
    args = ["run", "compose", "--language", "en", "--method", "zs", "--scoring", "logprob"]
    done = subprocess.run(
        [sys.executable, "-c", code, *args, "--limit", str(n), "--no-cache"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert all(len(line) <= 80 for line in lines), [ln for ln in lines if len(ln) > 80]
    assert all(len(line) <= 80 for line in done.stdout.splitlines() if "folder:" not in line)
    loads = [i for i, line in enumerate(lines) if line.startswith("loading SmolLM2")]
    counts = [i for i, line in enumerate(lines) if f"/{n} (" in line]
    assert loads and counts and loads[0] < counts[0], done.stderr
    assert any(line.startswith("loaded smollm2 in ") for line in lines)
    shown = [int(lines[i].split(": ", 1)[1].split("/")[0]) for i in counts]
    assert any(0 < s < n for s in shown), "a line while the pass runs, with items done"
    assert shown[-1] == n
    assert loading_line("random") is None and loading_line("openai:gpt-4") is None


def test_no_accuracy_before_an_item_is_finished() -> None:
    counts = RunCounts(total=4, started=0.0)
    assert counts.fields(now=1.0)["acc"] == "-"
    assert " acc - failed 0" in plain_line("r", counts, now=1.0)
    counts.take(Working(requests=2, tokens=10))  # computed, not read yet: still none
    assert " acc - " in plain_line("r", counts, now=1.0)
    counts.take(ItemFinished(0, "wrong", False, cached=False))
    assert " acc 0.000 " in plain_line("r", counts, now=1.0)
    assert counts.fields(now=1.0)["acc"] == "0.000"
