"""Choosing a reader and auditing two readings of the same outputs."""

from __future__ import annotations

import pytest

from relreason.benchmarks.convre.readers import (
    DEFAULT_FAMILY,
    convre_scorer,
    official_family,
    parse_reader,
    reading_audit,
)
from relreason.errors import UsageError
from relreason.types import EvalItem, Extraction, Response

ITEM = EvalItem(0, "x/0", "p", "A", ("A", "B"), ("find x.", "find y."))


def test_parse_reader() -> None:
    assert parse_reader("sound") == ("sound", None)
    assert parse_reader("Official") == ("official", None)
    assert parse_reader("official:flan-t5") == ("official", "flan-t5")
    for bad in ("official:gpt5", "strict", ""):
        with pytest.raises(UsageError, match="official:gpt-chat"):
            parse_reader(bad)


def test_official_family() -> None:
    assert official_family("qwen", "anthropic:claude-3") == ("qwen", "given")
    assert official_family(None, "anthropic:claude-3") == ("claude", "inferred")
    assert official_family(None, "openai:x", api="completions") == ("gpt-text", "inferred")
    assert official_family(None, "smollm2") == (DEFAULT_FAMILY, "default")
    assert official_family(None, None) == (DEFAULT_FAMILY, "default")
    with pytest.raises(UsageError):
        official_family("llama3", None)


def test_both_readers_on_one_output() -> None:
    response = Response(text="The answer is A.")
    sound = convre_scorer("sound", cot=False)(ITEM, response)
    official = convre_scorer("official", cot=False, family="gpt-chat")(ITEM, response)
    assert (sound.answer, sound.status) == ("A", "correct")
    assert (official.answer, official.status) == (None, "unparseable")
    with pytest.raises(UsageError):
        convre_scorer("official", cot=False)
    with pytest.raises(UsageError):
        convre_scorer("paper", cot=False)


def test_reading_audit() -> None:
    right = Extraction("A", "correct", "clean")
    wrong = Extraction("B", "wrong", "clean")
    unread = Extraction(None, "unparseable", "official:gpt-chat")
    audit = reading_audit([(right, unread), (right, right), (wrong, wrong), (unread, right)])
    assert audit.to_json() == {
        "n": 4,
        "accuracy_first": 0.5,
        "accuracy_second": 0.5,
        "answers_differ": 2,
        "only_first_correct": 1,
        "only_second_correct": 1,
    }
    assert reading_audit([]).to_json()["accuracy_first"] is None
