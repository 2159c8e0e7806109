"""Start-up to the first request: ``relreason run`` against a bare ``openai`` SDK script
(a benchmark, not a test).

Both are fresh processes started the same way; the figure is the time from starting the
process to the moment a local server (in this process, on 127.0.0.1) receives its first
request. The bare side imports ``openai``, builds an ``AsyncOpenAI`` client and sends one chat
request; the relreason side is ``relreason run mcr --language en --method zs --model
openai:bench --base-url URL --limit 1 --no-cache --no-progress`` (the official MCR data, from
``--data-dir``). Each side's Python files are compiled first (``compileall``), as an installed
package's are (pip compiles them; a checkout run with ``PYTHONDONTWRITEBYTECODE`` set would
compile relreason's ~140 modules again at every start, about 0.3 s, while the SDK's come
compiled). The two alternate for ``--rounds`` rounds; the figures are medians, and the
load average is printed with them (only the ratio means anything on a shared machine).

Usage: ``python perf/bench_startup.py --data-dir /work/shared/data [--rounds 3]
[--baseline-src OTHER_TREE/src]`` (the last: relreason of another checkout too, interleaved).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

BARE = """
import asyncio, sys
import openai

async def main():
    client = openai.AsyncOpenAI(api_key="x", base_url=sys.argv[1], max_retries=0)
    await client.chat.completions.create(
        model="bench", messages=[{"role": "user", "content": "Question"}], max_tokens=32
    )

asyncio.run(main())
"""

ANSWER = json.dumps(
    {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "bench",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "Answer: A"},
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
).encode()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    first: float | None = None


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        if self.server.first is None:
            self.server.first = time.monotonic()
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


def first_request(command: list[str], server: _Server, src: Path | None = None) -> float:
    """Seconds from starting ``command`` (relreason from ``src`` when given) to the server's
    first request."""
    server.first = None
    env = {**os.environ, "PYTHONPATH": str(src)} if src is not None else None
    start = time.monotonic()
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=300, check=False, env=env
    )
    if done.returncode != 0 or server.first is None:
        raise SystemExit(f"{command[:4]} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return server.first - start


def measure(data_dir: Path, rounds: int, baseline: Path | None = None) -> dict[str, list[float]]:
    """{side: [seconds to the first request, ...]} over ``rounds`` alternating rounds (side
    "before": relreason from the ``baseline`` source tree, when given)."""
    for tree in [Path(__file__).resolve().parents[1] / "src", *([baseline] if baseline else [])]:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree)], check=True)
    server = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    work = Path(tempfile.mkdtemp(prefix="relreason-startup-"))
    sides = {
        "bare": [sys.executable, "-c", BARE, url],
        "relreason": [
            *(sys.executable, "-m", "relreason", "run", "mcr"),
            *("--language", "en", "--method", "zs", "--model", "openai:bench"),
            *("--base-url", url, "--limit", "1", "--no-cache", "--no-progress"),
            *("--data-dir", str(data_dir)),
        ],
    }
    order = ["bare", "relreason"] + (["before"] if baseline is not None else [])
    found: dict[str, list[float]] = {side: [] for side in order}
    try:
        for r in range(rounds):
            for side in order if r % 2 == 0 else order[::-1]:
                if side == "bare":
                    command = sides["bare"]
                else:
                    command = [*sides["relreason"], "--out", str(work / f"r{r}{side}")]
                src = baseline if side == "before" else None
                found[side].append(first_request(command, server, src))
    finally:
        server.shutdown()
        server.server_close()
    return found


def main() -> None:
    """Measure and print a Markdown table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, default=Path("/work/shared/data"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--baseline-src", type=Path, help="also time relreason from another tree's src/"
    )
    args = parser.parse_args()
    load = os.getloadavg()[0]
    found = measure(args.data_dir, args.rounds, args.baseline_src)
    bare = statistics.median(found["bare"])
    print(f"load average: {load:.1f} before, {os.getloadavg()[0]:.1f} after\n")
    print("| to the first request | median s | vs bare SDK | all runs (s) |\n|---|---|---|---|")
    labels = {
        "bare": "bare openai SDK script",
        "relreason": "relreason run",
        "before": "relreason run (baseline tree)",
    }
    for side, times in found.items():
        runs = ", ".join(f"{s:.2f}" for s in times)
        median = statistics.median(times)
        print(f"| {labels[side]} | {median:.2f} | {median / bare:.2f}x | {runs} |")


if __name__ == "__main__":
    main()
