"""``hf:`` in bfloat16 and float16 against float32 on the same ConvRe items (CPU, or CUDA with
``--device auto`` where torch sees a GPU): log-likelihood gaps per choice, same letters, same
greedy texts, and the time of each. Not a test; prints JSON::

    python perf/bench_dtypes.py 16
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

DATA = Path(
    os.environ.get("RELREASON_DATA_DIR", Path(__file__).resolve().parents[2] / "shared/data")
)


def main() -> None:
    """Score setting 9 and generate setting 1 in each dtype; compare with float32."""
    from relreason.benchmarks.convre.prompts import build_items
    from relreason.models.hf.backend import HFBackend
    from relreason.models.smollm2 import converted_dir
    from relreason.types import ChoiceRequest, GenerationParams, GenerationRequest

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    ll_items = build_items("re2text", 9, subset=True, data_dir=DATA)[::13][:n]
    gen_items = build_items("re2text", 1, subset=True, data_dir=DATA)[::13][:n]
    requests = [ChoiceRequest(it.prompt, {c: " " + c for c in it.choices}) for it in ll_items]
    params = GenerationParams(max_new_tokens=32, top_logprobs=0)
    prompts = [GenerationRequest(it.prompt, params) for it in gen_items]
    report: dict[str, Any] = {"start": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    report.update(load=os.getloadavg(), n=n)
    runs: dict[str, dict[str, Any]] = {}
    for dtype in ("float32", "bfloat16", "float16"):
        backend = HFBackend(str(converted_dir()), dtype=dtype, device="auto", threads=1)
        t0 = time.perf_counter()
        scored = asyncio.run(backend.score_choices(requests))
        ll_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        texts = [r.text for r in asyncio.run(backend.generate(prompts))]
        runs[dtype] = {
            "scores": [dict(r.choice_logprobs or {}) for r in scored],
            "texts": texts,
            "ll_s": ll_s,
            "gen_s": time.perf_counter() - t0,
            "device": backend.describe()["device"],
        }
    base = runs["float32"]
    for dtype, run in runs.items():
        line = {k: run[k] for k in ("ll_s", "gen_s", "device")}
        if dtype != "float32":
            pairs = list(zip(base["scores"], run["scores"], strict=True))
            gaps = [abs(a[k] - b[k]) for a, b in pairs for k in a]
            line["max_gap"], line["mean_gap"] = max(gaps), sum(gaps) / len(gaps)
            line["max_margin_gap"] = max(
                abs((a["A"] - a["B"]) - (b["A"] - b["B"])) for a, b in pairs
            )
            line["same_letter"] = sum(
                max(a, key=a.__getitem__) == max(b, key=b.__getitem__) for a, b in pairs
            )
            line["same_text"] = sum(
                x == y for x, y in zip(base["texts"], run["texts"], strict=True)
            )
        report[dtype] = line
    report["end"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    report["end_load"] = os.getloadavg()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
