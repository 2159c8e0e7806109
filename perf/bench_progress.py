"""How soon progress moves: seconds from the start of a run until its first plain progress line
with items done (and until the first line at all), for SmolLM2 log-likelihood on the generated
benchmark, this source tree against another (``--peer``, e.g. the main branch's ``src``), in
the same session, one after the other.

Usage: ``python perf/bench_progress.py [--limit 150] [--peer /work/main/src]``. Prints a
Markdown report: machine, load, date, command, figures.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r": (\d+)/(\d+) ")


def measure(src: Path, limit: int) -> dict[str, float | None]:
    """Run the command with ``src`` first on the path; time its stderr lines."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TERM")}
    env.update(PYTHONPATH=str(src), RELREASON_PROGRESS_INTERVAL="0.5", COLUMNS="80")
    code = "import sys; from relreason.cli import main; sys.argv[0] = 'relreason'; main()"
    args = ["run", "compose", "--language", "en", "--method", "zs", "--scoring", "logprob"]
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-c", code, *args, "--limit", str(limit), "--no-cache"],
            env=env,
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        seen: dict[str, float | None] = {"first_line": None, "first_items": None, "loaded": None}
        widest = 0

        def read() -> None:
            nonlocal widest
            assert proc.stderr is not None
            for line in proc.stderr:
                now = time.monotonic() - started
                widest = max(widest, len(line.rstrip("\n")))
                if line.startswith("run folder:") and seen["loaded"] is None:
                    seen["loaded"] = now
                match = LINE.search(line)
                if match:
                    if seen["first_line"] is None:
                        seen["first_line"] = now
                    if int(match[1]) > 0 and seen["first_items"] is None:
                        seen["first_items"] = now

        reader = threading.Thread(target=read)
        reader.start()
        proc.wait()
        reader.join()
        seen["total"] = time.monotonic() - started
        seen["widest"] = float(widest)
        seen["rc"] = float(proc.returncode)
    return seen


def _s(value: float | None) -> str:
    return "never" if value is None else f"{value:.1f} s"


def main() -> None:
    """Print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=150)
    parser.add_argument("--peer", type=Path, default=Path("/work/main/src"))
    args = parser.parse_args()
    load = os.getloadavg()
    print("# Progress latency\n")
    print(
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {platform.node()}, "
        f"{os.cpu_count()} CPUs, load average at start {load[0]:.1f}"
    )
    print(f"- command: `python perf/bench_progress.py {' '.join(sys.argv[1:])}`")
    print(
        f"- what: `relreason run compose --language en --method zs --scoring logprob --limit "
        f"{args.limit} --no-cache` (SmolLM2), plain lines every 0.5 s; times from the start of "
        "the process\n"
    )
    print(
        "| tree | model loaded | first progress line | first line with items done | run ends "
        "| widest stderr line |"
    )
    print("|---|---|---|---|---|---|")
    for name, src in (("this", ROOT / "src"), ("peer", args.peer)):
        got = measure(src, args.limit)
        print(
            f"| {name} ({src}) | {_s(got['loaded'])} | {_s(got['first_line'])} | "
            f"{_s(got['first_items'])} | {_s(got['total'])} | {got['widest']:.0f} |"
        )
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
