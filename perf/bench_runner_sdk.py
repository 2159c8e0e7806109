"""The runner against a bare ``openai`` SDK loop, side by side (a benchmark, not a test).

Both send the same chat requests (one user message, ``max_tokens`` 512, temperature 0,
``logprobs`` with 5 alternatives, the runner's defaults) over the same HTTP transport (the
SDK's aiohttp client when ``openai[aiohttp]`` is installed, as the runner's backend uses) to a
local OpenAI-compatible server that answers at once (tests/servers/fault_server.py with no
faults, in its own process). The bare loop is what a user would write: ``asyncio.gather`` of
``chat.completions.create`` under a semaphore, nothing kept. The runner keeps everything: the
response cache (written, not read: each round uses new prompts), one record per item appended
to ``records.jsonl`` (flushed, fsync'd in batches), the manifest and the summary.

Each measurement runs in a fresh process (its CPU time is that process's user + system time,
every thread, over the measured part only), the two sides alternate (A B, then B A) for
``--rounds`` rounds, and the figures are medians. The machine is shared, so only the ratios
within one run mean anything; the load average is printed with them.

Usage: ``python perf/bench_runner_sdk.py [--items 1500] [--rounds 3] [--concurrency 1 8 64 256]
[--baseline-src OTHER_TREE/src]`` (the last: the runner of another checkout, interleaved too).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def start_server() -> tuple[subprocess.Popen[str], str]:
    """Start the fault-free server in its own process; return it and its base URL."""
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "servers" / "fault_server.py"), "--fault-rate", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def one_runner(url: str, concurrency: int, n: int, tag: str) -> tuple[float, float]:
    """(seconds, CPU-s) of the runner on ``n`` toy items at ``concurrency``."""
    sys.path.insert(0, str(ROOT / "tests"))
    from relreason.benchmarks.registry import names
    from relreason.models.openai.backend import OpenAIBackend
    from relreason.run.runner import RunOptions, run_task
    from servers.fault_server import toy_task

    names()  # what the command line has loaded before a run starts (bench_startup.py times it)
    work = Path(tempfile.mkdtemp(prefix="relreason-bench-"))
    backend = OpenAIBackend("bench", base_urls=[url], timeout=30)
    options = RunOptions(
        concurrency=concurrency, request_timeout=30, cache_path=work / "cache.sqlite3"
    )
    task = toy_task(n, name=f"bench-{tag}")
    cpu, start = _cpu(), time.perf_counter()
    summary = run_task(task, backend, work / "run", options)
    took, used = time.perf_counter() - start, _cpu() - cpu
    assert summary.failed == 0 and summary.n == n, summary
    return took, used


def one_bare(url: str, concurrency: int, n: int, tag: str) -> tuple[float, float]:
    """(seconds, CPU-s) of a bare SDK loop sending the runner's requests for ``n`` items."""
    import asyncio
    import contextlib

    import openai

    sys.path.insert(0, str(ROOT / "tests"))
    from servers.fault_server import toy_task

    prompts = [item.prompt for item in toy_task(n, name=f"bench-{tag}").items]

    async def go() -> None:
        extra: dict[str, Any] = {}
        # the same rule as relreason's backend: the SDK's aiohttp client where it works
        with contextlib.suppress(RuntimeError, ImportError):
            extra["http_client"] = openai.DefaultAioHttpClient()
        client = openai.AsyncOpenAI(api_key="x", base_url=url, max_retries=0, timeout=30, **extra)
        gate = asyncio.Semaphore(concurrency)

        async def one(prompt: str) -> None:
            async with gate:
                result = await client.chat.completions.create(
                    model="bench",
                    messages=[{"role": "user", "content": prompt}],
                    max_tokens=512,
                    temperature=0.0,
                    logprobs=True,
                    top_logprobs=5,
                )
                assert result.choices[0].message.content is not None

        await asyncio.gather(*(one(p) for p in prompts))
        await client.close()

    cpu, start = _cpu(), time.perf_counter()
    asyncio.run(go())
    return time.perf_counter() - start, _cpu() - cpu


def measure(
    side: str, url: str, concurrency: int, n: int, tag: str, src: Path | None = None
) -> tuple[float, float]:
    """Run one side in a fresh process (relreason from ``src`` when given: a baseline); return
    (items/s, CPU-s per item)."""
    env = {**os.environ, "PYTHONPATH": str(src)} if src is not None else None
    done = subprocess.run(
        [
            *(sys.executable, __file__, "--one", side, "--url", url, "--tag", tag),
            *("--items", str(n), "--concurrency", str(concurrency)),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env=env,
    )
    if done.returncode != 0:
        raise SystemExit(f"{side} c={concurrency} failed:\n{done.stderr[-3000:]}")
    took, used = json.loads(done.stdout.strip().splitlines()[-1])
    return n / took, used / n


def compare(
    concurrencies: list[int], n: int, rounds: int, url: str, baseline: Path | None = None
) -> dict[int, dict[str, list[tuple[float, float]]]]:
    """Interleaved A/B (A/B/C with a ``baseline`` source tree, side "before"):
    {concurrency: {side: [(items/s, CPU-s per item), ...]}}."""
    found: dict[int, dict[str, list[tuple[float, float]]]] = {}
    order = ["runner", "bare"] + (["before"] if baseline is not None else [])
    for r in range(rounds):
        for c in concurrencies:
            for side in order if r % 2 == 0 else order[::-1]:
                which, src = ("runner", baseline) if side == "before" else (side, None)
                figure = measure(which, url, c, n, f"r{r}c{c}{side}", src)
                found.setdefault(c, {}).setdefault(side, []).append(figure)
    return found


def table(found: dict[int, dict[str, list[tuple[float, float]]]]) -> list[str]:
    """Markdown rows: medians and ratios (runner / bare) per concurrency."""
    rows = [
        "| concurrency | runner items/s | bare SDK items/s | throughput ratio "
        "| runner CPU-ms/item | bare CPU-ms/item | CPU ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for c, sides in found.items():
        run_rate = statistics.median(f[0] for f in sides["runner"])
        bare_rate = statistics.median(f[0] for f in sides["bare"])
        run_cpu = statistics.median(f[1] for f in sides["runner"])
        bare_cpu = statistics.median(f[1] for f in sides["bare"])
        rows.append(
            f"| {c} | {run_rate:,.0f} | {bare_rate:,.0f} | {run_rate / bare_rate:.2f}x "
            f"| {run_cpu * 1000:.2f} | {bare_cpu * 1000:.2f} | {run_cpu / bare_cpu:.2f}x |"
        )
        if "before" in sides:
            old_rate = statistics.median(f[0] for f in sides["before"])
            old_cpu = statistics.median(f[1] for f in sides["before"])
            rows.append(
                f"| {c} (baseline tree) | {old_rate:,.0f} | {bare_rate:,.0f} "
                f"| {old_rate / bare_rate:.2f}x | {old_cpu * 1000:.2f} | {bare_cpu * 1000:.2f} "
                f"| {old_cpu / bare_cpu:.2f}x |"
            )
    return rows


def run(
    concurrencies: list[int], n: int, rounds: int, baseline: Path | None = None
) -> tuple[list[str], dict[str, object]]:
    """Start the server, compare, stop it; return the table rows and the raw figures."""
    server, url = start_server()
    load = os.getloadavg()[0]
    try:
        found = compare(concurrencies, n, rounds, url, baseline)
    finally:
        server.terminate()
        server.wait(10)
    raw = {"load_before": load, "load_after": os.getloadavg()[0], "figures": found}
    return table(found), raw


def main() -> None:
    """Measure and print a Markdown table (or, with ``--one``, one side as JSON)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 64, 256])
    parser.add_argument(
        "--baseline-src",
        type=Path,
        help="also measure the runner of another source tree (its src/ folder), interleaved",
    )
    parser.add_argument("--one", choices=["runner", "bare"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--tag", default="x", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        side = one_runner if args.one == "runner" else one_bare
        print(json.dumps(side(args.url, args.concurrency[0], args.items, args.tag)))
        return
    rows, raw = run(args.concurrency, args.items, args.rounds, args.baseline_src)
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    print(f"load average: {raw['load_before']:.1f} before, {raw['load_after']:.1f} after\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
