"""Time the report against reading its records: 100 runs of the bundled baselines (random, first,
oracle: real backends, no model needed; MCR 5 languages x 5 methods x 3 models and ConvRe 2 tasks
x 4 settings x 3 models on the full sets, plus ConvRe text2re 12# of `first`: ~150,000 items).

Measured in one process, in this order, with the load average before and after:
- read_records_s: ``records.load_records`` of every run folder (parsing records.jsonl: the
  floor any report pays);
- load_runs_s: ``load_runs`` without the report cache, then load_runs_cached_s with it (warm);
- report_s: the terminal report (``load_runs`` from the cache, ``build_report`` without texts,
  printing every table);
- html_s: ``load_runs`` from the cache, ``build_report`` with texts rebuilt from the data and
  ``render_html`` (figures included);
- the same from the command line (``relreason report DIR`` and ``--html``), first with an
  empty report cache (cold), then again (warm), then after one run's records changed.

    python perf/bench_report_speed.py --data-dir ../shared/data [--keep DIR]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

SWEEPS = (
    """out: {out}
models: [random, first, oracle]
runs:
  - {{benchmark: mcr, language: [en, zh, fr, ja, ko],
     method: [zs, fs, zsc, fs-english, fs-multilingual]}}
  - {{benchmark: convre, task: [re2text, text2re], setting: [1, 3, 4, 9]}}
options: {{scoring: generate, use_cache: false}}
""",
    """out: {out}
models: [first]
runs:
  - {{benchmark: convre, task: text2re, setting: 12}}
options: {{scoring: generate, use_cache: false}}
""",
)


def make_runs(folder: Path, data_dir: Path) -> None:
    """Run the two sweep files (100 runs) into ``folder``."""
    from relreason.run.sweep import run_sweep

    for number, text in enumerate(SWEEPS):
        sweep = folder.parent / f"sweep{number}.yaml"
        sweep.write_text(text.format(out=folder), "utf-8")
        run_sweep(sweep, data_dir=data_dir, show_progress=False)


def timed(work: object) -> float:
    """Seconds ``work()`` takes."""
    start = time.perf_counter()
    work()  # type: ignore[operator]
    return round(time.perf_counter() - start, 2)


def cli(args: list[str], env: dict[str, str]) -> float:
    """Seconds one ``relreason`` command takes (output discarded)."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "from relreason.cli import main; main()", *args],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return round(time.perf_counter() - start, 2)


def main() -> None:
    """Make (or reuse) the runs, time everything, print the measurements as JSON."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--keep", type=Path, help="make the runs here (reused when present)")
    args = parser.parse_args()
    from rich.console import Console

    from relreason.analysis import load_runs
    from relreason.records import MANIFEST, load_records
    from relreason.report import build_report, render_html

    base = args.keep or Path(tempfile.mkdtemp(prefix="relreason-bench-"))
    folder = base / "runs"
    if not folder.exists():
        base.mkdir(parents=True, exist_ok=True)
        make_runs(folder, args.data_dir)
    cache = Path(tempfile.mkdtemp(prefix="relreason-report-cache-"))
    os.environ["RELREASON_CACHE_DIR"] = str(cache)
    folders = sorted(p.parent for p in folder.rglob(MANIFEST))
    out: dict[str, object] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
        "load_average_before": [round(x, 1) for x in os.getloadavg()],
        "runs": len(folders),
    }
    counted: list[int] = []
    out["read_records_s"] = timed(
        lambda: counted.append(sum(len(load_records(f)) for f in folders))
    )
    out["items"] = counted[0]
    out["load_runs_s"] = timed(lambda: load_runs(folder, cache=False))
    load_runs(folder)  # fills the report cache
    loaded = []
    out["load_runs_cached_s"] = timed(lambda: loaded.append(load_runs(folder)))

    def terminal() -> None:
        runs = load_runs(folder)
        build_report(runs, texts=False).print(Console(file=io.StringIO(), width=100))

    def page() -> None:
        runs = load_runs(folder)
        render_html(build_report(runs, data_dir=args.data_dir), base / "report.html")

    out["report_s"] = timed(terminal)
    out["html_s"] = timed(page)
    env = {**os.environ, "RELREASON_CACHE_DIR": str(Path(tempfile.mkdtemp()))}
    html = ["--html", str(base / "cli.html"), "--data-dir", str(args.data_dir)]
    out["cli_report_cold_s"] = cli(["report", str(folder)], env)
    out["cli_report_warm_s"] = cli(["report", str(folder)], env)
    out["cli_html_warm_s"] = cli(["report", str(folder), *html], env)
    os.utime(folders[0] / "records.jsonl")  # one run changed: read again, the rest reused
    out["cli_report_one_changed_s"] = cli(["report", str(folder)], env)
    read = float(out["read_records_s"])  # type: ignore[arg-type]
    for name in ("load_runs_s", "load_runs_cached_s", "report_s", "html_s"):
        out[f"{name.removesuffix('_s')}_vs_read"] = round(float(out[name]) / read, 2)  # type: ignore[arg-type]
    out["cli_report_warm_vs_read"] = round(float(out["cli_report_warm_s"]) / read, 2)  # type: ignore[arg-type]
    out["load_average_after"] = [round(x, 1) for x in os.getloadavg()]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
