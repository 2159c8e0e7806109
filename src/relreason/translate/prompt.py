"""The translation prompt, and reading and checking a model's reply (never evaluated as code).

One request per item. The reply must hold one JSON object ``{"question": ..., "options": {"A":
..., "B": ...}}`` (the options under the same letters, in the same order); the checks keep the
option count, the gold option (by position: the option behind the gold letter stays the gold
one) and distinct options, and flag a question left untranslated.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "zh": "Chinese (Simplified)",
    "fr": "French",
    "ja": "Japanese",
    "ko": "Korean",
    "de": "German",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "ru": "Russian",
    "ar": "Arabic",
    "hi": "Hindi",
}
"""Codes the prompt names in words; any other value is used as it is."""

PROMPT_TEMPLATE = (
    "Translate this multiple-choice reasoning question from {source} into {target}. Translate "
    "the question and every answer option faithfully and naturally. Keep every person's name "
    "(written as is usual in {target}), keep the exact meaning of every relation, direction and "
    "comparison, keep the options in the same order under the same letters, and do not answer "
    "the question.\n"
    'Reply with one JSON object only, in this form: {{"question": "...", "options": {{{keys}}}}}'
    "\n\nQuestion: {question}\nOptions:\n{options}\n"
)
"""The prompt (recorded with every translated file)."""
MAX_NEW_TOKENS = 1024
"""The longest reply per item (the translated JSON) unless one is given."""
REQUEST_TIMEOUT = 120.0
"""Seconds before one request is abandoned unless given (a whole item's JSON is long)."""


def language_name(code: str) -> str:
    """Return the English name of a language code (the value itself when unknown)."""
    return LANGUAGE_NAMES.get(code.strip().lower(), code.strip())


def letters(n: int) -> list[str]:
    """Return the option letters A, B, ... for ``n`` options."""
    return [chr(65 + i) for i in range(n)]


def build_prompt(question: str, options: Sequence[str], source: str, target: str) -> str:
    """Return the translation prompt of one item."""
    keys = ", ".join(f'"{letter}": "..."' for letter in letters(len(options)))
    listed = "\n".join(f"{k}) {o}" for k, o in zip(letters(len(options)), options, strict=True))
    return PROMPT_TEMPLATE.format(
        source=language_name(source),
        target=language_name(target),
        keys=keys,
        question=question.strip(),
        options=listed,
    )


@dataclass(frozen=True)
class Reading:
    """A reply read: the translated question and options (None when unreadable) and the flags
    (empty when the item passes every check)."""

    question: str | None
    options: tuple[str, ...] | None
    flags: tuple[str, ...]


def _json_object(reply: str) -> Any:
    """The first JSON object in ``reply`` (code fences and chatter around it are ignored)."""
    decoder = json.JSONDecoder()
    start = reply.find("{")
    while start >= 0:
        try:
            value, _ = decoder.raw_decode(reply, start)
        except ValueError:
            start = reply.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = reply.find("{", start + 1)
    return None


def _key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _options_of(value: Any, n: int) -> tuple[list[str] | None, list[str]]:
    if isinstance(value, Mapping):
        wanted = letters(n)
        keys = [str(k).strip().rstrip(")").upper() for k in value]
        if sorted(keys) != sorted(wanted) or len(keys) != len(value):
            return None, [f"option count or letters changed: {n} -> {sorted(keys)}"]
        by_key = dict(zip(keys, value.values(), strict=True))
        found = [by_key[k] for k in wanted]
    elif isinstance(value, list):
        if len(value) != n:
            return None, [f"option count changed: {n} -> {len(value)}"]
        found = value
    else:
        return None, ["no options in the reply"]
    if not all(isinstance(o, str) and o.strip() for o in found):
        return None, ["an option is empty or not text"]
    return [o.strip() for o in found], []


def read_reply(
    reply: str | None, question: str, options: Sequence[str], *, same_language: bool
) -> Reading:
    """Read and check a reply for an item with ``question`` and ``options``; never raises."""
    if not reply or not reply.strip():
        return Reading(None, None, ("empty reply",))
    data = _json_object(reply)
    if data is None:
        return Reading(None, None, ("no JSON object in the reply",))
    flags: list[str] = []
    text = data.get("question")
    if not isinstance(text, str) or not text.strip():
        flags.append("no question in the reply")
        text = None
    translated, problems = _options_of(data.get("options"), len(options))
    flags += problems
    if translated is not None and len({_key(o) for o in translated}) != len(translated):
        flags.append("options are not distinct")
    if text is not None and not same_language and _key(text) == _key(question):
        flags.append("question left untranslated")
    return Reading(
        text.strip() if text else None,
        tuple(translated) if translated is not None else None,
        tuple(flags),
    )
