"""Few-shot exemplars made by the generator, in the shape of MCR's exemplar file.

``generated_exemplars()`` returns ``{english, chinese, french, japanese, korean, multilingual}``
blocks (the keys of ``exemplars_official.json``), so a benchmark can pass it wherever MCR takes
exemplars. Exemplars come from their own seed, so they never repeat a question of the default
set (a test checks this).
"""

from __future__ import annotations

from collections.abc import Sequence

from relreason.generate.compose import FIRST_DOMAINS, ComposeOptions, compose
from relreason.generate.lexicon import LANGUAGES
from relreason.generate.records import Record, to_record

EXEMPLAR_SEED = 9_000_001
LONG_NAMES: dict[str, str] = {
    "en": "english",
    "zh": "chinese",
    "fr": "french",
    "ja": "japanese",
    "ko": "korean",
}


def exemplar_block(records: Sequence[Record]) -> str:
    """Return worked examples in the official layout (``\\nQ:<question> Answer choices: A) ..``
    then ``\\nA:<letter>) <answer>\\n`` per record)."""
    parts = []
    for record in records:
        choices = " ".join(f"{chr(65 + j)}) {o}" for j, o in enumerate(record.options))
        answer = f"{record.gold}) {record.correct}"
        parts.append(f"\nQ:{record.question} Answer choices: {choices}\nA:{answer}\n")
    return "".join(parts)


def exemplar_records(language: str, count: int = 5, seed: int = EXEMPLAR_SEED) -> list[Record]:
    """Return ``count`` short generated questions of ``language`` (kinship, position and order
    cycled, as before the later domains came, so few-shot prompts stay the same; 2-3 hops)."""
    options = ComposeOptions(
        language=language, domains=FIRST_DOMAINS, hops=(2, 3), seed=seed, count=count
    )
    items = compose(options)
    return [to_record("(generated)", i, item) for i, item in enumerate(items)]


def generated_exemplars(count: int = 5, seed: int = EXEMPLAR_SEED) -> dict[str, str]:
    """Return the exemplar blocks of every language and the multilingual one (one per language)."""
    blocks = {
        LONG_NAMES[code]: exemplar_block(exemplar_records(code, count, seed)) for code in LANGUAGES
    }
    mixed = [exemplar_records(code, len(LANGUAGES), seed)[i] for i, code in enumerate(LANGUAGES)]
    blocks["multilingual"] = exemplar_block(mixed)
    return blocks
