"""Benchmark: why ``gguf:`` log-likelihood is slower per item than ``hf:`` on this CPU.

Two measurements, one thread each:

1. Tokens each engine must run for 256 items of four tasks: ``gguf:``'s one key/value cache
   (each prompt reuses the prefix it shares with the one before; requests sorted within the
   runner's batches of 16) against a radix tree over all 256 (what ``hf:``'s prefix tree runs;
   equal to one cache fed the prompts sorted globally).
2. Prompt-evaluation speed, tokens/s: llama.cpp on the bundled GGUF as shipped (Q4_1) and
   requantised copies (Q4_0, Q8_0, F16, F32, written to a temporary folder and deleted), and
   transformers on the float32 conversion ``hf:`` runs, 300 tokens each, in turn, twice.

Not a test::

    python perf/bench_gguf_loglik.py
"""

from __future__ import annotations

import ctypes
import datetime as dt
import os
import platform
import tempfile
import time
from pathlib import Path

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


def main() -> None:
    print(dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "load", os.getloadavg())
    print(platform.platform(), "cpus", os.cpu_count(), "llama-cpp-python", llama_cpp.__version__)
    token_counts()
    speeds()
    print(dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "load", os.getloadavg())


if __name__ == "__main__":
    main()
