"""Reading tables: the official rules against the official code's recorded results, and the
sound readers against a careful person's reading, in both benchmarks and five languages.

``reading_tables/convre_official.json`` and ``mcr_official.json`` hold hand-written outputs
with the result the official functions gave on them (run once outside the repository: ConvRe
``utils/llms_evaluator.py`` @ afb9a21, MCR ``util.py answer_cleansing`` @ 23aaee66).
``careful_convre.py`` and ``careful_mcr.py`` hold outputs with the reading a careful person
gives them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from reading_tables import careful_convre, careful_mcr, heldout
from relreason.benchmarks.convre.official import FAMILIES, extract_official
from relreason.benchmarks.convre.scoring import extract_convre
from relreason.benchmarks.mcr.cleanup import cleanup_prompt, read_cleanup_reply
from relreason.benchmarks.mcr.scoring import extract_paper, extract_robust, paper_letters

TABLES = Path(__file__).parent / "reading_tables"


def _rows(name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((TABLES / name).read_text("utf-8"))["rows"]
    return rows


CONVRE_OFFICIAL = _rows("convre_official.json")
MCR_OFFICIAL = _rows("mcr_official.json")


def _convre_official_id(row: dict[str, Any]) -> str:
    return f"{row['family']}-{row['output'][:30]!r}-{bool(row['logprobs'])}"


# --- ConvRe official rules ----------------------------------------------------------------------


def test_convre_official_table_covers_every_family() -> None:
    families = Counter(row["family"] for row in CONVRE_OFFICIAL)
    assert set(families) == {*FAMILIES, "any"}  # "any": the CoT rule, whatever the family
    assert min(families.values()) >= 40
    assert len(CONVRE_OFFICIAL) >= 1000


@pytest.mark.parametrize("row", CONVRE_OFFICIAL, ids=_convre_official_id)
def test_convre_official_rules_agree_with_the_official_code(row: dict[str, Any]) -> None:
    family = "gpt-chat" if row["family"] == "any" else row["family"]
    logprobs = tuple(row["logprobs"]) if row["logprobs"] is not None else None
    read = extract_official(family, row["output"], cot=row["cot"], first_token_logprobs=logprobs)
    assert read.letter == row["letter"]
    # strict mode raised exactly where the rule accepts no letter
    assert (row["strict_raises"] is not None) == (read.letter is None)
    if read.letter is None:
        assert read.detail is not None
        if row["auto_raises"] is not None:  # auto mode crashed too (TypeError, IndexError)
            assert row["auto_raises"] in read.detail


def test_cot_rule_is_the_same_for_every_family() -> None:
    for row in CONVRE_OFFICIAL:
        if row["cot"]:
            letters = {
                extract_official(family, row["output"], cot=True).letter for family in FAMILIES
            }
            assert letters == {row["letter"]}


# --- MCR official rule --------------------------------------------------------------------------

_FEW_SHOT = {"few_shot": True}  # only native few-shot cuts at the last "A:"


@pytest.mark.parametrize(
    "row", MCR_OFFICIAL, ids=lambda r: f"{r['kind']}-{r['method']}-{r['output'][:30]!r}"
)
def test_mcr_official_rule_agrees_with_the_official_code(row: dict[str, Any]) -> None:
    few_shot = _FEW_SHOT.get(row["method"], False)
    if row["kind"] == "first_pass":
        assert paper_letters(row["output"], few_shot=few_shot) == row["letters"]
        letter, method = extract_paper(row["output"], ("A", "B", "C", "D"), few_shot=few_shot)
        assert letter == row["letter"]
        assert (method == "paper_rule_cleanup") == row["cleanup"]
    else:
        assert read_cleanup_reply(row["output"], few_shot=few_shot) == (
            row["letter"],
            row["letters"],
        )


def test_mcr_cleanup_prompt_is_the_official_one() -> None:
    example = json.loads((TABLES / "mcr_official.json").read_text("utf-8"))["cleanup_example"]
    assert cleanup_prompt(example["x"], example["out_raw"]) == example["prompt"]


# --- sound readers against a careful person ------------------------------------------------------

CAREFUL_CONVRE = careful_convre.cases()
CAREFUL_MCR = careful_mcr.cases()


def test_careful_tables_are_large_and_cover_the_languages() -> None:
    assert len(CAREFUL_CONVRE) >= 300
    assert len(CAREFUL_MCR) >= 600
    languages = Counter(language for language, _, _ in CAREFUL_MCR)
    assert set(languages) == {"en", "zh", "fr", "ja", "ko"}
    assert min(languages.values()) >= 80
    assert sum(reading is None for *_, reading in CAREFUL_CONVRE) >= 50
    assert sum(reading is None for *_, reading in CAREFUL_MCR) >= 100


@pytest.mark.parametrize(
    ("task", "output", "cot", "reading"),
    CAREFUL_CONVRE,
    ids=[f"{t}-{c}-{o[:40]!r}" for t, o, c, _ in CAREFUL_CONVRE],
)
def test_convre_sound_reader_reads_as_a_careful_person(
    task: str, output: str, cot: bool, reading: str | None
) -> None:
    texts = careful_convre.CHOICE_TEXTS[task]
    assert extract_convre(output, texts, cot=cot)[0] == reading


@pytest.mark.parametrize(
    ("language", "output", "reading"),
    CAREFUL_MCR,
    ids=[f"{lang}-{o[:40]!r}" for lang, o, _ in CAREFUL_MCR],
)
def test_mcr_sound_reader_reads_as_a_careful_person(
    language: str, output: str, reading: str | None
) -> None:
    texts = careful_mcr.OPTIONS[language]
    assert extract_robust(output, careful_mcr.LETTERS, texts)[0] == reading


@pytest.mark.parametrize(("language", "output", "reading"), heldout.MCR)
def test_mcr_sound_reader_on_the_second_table(
    language: str, output: str, reading: str | None
) -> None:
    texts = careful_mcr.OPTIONS[language]
    assert extract_robust(output, careful_mcr.LETTERS, texts)[0] == reading


@pytest.mark.parametrize(("task", "output", "cot", "reading"), heldout.CONVRE)
def test_convre_sound_reader_on_the_second_table(
    task: str, output: str, cot: bool, reading: str | None
) -> None:
    texts = careful_convre.CHOICE_TEXTS[task]
    assert extract_convre(output, texts, cot=cot)[0] == reading
