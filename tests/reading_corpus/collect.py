"""Collect real model outputs for the reading corpus (run by hand, not by the tests).

Each configuration is one ``relreason run`` (a real model: the bundled SmolLM2 through ``hf``
generation, SmolLM2 and Gemma 3 270M through llama.cpp's OpenAI-compatible server, completions
API); the records are joined with the task's items (choices, choice texts) and appended to
``raw.jsonl`` without a label. Labels are written by a person afterwards (``labels.jsonl``);
:mod:`reading_corpus.split` then splits the rows once, by seed.

    python tests/reading_corpus/collect.py OUT_DIR MODEL_NAME [--base-url URL] [--only BENCH]

``MODEL_NAME`` is ``smollm2`` (hf generation), ``smollm2-llamacpp`` or ``gemma3-270m`` (both
need ``--base-url`` of a running ``python -m llama_cpp.server``). Nothing here is imported by
the tests.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from relreason.benchmarks import task_from_description
from relreason.records import load_manifest, load_records

LANGUAGES = ("en", "zh", "fr", "ja", "ko")

# (benchmark, run arguments, setting label, items asked)
CONVRE: list[tuple[list[str], str, int]] = [
    (["--task", task, "--setting", str(setting)], kind, n)
    for task in ("re2text", "text2re")
    for setting, kind, n in (
        (1, "plain", 8),
        (5, "plain", 6),
        (7, "few-shot", 6),
        (9, "few-shot", 6),
        (8, "cot", 6),
        (11, "cot", 6),
    )
]
MCR: list[tuple[list[str], str, int]] = [
    (["--language", lang, "--method", method], method, n)
    for lang in LANGUAGES
    for method, n in (("zs", 8), ("fs", 6), ("zsc", 5))
]
COMPOSE: list[tuple[list[str], str, int]] = [
    (["--language", lang, "--method", method], method, n)
    for lang in LANGUAGES
    for method, n in (("zs", 9), ("fs", 8))
]
BENCHMARKS = {"convre": CONVRE, "mcr": MCR, "compose": COMPOSE}


def _model_args(model: str, base_url: str | None) -> list[str]:
    if model == "smollm2":
        return ["--model", "smollm2"]
    if base_url is None:
        raise SystemExit(f"{model} needs --base-url of a llama.cpp server")
    return ["--model", f"openai:{model}", "--base-url", base_url, "--api", "completions"]


def _run(bench: str, args: list[str], n: int, model_args: list[str], out: Path) -> None:
    command = [
        "relreason",
        "run",
        bench,
        *args,
        *model_args,
        "--sample",
        str(n),
        "--out",
        str(out),
        "--no-progress",
    ]
    if bench == "convre" and "cot" not in out.name:
        command += ["--max-new-tokens", "48"]
    if bench == "convre" and "cot" in out.name:
        command += ["--max-new-tokens", "160"]
    print(" ".join(command), flush=True)
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL)


def _rows(bench: str, kind: str, model: str, folder: Path) -> list[dict[str, Any]]:
    manifest = load_manifest(folder)
    task = task_from_description(manifest.description)
    items = {item.index: item for item in task.items}
    language = manifest.description.get("language") or "en"
    rows = []
    for record in load_records(folder):
        if record.output is None:
            continue
        item = items[record.index]
        text = record.second_output if record.second_output is not None else record.output
        rows.append(
            {
                "benchmark": bench,
                "language": str(language)[:2] if bench != "convre" else "en",
                "setting": kind if bench != "convre" else f"{kind}-{manifest.task}",
                "model": model,
                "task": manifest.task,
                "index": record.index,
                "cot": bench == "convre" and kind == "cot",
                "few_shot": bench != "convre" and kind == "fs",
                "choices": list(item.choices),
                "choice_texts": list(item.choice_texts),
                "gold": item.gold,
                "output": text,
                "first_output": record.output if record.second_output is not None else None,
                "top_logprobs": record.top_logprobs,
            }
        )
    return rows


def main() -> None:
    """Run every configuration for one model and append its rows to OUT_DIR/raw.jsonl."""
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("model")
    parser.add_argument("--base-url")
    parser.add_argument("--only", choices=sorted(BENCHMARKS))
    ns = parser.parse_args()
    model_args = _model_args(ns.model, ns.base_url)
    ns.out.mkdir(parents=True, exist_ok=True)
    for bench, configs in BENCHMARKS.items():
        if ns.only and bench != ns.only:
            continue
        for args, kind, n in configs:
            name = "-".join([bench, ns.model, kind, *args[1::2]])
            folder = ns.out / "runs" / name
            if not (folder / "records.jsonl").exists():
                _run(bench, args, n, model_args, folder)
            if not (folder / "records.jsonl").exists():
                print(f"no records in {folder}", file=sys.stderr)
                continue
            rows = _rows(bench, kind, ns.model, folder)
            with (ns.out / "raw.jsonl").open("a", encoding="utf-8") as fh:
                for row in rows:
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
