"""Benchmark: why ``gguf:`` log-likelihood is slower per item than ``hf:`` on this CPU.

Two measurements, one thread each:

1. Tokens each engine must run for 256 items of four tasks: ``gguf:``'s one key/value cache
   (each prompt reuses the prefix it shares with the one before; requests sorted within the
   runner's batches of 16) against a radix tree over all 256 (what ``hf:``'s prefix tree runs;
   equal to one cache fed the prompts sorted globally).
2. Prompt-evaluation speed, tokens/s: llama.cpp on the bundled GGUF as shipped (Q4_1) and
   requantised copies (Q4_0, Q8_0, F16, F32, written to a temporary folder and deleted), and
   transformers on the float32 conversion ``hf:`` runs, 300 tokens each, in turn, twice.

3. ``--per-item``: seconds per item of log-likelihood scoring, the runner's way (``hf:``
   prepares its prefix tree, then both take batches of 16), ``hf:`` beside ``gguf:`` under
   several thread settings (``--configs``: ``ENGINE:THREADS``, ``0`` = the engine's default),
   each in its own subprocess, the configurations run in turn and then in reverse (A B C C B A)
   so that a load that drifts weighs on each alike. Items: ``--n`` of each of MCR en zs,
   ConvRe re2text settings 9 and 1 and compose en zs (every 7th). Printed per configuration:
   s/item (each round and mean), the ratio to ``hf:``, the letters it picks against ``hf:``'s
   and the largest log-likelihood difference against the first ``gguf:`` configuration (so a
   change of threads that moved a score would show).

Not a test::

    python perf/bench_gguf_loglik.py
    python perf/bench_gguf_loglik.py --per-item --n 24 --configs hf:0,gguf:1,gguf:0
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import llama_cpp
import torch
from llama_cpp import Llama

from relreason.benchmarks import get
from relreason.models import smollm2

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TASKS = [
    ("convre", {"task": "re2text", "setting": 9, "subset": True}),
    ("convre", {"task": "re2text", "setting": 1, "subset": True}),
    ("mcr", {"language": "en", "method": "zs"}),
    ("compose", {"language": "en", "method": "zs"}),
]
TYPES = {
    "q4_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_0,
    "q8_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0,
    "f16": llama_cpp.LLAMA_FTYPE_MOSTLY_F16,
    "f32": llama_cpp.LLAMA_FTYPE_ALL_F32,
}


def cache_cost(sequences: list[list[int]]) -> int:
    """Tokens one key/value cache runs for ``sequences`` in this order (one at least each)."""
    total, previous = 0, []
    for seq in sequences:
        shared = 0
        while shared < min(len(seq), len(previous)) and seq[shared] == previous[shared]:
            shared += 1
        total += len(seq) - min(shared, len(seq) - 1)
        previous = seq
    return total


def token_counts() -> None:
    vocab = Llama(str(smollm2.gguf_path()), vocab_only=True, verbose=False)
    print("| task | prompt tokens | gguf: one cache, batches of 16 | radix tree (hf:) |")
    print("|---|---|---|---|")
    for name, params in TASKS:
        benchmark = get(name)
        task = benchmark.build_task(benchmark.params(**params), DATA)
        seqs = [
            vocab.tokenize(it.prompt.rstrip().encode(), add_bos=True, special=True)
            for it in task.items[:256]
        ]
        chained = [s for i in range(0, len(seqs), 16) for s in sorted(seqs[i : i + 16])]
        label = f"{name} {' '.join(str(v) for v in params.values())} ({len(seqs)} items)"
        print(
            f"| {label} | {sum(map(len, seqs))} | {cache_cost(chained)} |"
            f" {cache_cost(sorted(seqs))} |"
        )


def speeds() -> None:
    torch.set_num_threads(1)
    from transformers import AutoModelForCausalLM

    tokens = list(range(1000, 1300))
    source = str(smollm2.gguf_path())
    with tempfile.TemporaryDirectory() as folder:
        files = {"q4_1 (as shipped)": source}
        for name, ftype in TYPES.items():
            params = llama_cpp.llama_model_quantize_default_params()
            params.ftype, params.allow_requantize, params.nthread = ftype, True, 1
            path = str(Path(folder) / f"{name}.gguf")
            llama_cpp.llama_model_quantize(source.encode(), path.encode(), ctypes.byref(params))
            files[name] = path
        model = AutoModelForCausalLM.from_pretrained(str(smollm2.converted_dir()))
        rates: dict[str, list[float]] = {}
        for _ in range(2):
            for name, path in files.items():
                llm = Llama(path, n_ctx=1024, n_threads=1, n_threads_batch=1, verbose=False)
                llm.eval(tokens[:8])
                llm.n_tokens = 0
                started = time.perf_counter()
                llm.eval(tokens)
                rates.setdefault(f"llama.cpp {name}", []).append(
                    len(tokens) / (time.perf_counter() - started)
                )
                llm.close()
            with torch.inference_mode():
                started = time.perf_counter()
                model(torch.tensor([tokens]), logits_to_keep=1)
                rates.setdefault("transformers float32", []).append(
                    len(tokens) / (time.perf_counter() - started)
                )
    print("| engine, weights | tokens/s (two passes) |")
    print("|---|---|")
    for name, values in rates.items():
        print(f"| {name} | {' / '.join(f'{v:.0f}' for v in values)} |")
    print("llama.cpp features:", llama_cpp.llama_print_system_info().decode().strip())


PER_ITEM_TASKS = [*TASKS[2:3], *TASKS[:2], *TASKS[3:]]
BATCH = 16


def choice_requests(n: int) -> list[Any]:
    """``n`` letter-scoring requests of each task (every 7th item)."""
    from relreason.types import ChoiceRequest

    requests = []
    for name, params in PER_ITEM_TASKS:
        benchmark = get(name)
        task = benchmark.build_task(benchmark.params(**params), DATA)
        requests += [ChoiceRequest(it.prompt, task.continuations(it)) for it in task.items[::7][:n]]
    return requests


def phase(config: str, n: int) -> dict[str, Any]:
    """One configuration in this process: load, then score every request the runner's way."""
    from relreason.models.registry import load_backend

    engine, threads = config.split(":")
    options: dict[str, Any] = {"threads": int(threads)} if int(threads) else {}
    requests = choice_requests(n)
    started = time.perf_counter()
    backend = load_backend({"hf": "smollm2", "gguf": "gguf:smollm2"}[engine], **options)
    load_s = time.perf_counter() - started

    async def score() -> list[Any]:
        out: list[Any] = []
        await backend.prepare_choices(requests)  # hf: one prefix tree, as a run prepares it
        for start in range(0, len(requests), BATCH):
            out.extend(await backend.score_choices(requests[start : start + BATCH]))
        return out

    cpu = time.process_time()
    started = time.perf_counter()
    scored = asyncio.run(score())
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu
    asyncio.run(backend.aclose())
    llm = getattr(backend, "llm", None)
    return {
        "s_per_item": seconds / len(requests),
        "cpu_per_item": cpu / len(requests),
        "load_s": load_s,
        "threads": (
            [llm.context_params.n_threads, llm.context_params.n_threads_batch]
            if llm is not None
            else torch.get_num_threads()
        ),
        "scores": [r.choice_logprobs for r in scored],
        "failed": sum(r.error is not None for r in scored),
    }


def per_item(configs: list[str], n: int) -> None:
    order = configs + configs[::-1]
    results: dict[str, list[dict[str, Any]]] = {}
    for config in order:
        command = [sys.executable, __file__, "--phase", config, "--n", str(n)]
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
        results.setdefault(config, []).append(json.loads(done.stdout.splitlines()[-1]))
        print(config, "done", os.getloadavg(), file=sys.stderr, flush=True)

    def letters(scores: list[dict[str, float]]) -> list[str]:
        return [max(s, key=s.__getitem__) for s in scores]

    mean = {c: sum(r["s_per_item"] for r in rs) / len(rs) for c, rs in results.items()}
    hf = next((c for c in configs if c.startswith("hf")), None)
    first_gguf = next((c for c in configs if c.startswith("gguf")), None)
    n_items = len(results[configs[0]][0]["scores"])
    print(f"{n_items} items; each configuration twice (A B .. B A)")
    print(
        "| engine:threads | threads used | s/item (rounds) | mean s/item | vs hf | CPU s/item |"
        " same letter as hf | max abs. log-lik. diff vs first gguf | failed |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for config, rs in results.items():
        scores = rs[0]["scores"]
        same = "-"
        if hf:
            pairs = zip(letters(scores), letters(results[hf][0]["scores"]), strict=True)
            same = str(sum(a == b for a, b in pairs))
        diff = "-"
        if first_gguf and config.startswith("gguf"):
            reference = results[first_gguf][0]["scores"]
            gaps = [
                abs(a[k] - b[k])
                for r in rs
                for a, b in zip(r["scores"], reference, strict=True)
                for k in a
            ]
            diff = f"{max(gaps):.2g}"
        ratio = f"{mean[config] / mean[hf]:.2f}x" if hf else "-"
        rounds = " / ".join(f"{r['s_per_item']:.3f}" for r in rs)
        cpu = sum(r["cpu_per_item"] for r in rs) / len(rs)
        print(
            f"| {config} | {rs[0]['threads']} | {rounds} | {mean[config]:.3f} | {ratio} |"
            f" {cpu:.3f} | {same}/{n_items} | {diff} | {rs[0]['failed']} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-item", action="store_true", help="s/item, hf beside gguf")
    parser.add_argument("--configs", default="hf:0,gguf:1,gguf:0", help="ENGINE:THREADS,...")
    parser.add_argument("--n", type=int, default=24, help="items per task (four tasks)")
    parser.add_argument("--phase", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(args.phase, args.n)))
        return
    print(dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "load", os.getloadavg())
    print(platform.platform(), "cpus", os.cpu_count(), "llama-cpp-python", llama_cpp.__version__)
    print("command:", " ".join(sys.argv))
    if args.per_item:
        per_item(args.configs.split(","), args.n)
    else:
        token_counts()
        speeds()
    print(dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "load", os.getloadavg())


if __name__ == "__main__":
    main()
