"""The MCR paper's clean-up step: the official prompt, the request and reading the reply."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from relreason.benchmarks.mcr.cleanup import (
    CLEANUP_HEADER,
    CLEANUP_TAIL,
    cleanup_prompt,
    cleanup_request,
    needs_cleanup,
    question_block_of,
    read_cleanup_reply,
    score_cleanup,
)
from relreason.benchmarks.mcr.scoring import paper_letters, score_mcr
from relreason.types import EvalItem, Response

X = "Q: Where is the restaurant? Answer choices: A) East B) West C) Northeast D) Uncertain \nA:"
EXEMPLARS = "\nQ:Ruby is George's sister. A) Brother B) Sister\nA:B) Sister\n"


def item(prompt: str, gold: str = "C") -> EvalItem:
    """An MCR item with the options of ``X``."""
    return EvalItem(
        0, "en/0", prompt, gold, ("A", "B", "C", "D"), ("East", "West", "Northeast", "Uncertain")
    )


def test_official_prompt_text() -> None:
    # main.py: "Following is ... answered\n\n" + x + " " + out_raw + "\n\nThe choice made ..."
    assert CLEANUP_HEADER.startswith("Following is a pair of a question and an answer.")
    assert "if the questions is not answered\n\n" in CLEANUP_HEADER  # the typo is kept
    assert (
        cleanup_prompt(X, "Based on it, C") == CLEANUP_HEADER + X + " Based on it, C" + CLEANUP_TAIL
    )


def test_question_block_of_every_method() -> None:
    for prompt in (
        X + " Among options, the answer is",
        X + " Let's think step by step.",
        EXEMPLARS + X,
        "\nQ: 루비는 ... A) 오빠 B) 언니\nA:B) 언니\n" + X,
    ):
        assert question_block_of(item(prompt)) == X


def test_cleanup_round_trip() -> None:
    first = score_mcr(item(X), Response(text="Based on the map, C"), mode="paper", few_shot=False)
    assert needs_cleanup(first) and first.answer is None
    request = cleanup_request(item(X), "Based on the map, C")
    assert request.prompt == cleanup_prompt(X, "Based on the map, C")
    assert request.params.temperature == 0.0
    done = score_cleanup(item(X), first, Response(text=" C"), few_shot=False)
    assert (done.answer, done.status, done.method) == ("C", "correct", "paper_rule_cleaned")
    several = score_cleanup(item(X), first, Response(text="B and C"), few_shot=False)
    assert several.answer == "B"  # out_cleaned[0]: the first letter, even among several
    failed = score_cleanup(item(X), first, Response(error="429"), few_shot=False)
    assert (failed.answer, failed.method) == (None, "paper_rule_cleanup")
    one = score_mcr(item(X), Response(text="C"), mode="paper", few_shot=False)
    assert score_cleanup(item(X), one, Response(text="A"), few_shot=False) == one


@given(st.text(max_size=200), st.booleans())
def test_reply_rule_is_the_official_one(reply: str, few_shot: bool) -> None:
    text = reply.strip()
    searched = text.split("A:")[-1] if few_shot else text
    expected = re.findall(r"A|B|C|D|E|F|G", searched)
    assert read_cleanup_reply(reply, few_shot=few_shot) == (
        expected[0] if expected else None,
        expected,
    )
    assert paper_letters(text, few_shot=few_shot) == expected


@given(
    st.text(st.characters(blacklist_characters="\r"), min_size=1, max_size=60).filter(
        lambda q: q.strip() == q and "Q: " not in q
    ),
    st.sampled_from([" Among options, the answer is", " Let's think step by step.", ""]),
)
def test_question_block_round_trips(question: str, suffix: str) -> None:
    x = "Q: " + question + " Answer choices: A) East B) West C) Northeast D) Uncertain \nA:"
    assert question_block_of(item(EXEMPLARS + x + suffix)) == x
