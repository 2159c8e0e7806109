"""GPU check: relreason's ``vllm:`` and ``hf:`` against lm-eval's ``vllm`` and ``hf`` backends.

Same model, same items, one GPU, one run (``perf/gpu_check.sh`` drives it, under 8 minutes on
one H200 with a small model):

- ConvRe re2text setting 9 (328-triple subset), log-likelihood of " A" / " B";
- MCR English zero-shot, greedy generation of the task's own length, read by the task's reader.

Each phase runs in its own subprocess with a time limit; a phase whose package is missing
(``vllm``, ``lm_eval``) is reported as skipped, not failed. Per phase: seconds of the timed
loop (load apart), peak GPU memory (torch's allocator peak for hf; the device's used memory,
sampled by ``nvidia-smi``, for vLLM, which reserves its share up front), and the outputs, which
are then compared item by item: relreason ``hf`` with lm-eval ``hf``, relreason ``vllm`` with
lm-eval ``vllm``, and the two engines with each other.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PHASES = ("relreason-hf", "lmeval-hf", "relreason-vllm", "lmeval-vllm")
NEEDS = {"relreason-vllm": "vllm", "lmeval-vllm": "vllm", "lmeval-hf": "lm_eval"}


def tasks(data: Path, limit: int | None) -> tuple[Any, Any]:
    """ConvRe setting 9 and MCR English zero-shot, cut to ``limit`` items each."""
    from dataclasses import replace

    from relreason.benchmarks import get

    convre, mcr = get("convre"), get("mcr")
    ll = convre.build_task(convre.params(task="re2text", setting=9, subset=True), data)
    gen = mcr.build_task(mcr.params(language="en", method="zs"), data)
    return replace(ll, items=ll.items[:limit]), replace(gen, items=gen.items[:limit])


def phase(name: str, model: str, data: Path, limit: int | None, dtype: str) -> dict[str, Any]:
    """Load one engine, time its log-likelihood and generation loops, keep the outputs."""
    ll_task, gen_task = tasks(data, limit)
    pairs = [(it.prompt, ll_task.continuations(it)) for it in ll_task.items]
    prompts = [it.prompt for it in gen_task.items]
    started = time.perf_counter()
    if name.startswith("relreason"):
        run = _relreason(name.split("-")[1], model, dtype)
    else:
        run = _lmeval(name.split("-")[1], model, dtype)
    load_s = time.perf_counter() - started
    sampler = _MemorySampler()
    t0 = time.perf_counter()
    scores = run["ll"](pairs)
    ll_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    texts = run["gen"](prompts, gen_task.max_new_tokens)
    gen_s = time.perf_counter() - t0
    from relreason.types import Response

    answers = [
        gen_task.scorer(it, Response(text=t)).answer
        for it, t in zip(gen_task.items, texts, strict=True)
    ]
    result = {"phase": name, "load_s": load_s, "ll_s": ll_s, "gen_s": gen_s, "scores": scores}
    result.update(texts=texts, answers=answers, device_mem_mb=sampler.stop())
    try:
        import torch

        result["torch_peak_mb"] = torch.cuda.max_memory_allocated() / 2**20
    except (ImportError, RuntimeError):
        pass
    return result


def _relreason(engine: str, model: str, dtype: str) -> dict[str, Any]:
    import asyncio

    from relreason.models.registry import load_backend
    from relreason.types import ChoiceRequest, GenerationParams, GenerationRequest

    spec = f"{engine}:{model}"
    backend = load_backend(spec, device="auto", dtype=dtype, batch_size=64)
    if engine == "vllm":
        backend.batch_size = 4096  # vLLM batches continuously: hand it everything

    def batched(method: Any, requests: list[Any]) -> list[Any]:
        out: list[Any] = []
        for start in range(0, len(requests), backend.batch_size):
            out.extend(asyncio.run(method(requests[start : start + backend.batch_size])))
        return out

    def ll(pairs: list[tuple[str, dict[str, str]]]) -> list[dict[str, float]]:
        responses = batched(backend.score_choices, [ChoiceRequest(p, c) for p, c in pairs])
        return [dict(r.choice_logprobs or {}) for r in responses]

    def gen(prompts: list[str], max_new: int) -> list[str | None]:
        params = GenerationParams(max_new_tokens=max_new, top_logprobs=0)
        responses = batched(backend.generate, [GenerationRequest(p, params) for p in prompts])
        return [r.text for r in responses]

    return {"ll": ll, "gen": gen}


def _lmeval(engine: str, model: str, dtype: str) -> dict[str, Any]:
    from lm_eval.api.instance import Instance

    if engine == "hf":
        from lm_eval.models.huggingface import HFLM

        lm: Any = HFLM(pretrained=model, device="cuda", dtype=dtype, batch_size=64)
    else:
        from lm_eval.models.vllm_causallms import VLLM

        lm = VLLM(pretrained=model, dtype=dtype, gpu_memory_utilization=0.8, max_model_len=4096)

    def ll(pairs: list[tuple[str, dict[str, str]]]) -> list[dict[str, float]]:
        flat = [(i, lab, p, c) for i, (p, conts) in enumerate(pairs) for lab, c in conts.items()]
        instances = [Instance("loglikelihood", {}, (p, c), k) for k, (*_, p, c) in enumerate(flat)]
        results = lm.loglikelihood(instances, disable_tqdm=True)
        scores: list[dict[str, float]] = [{} for _ in pairs]
        for (i, label, _, _), (value, _) in zip(flat, results, strict=True):
            scores[i][label] = float(value)
        return scores

    def gen(prompts: list[str], max_new: int) -> list[str | None]:
        kwargs = {"until": [], "max_gen_toks": max_new, "do_sample": False}
        instances = [
            Instance("generate_until", {}, (p, dict(kwargs)), k) for k, p in enumerate(prompts)
        ]
        return list(lm.generate_until(instances, disable_tqdm=True))

    return {"ll": ll, "gen": gen}


class _MemorySampler:
    """The GPU's used memory, sampled by nvidia-smi every half second; the peak in MB."""

    def __init__(self) -> None:
        self.peak = 0.0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        query = ["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"]
        while not self._done.is_set():
            try:
                out = subprocess.run(query, capture_output=True, text=True, timeout=5).stdout
                self.peak = max([self.peak, *(float(x) for x in out.split())])
            except (OSError, ValueError, subprocess.TimeoutExpired):
                return
            self._done.wait(0.5)

    def stop(self) -> float:
        self._done.set()
        self._thread.join(timeout=6)
        return self.peak


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Item-by-item agreement of two phases' outputs."""
    pairs = list(zip(a["scores"], b["scores"], strict=True))
    gaps = [abs(x[k] - y[k]) for x, y in pairs for k in x if k in y]

    def pick(s: dict[str, float]) -> str | None:
        return max(s, key=s.__getitem__) if s else None

    return {
        "same_letter": f"{sum(pick(x) == pick(y) for x, y in pairs)}/{len(pairs)}",
        "max_loglik_gap": max(gaps) if gaps else None,
        "same_text": f"{sum(x == y for x, y in zip(a['texts'], b['texts'], strict=True))}"
        f"/{len(a['texts'])}",
        "same_answer": f"{sum(x == y for x, y in zip(a['answers'], b['answers'], strict=True))}"
        f"/{len(a['answers'])}",
        "ll_speed_ratio": b["ll_s"] / a["ll_s"],
        "gen_speed_ratio": b["gen_s"] / a["gen_s"],
    }


def main() -> None:
    """Run every phase one after another; write ``results.json`` and ``results.md`` to --out."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a Hugging Face model folder")
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--phase-timeout", type=float, default=110.0)
    parser.add_argument("--phase", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(args.phase, args.model, args.data, args.limit, args.dtype)))
        return
    import importlib.util

    args.out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"start": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    report["command"] = " ".join(sys.argv)
    results: dict[str, Any] = {}
    for name in PHASES:
        need = NEEDS.get(name)
        if need and importlib.util.find_spec(need) is None:
            results[name] = f"skipped: {need} is not installed"
            continue
        cmd = [sys.executable, __file__, "--phase", name, "--model", args.model]
        cmd += ["--data", str(args.data), "--dtype", args.dtype]
        cmd += ["--out", str(args.out)] + (["--limit", str(args.limit)] if args.limit else [])
        env = dict(os.environ, PYTHONPATH=str(REPO / "src"), TQDM_DISABLE="1")
        try:
            done = subprocess.run(
                cmd, capture_output=True, text=True, env=env, timeout=args.phase_timeout
            )
        except subprocess.TimeoutExpired as late:
            tail = late.stderr if isinstance(late.stderr, str) else (late.stderr or b"").decode()
            (args.out / f"{name}.log").write_text(tail[-200_000:])
            results[name] = f"failed: over {args.phase_timeout} s"
            continue
        (args.out / f"{name}.log").write_text(done.stderr[-200_000:])
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        results[name] = json.loads(lines[-1]) if lines else f"failed: exit {done.returncode}"
        print(name, "done", flush=True)
    report["end"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    ok = {k: v for k, v in results.items() if isinstance(v, dict)}
    figures = ("load_s", "ll_s", "gen_s", "device_mem_mb", "torch_peak_mb")
    report["phases"] = {
        k: {m: v[m] for m in figures if m in v} if isinstance(v, dict) else v
        for k, v in results.items()
    }
    report["comparisons"] = {
        f"{a} vs {b}": compare(ok[a], ok[b])
        for a, b in (
            ("lmeval-hf", "relreason-hf"),
            ("lmeval-vllm", "relreason-vllm"),
            ("relreason-hf", "relreason-vllm"),
        )
        if a in ok and b in ok
    }
    (args.out / "results.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
