"""How long ``relreason run`` takes to stop after Ctrl-C or SIGTERM, at the machine's load and
under heavy load (extra busy processes), for this tree and a peer tree (e.g. the code before).

Scenarios (real CLI subprocesses, real signals):
  api      compose on ``openai:`` against the fault server (0.05 s per answer, concurrency 8),
           signalled once 5 records are written
  local    compose on the bundled SmolLM2 (a batch busy in a thread), signalled once the first
           records are written
  startup  ``run compose --model first``, signalled 0.3 s after the process starts

Usage::

    python perf/bench_stops.py --repeats 3 --burners 4 --peer-src /work/main/src

Prints a markdown table (median and max seconds from the signal to the process's end, and the
exit codes seen) for perf/RESULTS-stops.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from servers.fault_server import FaultServer  # noqa: E402

CODE = "from relreason.cli import main; main()"


def _wait_records(out: Path, n: int, child: subprocess.Popen[bytes], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    file = out / "records.jsonl"
    while time.monotonic() < deadline and child.poll() is None:
        if file.exists() and file.read_bytes().count(b"\n") >= n:
            return True
        time.sleep(0.01)
    return False


def one_stop(src: Path, scenario: str, sig: signal.Signals, url: str) -> tuple[float, int] | None:
    """Start one run, signal it at its moment; return (seconds to stop, exit code)."""
    env = {**os.environ, "PYTHONPATH": str(src), "RELREASON_CACHE_DIR": tempfile.mkdtemp()}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run"
        model = {
            "api": ["--model", "openai:m", "--base-url", url, "--concurrency", "8"],
            "local": ["--model", "smollm2"],
            "startup": ["--model", "first"],
        }[scenario]
        args = [sys.executable, "-c", CODE, "run", "compose", *model, "--no-cache",
                "--no-progress", "--out", str(out)]  # fmt: skip
        child = subprocess.Popen(
            args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        if scenario == "startup":
            time.sleep(0.3)
        elif not _wait_records(out, 5 if scenario == "api" else 1, child, 180):
            child.kill()
            child.wait()
            return None
        sent = time.monotonic()
        child.send_signal(sig)
        try:
            code = child.wait(120)
        except subprocess.TimeoutExpired:
            child.kill()
            code = child.wait()
        return time.monotonic() - sent, code


def burners(n: int) -> list[subprocess.Popen[bytes]]:
    """``n`` processes that keep a CPU busy (the heavy load)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def main() -> None:
    """Measure every scenario x signal x load x tree; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--burners", type=int, default=4)
    parser.add_argument("--peer-src", type=Path, default=None)
    parser.add_argument("--scenarios", default="api,local,startup")
    args = parser.parse_args()
    trees = [("this tree", ROOT / "src")]
    if args.peer_src is not None:
        trees.append(("peer", args.peer_src))
    rows = []
    print(f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    print(f"command: python perf/bench_stops.py {' '.join(sys.argv[1:])}\n")
    with FaultServer(fault_rate=0.0, delay_s=0.05) as server:
        for load in ("normal", "heavy"):
            extra = burners(args.burners) if load == "heavy" else []
            time.sleep(1 if extra else 0)
            try:
                for scenario in args.scenarios.split(","):
                    for sig in (signal.SIGINT, signal.SIGTERM):
                        for name, src in trees:
                            start_load = os.getloadavg()[0]
                            got = [one_stop(src, scenario, sig, server.url)
                                   for _ in range(args.repeats)]  # fmt: skip
                            times = [g[0] for g in got if g is not None]
                            codes = sorted({g[1] for g in got if g is not None})
                            rows.append((load, f"{start_load:.2f}", scenario, sig.name, name,
                                         f"{statistics.median(times):.2f}" if times else "-",
                                         f"{max(times):.2f}" if times else "-",
                                         ",".join(map(str, codes))))  # fmt: skip
                            print(" | ".join(rows[-1]), flush=True)
            finally:
                for burner in extra:
                    burner.kill()
                    burner.wait()
    print("\n| load | load avg | scenario | signal | tree | median s | max s | exit codes |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
