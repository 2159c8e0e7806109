"""What a 1,000-cell sweep over 8 machines costs, by simulation (a model of the run, not a run).

The cells: every ConvRe cell (re2text and text2re x settings 1-12, the subset for the few-shot
settings 7-12 as the paper ran them) and every MCR cell (5 languages x zs/fs/zsc), i.e. 39 cells
a model, for as many models as make 1,000 cells. Requests and tokens come from relreason's own
dry run (``relreason.run.cost.dry_run``, the model's tokenizer when it is at hand). Wall time
follows from stated rates, with the cells placed on the machines longest first (what Ray's
scheduler does at best; Ray places tasks as machines free up, which is close for many cells):

- ``engine``: each machine runs a local engine on its own GPU (``--prefill-tps``,
  ``--decode-tps`` tokens/s per machine), and each cell loads its model (``--load-s``): a Ray
  cell is a task of its own, it does not keep the model of the cell before.
- ``api``: every machine calls one API whose limits the cells share (``--rpm``, ``--tpm``: one
  Ray actor per server), each cell with ``--concurrency`` requests in flight of ``--latency-s``.

Usage: ``RELREASON_DATA_DIR=... python perf/sim_ray_sweep.py [--cells 1000] [--machines 8]``.
Prints a Markdown report (machine, load, date, command, figures).
"""

from __future__ import annotations

import argparse
import heapq
import os
import platform
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True)
class Cell:
    """One cell's dry-run figures."""

    name: str
    requests: int
    input_tokens: int
    output_tokens: int


def benchmark_cells(spec: str) -> list[Cell]:
    """The 39 cells of one model (ConvRe Table 9's 24, MCR Table 4's 15), dry-run."""
    from relreason.benchmarks import get
    from relreason.run.cost import dry_run
    from relreason.run.sweep import SweepOptions

    cells = []
    convre, mcr = get("convre"), get("mcr")
    grid = [
        (convre, {"task": task, "setting": s, "subset": s >= 7})
        for task in ("re2text", "text2re")
        for s in range(1, 13)
    ] + [
        (mcr, {"language": lang, "method": m})
        for lang in ("en", "zh", "fr", "ja", "ko")
        for m in ("zs", "fs", "zsc")
    ]
    for bench, values in grid:
        params = bench.params(**values)
        task = bench.build_task(params, None)
        options = SweepOptions(scoring="generate").run_options(show_progress=False, task=task)
        report = dry_run(task, spec, options)
        cells.append(
            Cell(bench.run_name(params), report.requests, report.input_tokens, report.output_tokens)
        )
    return cells


def makespan(durations: list[float], machines: int) -> float:
    """Seconds until the last cell ends, cells placed longest first on the freest machine."""
    free = [0.0] * machines
    heapq.heapify(free)
    for d in sorted(durations, reverse=True):
        heapq.heappush(free, heapq.heappop(free) + d)
    return max(free)


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.2f} h"


def main() -> None:
    """Print the simulation's report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", type=int, default=1000)
    parser.add_argument("--machines", type=int, default=8)
    parser.add_argument("--spec", default="openai:gpt-4o-mini", help="tokenizer and price")
    parser.add_argument("--prefill-tps", type=float, default=10_000.0)
    parser.add_argument("--decode-tps", type=float, default=1_500.0)
    parser.add_argument("--load-s", type=float, default=60.0)
    parser.add_argument("--task-overhead-s", type=float, default=2.0)
    parser.add_argument("--rpm", type=float, default=10_000.0)
    parser.add_argument("--tpm", type=float, default=2_000_000.0)
    parser.add_argument("--latency-s", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    started = time.monotonic()
    one_model = benchmark_cells(args.spec)
    cells = [one_model[i % len(one_model)] for i in range(args.cells)]
    requests = sum(c.requests for c in cells)
    tokens_in = sum(c.input_tokens for c in cells)
    tokens_out = sum(c.output_tokens for c in cells)
    from relreason.run.cost import estimate_cost, load_prices

    cost = estimate_cost(args.spec, tokens_in, tokens_out, load_prices())
    engine = [
        args.load_s
        + args.task_overhead_s
        + c.input_tokens / args.prefill_tps
        + c.output_tokens / args.decode_tps
        for c in cells
    ]
    engine_wall = makespan(engine, args.machines)
    compute_only = sum(d - args.load_s - args.task_overhead_s for d in engine)
    api_cells = [
        args.task_overhead_s + c.requests / args.concurrency * args.latency_s for c in cells
    ]
    api_latency_wall = makespan(api_cells, args.machines)
    api_limit_wall = max(requests / args.rpm, (tokens_in + tokens_out) / args.tpm) * 60
    api_wall = max(api_latency_wall, api_limit_wall)
    load = os.getloadavg()
    print(f"# Simulated {args.cells}-cell sweep over {args.machines} machines\n")
    print(
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {platform.node()}, "
        f"{os.cpu_count()} CPUs, load average {load[0]:.1f}; Python {sys.version.split()[0]}"
    )
    print(f"- command: `python perf/{os.path.basename(__file__)} {' '.join(sys.argv[1:])}`")
    print(
        f"- cells: {len(one_model)} per model (ConvRe 24, MCR 15), {args.cells} in all; "
        f"dry run with {args.spec}'s tokenizer, computed in {time.monotonic() - started:.0f} s"
    )
    print(
        f"- requests {requests:,}; input tokens ~{tokens_in:,}; output tokens <= "
        f"{tokens_out:,}; API cost at {args.spec}'s price: "
        f"{'unknown' if cost is None else f'${cost:,.2f}'}\n"
    )
    print("| scenario | stated rates | wall time | note |")
    print("|---|---|---|---|")
    print(
        f"| engine, 1 GPU a machine | prefill {args.prefill_tps:,.0f} tok/s, decode "
        f"{args.decode_tps:,.0f} tok/s, model load {args.load_s:.0f} s a cell, task "
        f"{args.task_overhead_s:.0f} s | {_hours(engine_wall)} | compute alone "
        f"{_hours(compute_only / args.machines)} a machine; loading "
        f"{_hours(args.cells * args.load_s / args.machines)} a machine |"
    )
    print(
        f"| API, limits shared | {args.rpm:,.0f} rpm, {args.tpm:,.0f} tpm, {args.latency_s:g} s "
        f"a request, {args.concurrency} in flight a cell | {_hours(api_wall)} | "
        f"latency-bound {_hours(api_latency_wall)}, limit-bound {_hours(api_limit_wall)} |"
    )


if __name__ == "__main__":
    main()
