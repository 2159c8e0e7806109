"""MCR prompts and tasks, byte for byte as the official ``main.py`` builds them.

The prompt formula is the official code's (the MCR repository's ``main.py`` and ``util.py`` at
the commit :mod:`relreason.benchmarks.mcr.files` pins; the paper's Section 5.1)::

    x = "Q: " + question.strip() + " Answer choices: " + "".join(L + ") " + opt + " ") + "\\nA:"

then ``zs``: ``x + " Among options, the answer is"``, ``zsc``: ``x + " Let's think step by step."``,
``fs``/``fs-english``/``fs-multilingual``: ``exemplars[native|"english"|"multilingual"] + x``.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from relreason.benchmarks.mcr.data import (
    LANGUAGES,
    Mode,
    _load_file,
    _LoadedFile,
    english_options,
    load_exemplars,
    normalize_language,
    normalize_method,
    normalize_mode,
    question_file,
)
from relreason.benchmarks.turns import as_turns, qa_shots
from relreason.data.sources import data_file
from relreason.errors import UsageError
from relreason.types import EvalItem, Task

ZS_SUFFIX = " Among options, the answer is"
ZSC_TRIGGER = " Let's think step by step."


def _exemplar_block(
    exemplars: Mapping[str, str] | Path | str | None,
    key: str,
    data_dir: Path | str | None,
) -> tuple[str, str]:
    """Return the exemplar block ``key`` and where it came from (official, file or custom).

    A file (official or a user path) must have every key; a mapping only the one needed.
    """
    if exemplars is None:
        return load_exemplars(None, data_dir)[key], "official"
    if isinstance(exemplars, str | os.PathLike):
        return load_exemplars(exemplars, data_dir)[key], "file"
    block = exemplars.get(key)
    if not isinstance(block, str):
        raise UsageError(f"exemplars: the {key!r} block is missing or not a string")
    return block, "custom"


def _exemplar_key(code: str, method: str) -> str | None:
    if method == "fs":
        return LANGUAGES[code]
    if method == "fs-english":
        return "english"
    if method == "fs-multilingual":
        return "multilingual"
    return None


# --- prompts and tasks ---------------------------------------------------------------------


def _items(
    code: str,
    method: str,
    data_dir: Path | str | None,
    exemplars: Mapping[str, str] | Path | str | None,
) -> tuple[tuple[EvalItem, ...], _LoadedFile, str | None, str | None]:
    loaded = _load_file(data_file("mcr", question_file(code), data_dir))
    key = _exemplar_key(code, method)
    prefix = ""
    source: str | None = None
    if key is not None:
        prefix, source = _exemplar_block(exemplars, key, data_dir)
    suffix = ZS_SUFFIX if method == "zs" else ZSC_TRIGGER if method == "zsc" else ""
    shots = qa_shots(prefix)
    english = english_options(loaded.questions, data_dir) if code != "en" else None
    items = tuple(
        EvalItem(
            index=q.index,
            item_id=f"{code}/{q.index}",
            prompt=prefix + block + suffix,
            gold=q.gold,
            choices=letters,
            choice_texts=q.options,
            labels={
                "language": code,
                "categories": list(q.categories),
                "n_options": len(q.options),
            },
            english_choice_texts=english[q.index] if english is not None else (),
            turns=as_turns("", shots, block + suffix),
        )
        for q, block, letters in zip(loaded.questions, loaded.blocks, loaded.letters, strict=True)
    )
    prefix_sha = hashlib.sha256(prefix.encode("utf-8")).hexdigest() if key is not None else None
    return items, loaded, source, prefix_sha


def build_items(
    language: str,
    method: str,
    *,
    data_dir: Path | str | None = None,
    exemplars: Mapping[str, str] | Path | str | None = None,
) -> list[EvalItem]:
    """Return one ``EvalItem`` per question of ``language``, prompted by ``method``.

    ``exemplars`` (few-shot methods only): a mapping of exemplar blocks, a path to a JSON file
    of them, or None for the official ones. item_id is ``"<code>/<index>"``; labels hold
    ``language``, ``categories`` (English) and ``n_options``; French, Korean and Japanese items
    carry the English item's option texts (``english_choice_texts``, see
    ``data.english_options``). Raises ``UsageError`` for an unknown language/method or bad
    exemplars mapping, ``DataError`` for malformed data files.
    """
    code = normalize_language(language)
    return list(_items(code, normalize_method(method), data_dir, exemplars)[0])


def build_task(
    language: str,
    method: str,
    *,
    mode: str = "robust",
    data_dir: Path | str | None = None,
    exemplars: Mapping[str, str] | Path | str | None = None,
) -> Task:
    """Return the MCR ``Task`` for a language and method, scored in ``mode``.

    The name is ``mcr/<code>/<method>``; the description (JSON-ready) records language, method,
    mode, exemplar source and checksums. For ``zsc`` read in ``robust`` mode the task carries the
    zero-shot-CoT answer-extraction second stage; in ``paper`` mode it does not, since the
    official code applied its letter rule to the reasoning itself.
    Raises ``UsageError`` for unknown names, ``DataError`` for malformed data.
    """
    code = normalize_language(language)
    name = normalize_method(method)
    scoring_mode = normalize_mode(mode)
    other_mode: Mode = "paper" if scoring_mode == "robust" else "robust"
    items, loaded, source, prefix_sha = _items(code, name, data_dir, exemplars)
    from relreason.benchmarks.mcr.scoring import (  # lazy: prompts need no scorer
        score_mcr,
        zsc_second_stage,
    )

    exemplars_path = None
    if source == "file" and isinstance(exemplars, str | os.PathLike):
        exemplars_path = str(Path(exemplars).resolve())
    description: dict[str, Any] = {
        "benchmark": "mcr",
        "language": code,
        "method": name,
        "mode": scoring_mode,
        "exemplars": source,
        "exemplars_path": exemplars_path,
        "exemplars_sha256": prefix_sha,
        "data_file": question_file(code),
        "data_sha256": loaded.sha256,
        "n_items": len(items),
    }
    return Task(
        benchmark="mcr",
        name=f"mcr/{code}/{name}",
        description=description,
        items=items,
        scorer=functools.partial(score_mcr, mode=scoring_mode, few_shot=name == "fs"),
        reader=scoring_mode,
        alt_scorer=functools.partial(score_mcr, mode=other_mode, few_shot=name == "fs"),
        alt_reader=other_mode,
        second_stage=zsc_second_stage if name == "zsc" and scoring_mode == "robust" else None,
        group_by=("categories", "n_options"),
        max_new_tokens=256 if name == "zsc" else 32,
    )
