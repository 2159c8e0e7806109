"""Compose tasks: generated questions prompted exactly as MCR prompts its own.

The prompt is MCR's formula (``relreason.benchmarks.mcr.data.question_block``: ``"Q: " +
question + " Answer choices: A) .. B) .. \\nA:"``), then ``zs``: ``" Among options, the answer
is"``, ``zsc``: ``" Let's think step by step."``, few-shot: generated exemplars
(``relreason.generate.exemplars``) before it. Answers are read by MCR's readers.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from pathlib import Path
from typing import Any

from relreason.benchmarks.mcr.data import (
    LANGUAGES,
    Question,
    normalize_language,
    normalize_method,
    normalize_mode,
    question_block,
)
from relreason.benchmarks.mcr.prompts import ZS_SUFFIX, ZSC_TRIGGER
from relreason.benchmarks.turns import Shot, as_turns, qa_shots
from relreason.data.sources import sha256_file
from relreason.errors import DataError, UsageError
from relreason.generate.default import default_path
from relreason.generate.records import Record, load_records, read_items, to_record
from relreason.types import EvalItem, Task

_LETTERS = "ABCDEFG"


def exemplar_prefix(code: str, method: str) -> str:
    """Return the generated exemplar block a few-shot ``method`` puts before each question
    (empty for ``zs`` and ``zsc``)."""
    if not method.startswith("fs"):
        return ""
    from relreason.generate.exemplars import generated_exemplars

    if method == "fs" and code not in LANGUAGES:
        raise UsageError(f"no generated exemplars in {code!r}; use fs-english or fs-multilingual")
    key = {"fs": LANGUAGES.get(code), "fs-english": "english", "fs-multilingual": "multilingual"}
    return generated_exemplars()[str(key[method])]


def _item(record: Record, prefix: str, suffix: str, shots: tuple[Shot, ...]) -> EvalItem:
    question = Question(
        record.index, record.question, record.correct, record.options, record.categories
    )
    block = question_block(question) + suffix
    return EvalItem(
        index=record.index,
        item_id=record.item_id,
        prompt=prefix + block,
        turns=as_turns("", shots, block),
        gold=record.gold,
        choices=tuple(_LETTERS[: len(record.options)]),
        choice_texts=record.options,
        labels={**record.labels(), "categories": list(record.categories)},
    )


def _file_records(path: Path, language: str | None) -> list[Record]:
    """Records of a generated file, or of an MCR-format one (no ``domain``/``hops``: the first
    category stands for the domain, hops 0 = not recorded, language as given)."""
    raws = read_items(path)
    out = []
    for i, raw in enumerate(raws):
        if isinstance(raw, dict) and not ("domain" in raw and "hops" in raw):
            categories = raw.get("category")
            first = categories[0] if isinstance(categories, list) and categories else "unknown"
            raw = {"domain": str(first), "hops": 0, "language": language or "unknown", **raw}
        out.append(to_record(str(path), i, raw))
    return out


def _language_code(value: str) -> str:
    """One of MCR's five codes when ``value`` names one, else ``value`` as it is (a file
    translated into another language)."""
    try:
        return normalize_language(value)
    except UsageError:
        return value.strip().lower()


def load_set(file: Path | None, language: str | None) -> tuple[list[Record], Path, str]:
    """Return the records of ``file`` (or the bundled set of ``language``), its path and the
    language code. ``file`` may be generated or in the MCR format (also translated into a
    language outside the bundled five). Raises ``UsageError`` for an unknown language without
    a file, ``DataError`` for a bad file."""
    if file is None:
        code = normalize_language(language or "en")
        path = default_path(code)
        records = load_records(path)
    else:
        path = Path(file)
        records = _file_records(path, language)
    if not records:
        raise DataError(str(path), "no questions")
    if file is not None:
        records = _one_language(records, path, language)
        code = _language_code(language or records[0].language)
    return records, path, code


def _one_language(records: list[Record], path: Path, language: str | None) -> list[Record]:
    """The records of one language: a file holding several is run one language at a time
    (each its own run, with its own results), never all under the first one's name. Raises
    ``UsageError`` naming the file's languages when ``language`` picks none of them."""
    counts: dict[str, int] = {}
    for record in records:
        code = _language_code(record.language)
        counts[code] = counts.get(code, 0) + 1
    if len(counts) == 1:
        return records
    found = ", ".join(f"{code} ({n} questions)" for code, n in counts.items())
    if language is None:
        raise UsageError(
            f"{path} holds questions in {len(counts)} languages: {found}; run one language at "
            f"a time with --language ({' or '.join(counts)}; in a sweep, language: "
            f"[{', '.join(counts)}]), each its own run with its own results"
        )
    code = _language_code(language)
    chosen = [r for r in records if _language_code(r.language) == code]
    if not chosen:
        raise UsageError(f"{path} holds no questions in {code}; its languages: {found}")
    return [dataclasses.replace(r, index=n) for n, r in enumerate(chosen)]  # ids are kept


def build_task(
    language: str | None,
    method: str,
    *,
    file: Path | None = None,
    mode: str = "robust",
) -> Task:
    """Return the compose ``Task``: the bundled set of ``language`` (or ``file``) under
    ``method``, read in ``mode`` (robust or paper, as MCR).

    The name is ``compose/<code>/<method>``; labels hold ``domain``, ``hops``, ``n_options``,
    ``categories`` and ``language``; summaries break accuracy down by domain, hops and number of
    options. Raises ``UsageError`` for unknown names, ``DataError`` for a malformed file.
    """
    name = normalize_method(method)
    scoring_mode = normalize_mode(mode)
    records, path, code = load_set(file, language)
    prefix = exemplar_prefix(code, name)
    suffix = ZS_SUFFIX if name == "zs" else ZSC_TRIGGER if name == "zsc" else ""
    shots = qa_shots(prefix)
    items = tuple(_item(record, prefix, suffix, shots) for record in records)
    from relreason.benchmarks.mcr.scoring import score_mcr, zsc_second_stage

    description: dict[str, Any] = {
        "benchmark": "compose",
        "language": code,
        "method": name,
        "mode": scoring_mode,
        "file": None if file is None else str(Path(file).resolve()),
        "data_file": path.name,
        "data_sha256": sha256_file(path),
        "exemplars": "generated" if prefix else None,
        "exemplars_sha256": hashlib.sha256(prefix.encode()).hexdigest() if prefix else None,
        "n_items": len(items),
    }
    return Task(
        benchmark="compose",
        name=f"compose/{code}/{name}",
        description=description,
        items=items,
        scorer=functools.partial(score_mcr, mode=scoring_mode, few_shot=name == "fs"),
        second_stage=zsc_second_stage if name == "zsc" and scoring_mode == "robust" else None,
        group_by=("domain", "hops", "n_options"),
        max_new_tokens=256 if name == "zsc" else 32,
    )
