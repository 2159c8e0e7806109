"""Generated few-shot exemplars: MCR's exemplar keys and layout, disjoint from the default set."""

from __future__ import annotations

from relreason.benchmarks.mcr.data import EXEMPLAR_KEYS
from relreason.generate.default import load_default
from relreason.generate.exemplars import exemplar_block, exemplar_records, generated_exemplars
from relreason.generate.lexicon import LANGUAGES


def test_blocks_have_the_official_keys_and_five_examples() -> None:
    blocks = generated_exemplars()
    assert sorted(blocks) == sorted(EXEMPLAR_KEYS)
    for block in blocks.values():
        assert block.count("\nQ:") == 5
        assert block.startswith("\nQ:") and block.endswith("\n")


def test_block_layout_names_the_gold_letter_and_text() -> None:
    record = exemplar_records("en", 1)[0]
    block = exemplar_block([record])
    letter = chr(65 + record.options.index(record.correct))
    assert block.endswith(f"\nA:{letter}) {record.correct}\n")
    assert f" Answer choices: A) {record.options[0]} B) {record.options[1]}" in block


def test_exemplars_never_repeat_a_default_question() -> None:
    for code in LANGUAGES:
        shown = {r.question for r in exemplar_records(code, 5)}
        assert shown.isdisjoint({r.question for r in load_default(code)})
