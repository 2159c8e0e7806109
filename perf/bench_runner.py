"""Runner throughput, cache speed and memory (a benchmark, not a test).

Measures, in one go:
- the ceiling of a local OpenAI-compatible server that answers at once (tests/servers/
  fault_server.py with no faults, in its own process), with the ``wrk`` load generator;
- requests/s through the runner (real OpenAIBackend, official SDK) against that server at
  concurrency 1, 8 and 64;
- cache hits/s: raw ``ResponseCache.get_many`` and a whole run served from the cache;
- peak memory (max RSS) of a 30,000-item run with the random baseline, in a fresh process.

Usage: ``python perf/bench_runner.py [--items 3000] [--wrk-seconds 5]``
(``apt-get install -y wrk`` first). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from relreason.run.cache import ResponseCache, cache_key  # noqa: E402
from relreason.run.runner import RunOptions, run_task  # noqa: E402
from relreason.types import Response  # noqa: E402
from servers.fault_server import toy_task  # noqa: E402

LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model": "m", "max_tokens": 16, '
  .. '"messages": [{"role": "user", "content": "Question 1: which?"}]}'
"""


def start_server() -> tuple[subprocess.Popen[str], str]:
    """Start the fault-free server in its own process; return it and its base URL."""
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "servers" / "fault_server.py"), "--fault-rate", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    url = server.stdout.readline().strip()
    return server, url


def wrk_ceiling(url: str, seconds: int, connections: int) -> float | None:
    """Requests/s that wrk gets from the server, or None when wrk is not installed."""
    if shutil.which("wrk") is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(LUA)
    done = subprocess.run(
        [
            "wrk",
            "-t2",
            f"-c{connections}",
            f"-d{seconds}s",
            "-s",
            script.name,
            url + "/chat/completions",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    os.unlink(script.name)
    match = re.search(r"Requests/sec:\s*([\d.]+)", done.stdout)
    return float(match.group(1)) if match else None


def runner_rate(url: str, concurrency: int, n: int, workdir: Path) -> float:
    """Items per second through the runner with the real OpenAIBackend."""
    from relreason.models.openai.backend import OpenAIBackend

    backend = OpenAIBackend("bench", base_urls=[url], timeout=30)
    options = RunOptions(use_cache=False, concurrency=concurrency, request_timeout=30)
    task = toy_task(n, name=f"bench-c{concurrency}")
    start = time.perf_counter()
    summary = run_task(task, backend, workdir / f"c{concurrency}", options)
    elapsed = time.perf_counter() - start
    assert summary.failed == 0 and summary.n == n
    return n / elapsed


def sdk_rate(url: str, concurrency: int, n: int) -> float:
    """Requests/s of the bare official SDK (no runner): ``n`` chat requests, ``concurrency``
    at a time. The runner cannot beat this: it shows what the SDK itself costs."""
    import asyncio

    import openai

    async def go() -> float:
        client = openai.AsyncOpenAI(api_key="x", base_url=url, max_retries=0, timeout=30)
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with gate:
                await client.chat.completions.create(
                    model="m",
                    messages=[{"role": "user", "content": f"Question {i}"}],
                    max_tokens=16,
                    logprobs=True,
                    top_logprobs=5,
                )

        start = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        rate = n / (time.perf_counter() - start)
        await client.close()
        return rate

    return asyncio.run(go())


def cache_rates(workdir: Path, n: int = 30_000) -> tuple[float, float]:
    """(raw get_many hits/s, whole-run cached items/s) over ``n`` entries."""
    from relreason.models.baselines import BaselineBackend

    cache = ResponseCache(workdir / "raw.sqlite3")
    identity = {"backend": "bench"}
    keys = [cache_key(identity, "generate", f"prompt {i}", {}) for i in range(n)]
    cache.put_many((k, Response(text="A", top_logprobs=({"A": -0.1, "B": -2.3},))) for k in keys)
    start = time.perf_counter()
    found = cache.get_many(keys)
    raw = len(found) / (time.perf_counter() - start)
    assert len(found) == n

    task = toy_task(n, name="bench-cache")
    options = RunOptions(cache_path=workdir / "run.sqlite3")
    run_task(task, BaselineBackend("random"), workdir / "warm", options)
    start = time.perf_counter()
    summary = run_task(task, BaselineBackend("random"), workdir / "cached", options)
    whole = n / (time.perf_counter() - start)
    assert summary.cached == n
    return raw, whole


MEMORY = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path

    def peak_kib():  # VmHWM: this process's peak RSS (ru_maxrss would include the parent's)
        status = Path("/proc/self/status").read_text()
        return int(next(l for l in status.splitlines() if l.startswith("VmHWM")).split()[1])

    sys.path.insert(0, {tests!r})
    from servers.fault_server import toy_task
    from relreason.models.baselines import BaselineBackend
    from relreason.run.runner import RunOptions, run_task
    task = toy_task({n}, name="bench-memory")
    before = peak_kib()
    start = time.perf_counter()
    run_task(task, BaselineBackend("random"), Path({out!r}), RunOptions(use_cache={cache}))
    took = time.perf_counter() - start
    print(before, peak_kib(), took)
    """
)


def peak_memory(workdir: Path, n: int, use_cache: bool) -> tuple[float, float, float]:
    """(RSS MiB before the run, peak RSS MiB, seconds) of an ``n``-item baseline run."""
    code = MEMORY.format(
        tests=str(ROOT / "tests"), n=n, out=str(workdir / f"mem-{use_cache}"), cache=use_cache
    )
    env = {**os.environ, "RELREASON_CACHE_DIR": str(workdir / "memcache")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    before, peak, took = out.stdout.split()
    return int(before) / 1024, int(peak) / 1024, float(took)


def main() -> None:
    """Run every measurement and print a Markdown report."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=3000, help="items per runner measurement")
    parser.add_argument("--wrk-seconds", type=int, default=5)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="relreason-bench-"))
    os.environ["RELREASON_CACHE_DIR"] = str(workdir / "cache")
    server, url = start_server()
    try:
        ceiling = wrk_ceiling(url, args.wrk_seconds, 64)
        rates: dict[int, float] = {}
        bare: dict[int, float] = {}
        for c in (1, 8, 64):
            n = args.items if c > 1 else args.items // 3
            rates[c] = runner_rate(url, c, n, workdir)
            bare[c] = sdk_rate(url, c, n)
    finally:
        server.terminate()
        server.wait(10)
    raw, whole = cache_rates(workdir)
    mem_cache = peak_memory(workdir, 30_000, True)
    mem_plain = peak_memory(workdir, 30_000, False)

    print(f"# runner benchmark, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC\n")
    print(
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    print(
        f"command: python perf/bench_runner.py --items {args.items} "
        f"--wrk-seconds {args.wrk_seconds}\n"
    )
    print("| measurement | figure |\n|---|---|")
    shown = f"{ceiling:,.0f} req/s" if ceiling else "wrk not installed"
    print(f"| server ceiling (wrk, 2 threads, 64 connections) | {shown} |")
    for c, rate in rates.items():
        ratio = f" ({rate / ceiling:.1%} of ceiling)" if ceiling else ""
        print(
            f"| runner, OpenAIBackend, concurrency {c} | {rate:,.0f} items/s{ratio}, "
            f"{rate / bare[c]:.0%} of the bare SDK |"
        )
        print(f"| bare openai SDK loop, concurrency {c} | {bare[c]:,.0f} req/s |")
    print(f"| cache, raw get_many of 30,000 keys | {raw:,.0f} hits/s |")
    print(f"| cache, whole 30,000-item run served from cache | {whole:,.0f} items/s |")
    for label, (before, peak, took) in (("with cache", mem_cache), ("no cache", mem_plain)):
        print(
            f"| 30,000-item baseline run ({label}): peak RSS | {peak:,.0f} MiB "
            f"(after imports {before:,.0f} MiB; {took:.1f} s) |"
        )


if __name__ == "__main__":
    main()
