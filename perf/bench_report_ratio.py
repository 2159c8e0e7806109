"""The report's cost against parsing its records (issue 34): each output made in a fresh process
with an empty report cache (cold), then again with that cache (warm, nothing changed), each
timed against ``records.load_records`` of every run folder (the parse) in the same process.

Runs: a sweep of the seeded ``random`` baseline (a real backend, no model): MCR 5 languages x 5
methods and ConvRe 2 tasks x 8 settings (subset): 41 runs, ~45,000 records.

CPU seconds (``time.process_time``) are the measure read on a shared machine (wall seconds, also
printed, move with the other workers' load). Each output is timed from after the imports of
``relreason.report`` (pandas) to its last byte; matplotlib's import is in the HTML's time.

    python perf/bench_report_ratio.py --data-dir ../shared/data [--keep DIR]
        [--baseline-src OTHER_TREE/src]

``--baseline-src``: each output made by another checkout's relreason too, right after this
one's (keys ``before_<output>_<cold|warm>``), in the same run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

SWEEP = """out: {out}
models: [random]
runs:
  - {{benchmark: mcr, language: [en, zh, fr, ja, ko],
     method: [zs, fs, zsc, fs-english, fs-multilingual]}}
  - {{benchmark: convre, task: [re2text, text2re], setting: [1, 2, 3, 4, 5, 6, 7, 10],
     subset: true}}
options: {{scoring: generate, use_cache: false, concurrency: 8}}
"""

ONE = """
import io, json, sys, time
from pathlib import Path
from rich.console import Console
from relreason.analysis import load_runs
from relreason.records import MANIFEST, load_records
from relreason.report import build_report, render_html

what, folder, data_dir, out = sys.argv[1], Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4])
folders = sorted(p.parent for p in folder.rglob(MANIFEST))
clocks = (time.process_time, time.perf_counter)
start = [c() for c in clocks]
n = sum(len(load_records(f)) for f in folders)
read = [c() - s for c, s in zip(clocks, start)]
start = [c() for c in clocks]
runs = load_runs(folder)
if what == "terminal":
    build_report(runs, texts=False).print(Console(file=io.StringIO(), width=100))
elif what == "markdown":
    out.write_text(build_report(runs, texts=False).format("markdown"))
else:
    render_html(build_report(runs, data_dir=data_dir), out)
took = [c() - s for c, s in zip(clocks, start)]
print(json.dumps({"records": n, "read_cpu": read[0], "read_wall": read[1],
                  "cpu": took[0], "wall": took[1]}))
"""


def make_runs(folder: Path, data_dir: Path) -> None:
    """Run the sweep into ``folder``."""
    from relreason.run.sweep import run_sweep

    sweep = folder.parent / "sweep.yaml"
    sweep.write_text(SWEEP.format(out=folder), "utf-8")
    run_sweep(sweep, data_dir=data_dir, show_progress=False)


def one(
    what: str, folder: Path, data_dir: Path, out: Path, cache: Path, src: Path | None = None
) -> dict[str, float]:
    """Make one output in a fresh process with the report cache at ``cache`` (relreason from
    ``src`` when given)."""
    env = {**os.environ, "RELREASON_CACHE_DIR": str(cache)}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    args = [sys.executable, "-c", ONE, what, str(folder), str(data_dir), str(out)]
    done = subprocess.run(args, env=env, check=True, capture_output=True, text=True)
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    """Make (or reuse) the runs, time each output cold then warm, print JSON."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--keep", type=Path, help="make the runs here (reused when present)")
    parser.add_argument("--baseline-src", type=Path, help="also time another tree's src/")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="relreason-ratio-"))
    folder = base / "runs"
    if not folder.exists():
        base.mkdir(parents=True, exist_ok=True)
        make_runs(folder, args.data_dir)
    result: dict[str, object] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
        "load_average_before": [round(x, 1) for x in os.getloadavg()],
        "runs": sum(1 for _ in folder.rglob("manifest.json")),
    }
    sides = [("", None)] + ([("before_", args.baseline_src)] if args.baseline_src else [])
    for what, (side, src) in itertools.product(("terminal", "markdown", "html"), sides):
        cache = Path(tempfile.mkdtemp(prefix="relreason-ratio-cache-"))
        out = base / f"report.{'html' if what == 'html' else 'md'}"
        for state in ("cold", "warm"):
            found = one(what, folder, args.data_dir, out, cache, src)
            result["records"] = found["records"]
            result[f"{side}{what}_{state}"] = {
                "cpu_s": round(found["cpu"], 2),
                "wall_s": round(found["wall"], 2),
                "read_cpu_s": round(found["read_cpu"], 2),
                "ratio_cpu": round(found["cpu"] / found["read_cpu"], 2),
                "ratio_wall": round(found["wall"] / found["read_wall"], 2),
            }
    result["load_average_after"] = [round(x, 1) for x in os.getloadavg()]
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
