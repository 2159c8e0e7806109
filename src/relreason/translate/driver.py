"""Translate a benchmark file item by item through a model backend (retries, concurrency and
time-outs of the run's call path), write the items that pass the checks, and record the model,
the prompt and the flagged items beside the output.

Files written: ``OUT`` (a JSON list in the input's format, one item per line), ``OUT.meta.json``
(source file and checksum, languages, model spec and backend, prompt template, generation
parameters, counts) and ``OUT.flagged.jsonl`` (one line per flagged item: index, id, flags, the
model's reply).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relreason.data.sources import sha256_file
from relreason.errors import DataError
from relreason.files import atomic_write_json, atomic_write_text
from relreason.generate.records import dumps, read_items
from relreason.models.base import ModelBackend
from relreason.records import utc_now
from relreason.run.calls import CallFailed, CallPath
from relreason.run.options import RunOptions
from relreason.run.settings import RunSettings
from relreason.translate.prompt import (
    MAX_NEW_TOKENS,
    PROMPT_TEMPLATE,
    REQUEST_TIMEOUT,
    Reading,
    build_prompt,
    read_reply,
)
from relreason.types import GenerationParams, GenerationRequest
from relreason.version import __version__


@dataclass
class TranslationResult:
    """What a translation wrote: the output file, its sidecars and the counts."""

    out: Path
    meta: Path
    flagged_file: Path
    n_items: int
    written: int
    flagged: list[dict[str, Any]] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [
            f"{self.written}/{self.n_items} item(s) translated into {self.out}; "
            f"{len(self.flagged)} flagged (see {self.flagged_file})"
        ]
        for row in self.flagged[:10]:
            lines.append(f"  item {row['index']}: {'; '.join(row['flags'])}")
        return "\n".join(lines)


def _check_item(file: str, i: int, raw: Any) -> tuple[str, list[str], int]:
    """The question, options and gold index of raw item ``i`` (``DataError`` when malformed)."""
    if not isinstance(raw, dict):
        raise DataError(file, f"expected an object, got {type(raw).__name__}", item=f"[{i}]")
    question, options, correct = raw.get("question"), raw.get("options"), raw.get("correct")
    if not isinstance(question, str) or not question.strip():
        raise DataError(file, "expected a non-empty string", item=f"[{i}]", field="question")
    if not isinstance(options, list) or not options or not all(isinstance(o, str) for o in options):
        raise DataError(
            file, "expected a non-empty list of strings", item=f"[{i}]", field="options"
        )
    if not isinstance(correct, str) or options.count(correct) != 1:
        raise DataError(file, "not exactly once among the options", item=f"[{i}]", field="correct")
    return question, options, options.index(correct)


def _translated(raw: Mapping[str, Any], reading: Reading, gold: int, target: str) -> dict[str, Any]:
    assert reading.question is not None and reading.options is not None
    item = dict(raw)
    item["question"] = reading.question
    item["options"] = list(reading.options)
    item["correct"] = reading.options[gold]
    if "language" in item:
        item["language"] = target
    return item


def sidecars(out: Path) -> tuple[Path, Path]:
    """Return the meta and flagged-items paths that go with output file ``out``."""
    return out.with_name(out.name + ".meta.json"), out.with_name(out.name + ".flagged.jsonl")


async def _replies(
    backend: ModelBackend, prompts: list[str], params: GenerationParams, options: RunOptions
) -> list[tuple[str | None, str | None]]:
    """(reply text, error) per prompt, sent concurrently through the call path."""
    calls = CallPath(backend, options, None)

    async def one(prompt: str) -> tuple[str | None, str | None]:
        try:
            responses, _ = await calls.send([GenerationRequest(prompt, params)], len(prompt) // 3)
        except CallFailed as failed:
            return None, str(failed)
        response = responses[0]
        return response.text, response.error

    return list(await asyncio.gather(*(one(p) for p in prompts)))


def translate_file(
    source: Path | str,
    target: str,
    backend: ModelBackend,
    out: Path | str,
    *,
    source_language: str | None = None,
    limit: int | None = None,
    concurrency: int = RunSettings().concurrency,
    max_new_tokens: int = MAX_NEW_TOKENS,
    request_timeout: float = REQUEST_TIMEOUT,
    max_retries: int = RunSettings().max_retries,
) -> TranslationResult:
    """Translate the items of ``source`` into ``target`` with ``backend``; write ``out`` and its
    sidecars (see the module text); return what was written.

    ``source_language`` defaults to the items' ``language`` field, else English. Items whose
    reply fails a check (unreadable, option count, distinctness, untranslated, failed request)
    are not written but listed in the flagged file. Raises ``DataError`` for a malformed source.
    """
    path = Path(source)
    raws = read_items(path)
    if limit is not None:
        raws = raws[:limit]
    checked = [_check_item(str(path), i, raw) for i, raw in enumerate(raws)]
    first_language = raws[0].get("language") if raws else None
    from_language = source_language or (first_language if isinstance(first_language, str) else "en")
    prompts = [build_prompt(q, o, from_language, target) for q, o, _ in checked]
    params = GenerationParams(max_new_tokens=max_new_tokens)
    options = RunOptions(
        concurrency=concurrency, request_timeout=request_timeout, max_retries=max_retries
    )

    async def run() -> list[tuple[str | None, str | None]]:
        try:
            return await _replies(backend, prompts, params, options)
        finally:
            await backend.aclose()

    replies = asyncio.run(run())
    same = from_language.strip().lower() == target.strip().lower()
    written: list[dict[str, Any]] = []
    flagged: list[dict[str, Any]] = []
    for i, (raw, (question, opts, gold), (reply, error)) in enumerate(
        zip(raws, checked, replies, strict=True)
    ):
        reading = read_reply(reply, question, opts, same_language=same)
        flags = [f"request failed: {error}"] if error else list(reading.flags)
        if flags:
            flagged.append({"index": i, "id": raw.get("id"), "flags": flags, "reply": reply})
        else:
            written.append(_translated(raw, reading, gold, target))
    out_path = Path(out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    meta_path, flagged_path = sidecars(out_path)
    atomic_write_text(out_path, dumps(written))
    atomic_write_text(
        flagged_path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in flagged)
    )
    meta = {
        "source_file": str(path.resolve()),
        "source_sha256": sha256_file(path),
        "source_language": from_language,
        "target_language": target,
        "model": {
            "spec": backend.spec,
            "backend": json.loads(json.dumps(dict(backend.describe()), default=str)),
        },
        "prompt_template": PROMPT_TEMPLATE,
        "params": {"max_new_tokens": max_new_tokens, "temperature": 0.0},
        "n_items": len(raws),
        "written": len(written),
        "flagged": len(flagged),
        "relreason_version": __version__,
        "created_at": utc_now(),
    }
    atomic_write_json(meta_path, meta)
    return TranslationResult(out_path, meta_path, flagged_path, len(raws), len(written), flagged)
