"""Benchmark: build every prompt of both benchmarks, and score 100,000 responses.

Targets (issue 2): all ConvRe prompts (2 tasks x 12 settings x 1240) plus all MCR prompts
(5 languages x 5 methods) in under 2 s in total; 100,000 responses scored in under 2 s.

Usage: python perf/bench_prompts_scoring.py [--data-dir ../shared/data]
File parsing is timed separately ("cold": first load, "warm": parsed files cached).
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import time
from pathlib import Path

from relreason.benchmarks.convre import prompts as convre
from relreason.benchmarks.mcr import data as mcr_data
from relreason.benchmarks.mcr import prompts as mcr
from relreason.types import Response, Task


def build_all(data_dir: Path) -> int:
    """Build every prompt of both benchmarks; return how many."""
    count = 0
    for task, setting in itertools.product(convre.TASKS, range(1, 13)):
        count += len(convre.build_items(task, setting, data_dir=data_dir))
    for language, method in itertools.product(mcr_data.LANGUAGES, mcr_data.METHODS):
        count += len(mcr.build_items(language, method, data_dir=data_dir))
    return count


CONVRE_OUTPUTS = [
    " A",
    "B",
    "Answer: B",
    "The answer is A.",
    "(B)",
    "A: Find an entity that is the hypernym of it.\nBecause the instruction says so.",
    "A: foo\nB: bar",
    "I cannot decide.",
    '{"thought": "Let\'s think step by step. The relation is converse.", "answer": "B"}',
    "{'thought': \"Firstly, the question asks for x.\", 'answer': 'A'}",
]
MCR_OUTPUTS = [
    " B) Elder sister",
    " C",
    "Let's think step by step. A is B's son ... Therefore, the answer is (D).",
    "答案是C",
    "Based on the information, the answer is A) East.",
    "",
    "정답은 B입니다.",
    "None of these.",
]


def responses_for(task: Task, outputs: list[str], n: int) -> list[tuple[int, Response]]:
    """``n`` (item index, response) pairs cycling over items and canned outputs."""
    return [(i % len(task.items), Response(text=outputs[i % len(outputs)])) for i in range(n)]


def main() -> None:
    """Run the benchmark and print a JSON report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    args = parser.parse_args()

    start = time.perf_counter()
    n_prompts = build_all(args.data_dir)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    build_all(args.data_dir)
    warm = time.perf_counter() - start

    cot_task = convre.build_task("re2text", 8, data_dir=args.data_dir)
    plain_task = convre.build_task("text2re", 1, data_dir=args.data_dir)
    mcr_zs = mcr.build_task("en", "zs", mode="robust", data_dir=args.data_dir)
    mcr_paper = mcr.build_task("zh", "fs", mode="paper", data_dir=args.data_dir)
    work = [
        (plain_task, responses_for(plain_task, CONVRE_OUTPUTS, 25_000)),
        (cot_task, responses_for(cot_task, CONVRE_OUTPUTS, 25_000)),
        (mcr_zs, responses_for(mcr_zs, MCR_OUTPUTS, 25_000)),
        (mcr_paper, responses_for(mcr_paper, MCR_OUTPUTS, 25_000)),
    ]
    start = time.perf_counter()
    n_scored = 0
    for task, pairs in work:
        items, scorer = task.items, task.scorer
        for index, response in pairs:
            scorer(items[index], response)
            n_scored += 1
    scoring = time.perf_counter() - start

    report = {
        "machine": f"{platform.processor() or platform.machine()} ({platform.system()})",
        "python": platform.python_version(),
        "prompts_built": n_prompts,
        "build_cold_s": round(cold, 3),
        "build_warm_s": round(warm, 3),
        "responses_scored": n_scored,
        "scoring_s": round(scoring, 3),
        "scoring_per_s": round(n_scored / scoring),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
