"""What streaming each record back to the driver costs a Ray sweep: the same sweep
(``relreason sweep FILE --ray local``: two cells of the oracle baseline, every item of
compose en zs and fs, so the per-record work is all there is) run by this checkout's sources
and by a peer checkout's (``--peer-src``, e.g. ``/work/main/src`` before streaming), taking
turns, each in a fresh process with a cluster of its own.

Usage: ``python perf/bench_ray_stream.py --peer-src /work/main/src [--rounds 3]``.
Prints a Markdown report (machine, load, date, command, figures, ratio).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

SWEEP = """\
out: {out}
models: [oracle]
runs: [{{benchmark: compose, language: en, method: [zs, fs]}}]
options: {{use_cache: false}}
"""


def one_run(src: str, folder: Path) -> float:
    """Seconds one ``relreason sweep --ray local`` of the sweep takes with sources ``src``."""
    path = folder / "sweep.yaml"
    out = folder / "out"
    path.write_text(SWEEP.format(out=out))
    env = {**os.environ, "PYTHONPATH": src}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "relreason", "sweep", str(path), "--ray", "local", "--no-progress"],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=600,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peer-src", required=True, help="the peer checkout's src folder")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ours = str(Path(__file__).resolve().parents[1] / "src")
    times: dict[str, list[float]] = {"this checkout": [], "peer": []}
    load_before = os.getloadavg()
    for _ in range(args.rounds):
        for name, src in (("this checkout", ours), ("peer", args.peer_src)):
            with tempfile.TemporaryDirectory() as folder:
                times[name].append(one_run(src, Path(folder)))
    load_after = os.getloadavg()
    print(f"## Ray sweep, records streamed to the driver ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)")
    print()
    print(f"- machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}")
    print(f"- load average (1 min) before/after: {load_before[0]:.1f} / {load_after[0]:.1f}")
    print(f"- command: python perf/bench_ray_stream.py --peer-src {args.peer_src}")
    print("- sweep: oracle baseline, compose en zs + fs, 300 items each, --ray local")
    print()
    print("| sources | runs (s) | median (s) |")
    print("|---|---|---|")
    for name, values in times.items():
        shown = ", ".join(f"{v:.1f}" for v in values)
        print(f"| {name} | {shown} | {statistics.median(values):.1f} |")
    ratio = statistics.median(times["this checkout"]) / statistics.median(times["peer"])
    print()
    print(f"ratio this checkout / peer (medians): {ratio:.2f}")


if __name__ == "__main__":
    main()
