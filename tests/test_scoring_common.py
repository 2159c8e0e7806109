"""Shared scoring rules: statuses, failed requests, choice log-likelihoods, option texts, speed."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.benchmarks.convre.scoring import score_convre
from relreason.benchmarks.mcr.scoring import score_mcr
from relreason.scoring.common import (
    failed_extraction,
    first_token_letter,
    match_option_text,
    normalize_text,
    pre_score,
    score_choice_logprobs,
    status_for,
)
from relreason.types import EvalItem, Response

ITEM = EvalItem(0, "t/0", "prompt", "B", ("A", "B", "C"), ("East", "West", "Northeast"))


@pytest.mark.parametrize(
    ("answer", "gold", "empty", "expected"),
    [
        ("A", "A", False, "correct"),
        ("A", "B", False, "wrong"),
        (None, "A", False, "unparseable"),
        (None, "A", True, "no_answer"),
        ("B", "B", True, "correct"),
    ],
)
def test_status_for(answer: str | None, gold: str, empty: bool, expected: str) -> None:
    assert status_for(answer, gold, empty=empty) == expected


def test_failed_extraction_keeps_the_error() -> None:
    extraction = failed_extraction(Response(error="HTTP 500 after 3 retries"))
    assert (extraction.answer, extraction.status, extraction.method) == (None, "failed", "none")
    assert extraction.detail == "HTTP 500 after 3 retries"


def test_choice_logprobs_argmax() -> None:
    extraction = score_choice_logprobs(ITEM, Response(choice_logprobs={"A": -3.0, "B": -0.5}))
    assert (extraction.answer, extraction.status, extraction.method) == (
        "B",
        "correct",
        "choice_logprob",
    )
    assert extraction.detail is None


def test_choice_logprobs_tie_is_deterministic_and_noted() -> None:
    scores = {"C": -1.0, "A": -1.0, "B": -2.0}
    extraction = score_choice_logprobs(ITEM, Response(choice_logprobs=scores))
    assert extraction.answer == "A"  # first of the tied letters in the item's choice order
    assert extraction.detail is not None and "tie" in extraction.detail
    assert "A, C" in extraction.detail


def test_choice_logprobs_ignore_nan_and_foreign_letters() -> None:
    scores = {"A": math.nan, "Z": 0.0, "C": -4.0}
    extraction = score_choice_logprobs(ITEM, Response(choice_logprobs=scores))
    assert extraction.answer == "C"
    empty = score_choice_logprobs(ITEM, Response(choice_logprobs={"Z": 0.0}))
    assert (empty.answer, empty.status) == (None, "unparseable")


@given(
    st.dictionaries(
        st.sampled_from(["A", "B", "C"]),
        st.floats(min_value=-1e6, max_value=0, allow_nan=False),
        min_size=1,
    )
)
def test_choice_logprobs_picks_a_maximum(scores: dict[str, float]) -> None:
    extraction = score_choice_logprobs(ITEM, Response(choice_logprobs=scores))
    assert extraction.answer is not None
    assert scores[extraction.answer] == max(scores.values())
    reordered = dict(reversed(list(scores.items())))
    assert score_choice_logprobs(ITEM, Response(choice_logprobs=reordered)) == extraction


def test_pre_score_order_error_then_logprobs_then_text() -> None:
    both = Response(text="B", choice_logprobs={"A": 0.0}, error="boom")
    assert pre_score(ITEM, both) == failed_extraction(both)
    logprobs = pre_score(ITEM, Response(text="B", choice_logprobs={"A": 0.0, "B": -1.0}))
    assert logprobs is not None and logprobs.answer == "A"
    assert pre_score(ITEM, Response(text="B")) is None


@pytest.mark.parametrize("text", [None, "", "   ", "\n\t \n"])
def test_empty_output_is_no_answer(text: str | None) -> None:
    extraction = pre_score(ITEM, Response(text=text))
    assert extraction is not None
    assert (extraction.answer, extraction.status) == (None, "no_answer")


def test_normalize_text() -> None:
    assert normalize_text("  Ｎｏｒｔｈ\u3000 EAST。 ") == "north east"
    assert normalize_text("(anthony fauci, works for, ?)") == "(anthony fauci, works for, ?)"
    assert normalize_text("Uncertain.") == "uncertain"


@pytest.mark.parametrize(
    ("text", "prefix", "expected"),
    [
        ("west", False, 1),
        ("  WEST. ", False, 1),
        ("Northeast, because ...", False, None),
        ("Northeast, because ...", True, 2),
        ("Eastern", True, None),  # "East" must end at a word boundary
        ("", True, None),
        ("North", True, None),
    ],
)
def test_match_option_text(text: str, prefix: bool, expected: int | None) -> None:
    assert match_option_text(text, ("East", "West", "Northeast"), prefix=prefix) == expected


def test_match_option_text_longest_wins_and_duplicates_are_ambiguous() -> None:
    assert match_option_text("northeast of it", ("North", "Northeast"), prefix=True) == 1
    assert match_option_text("same", ("Same", "same"), prefix=False) is None


def test_match_option_text_long_padded_text() -> None:
    padded = "West" + " " * 500 + "."
    assert match_option_text(padded, ("East", "West")) == 1


@pytest.mark.parametrize(
    ("top", "expected"),
    [
        ({" A": -1.0, " B": -0.5}, "B"),
        ({"A": -0.2, " B": -0.5}, "A"),
        ({"ĠA": -0.2, "▁B": -0.5, "the": 0.0}, "A"),
        ({" A": -3.0, "A": -0.1, " B": -0.5}, "A"),  # best form of each letter counts
        ({" the": -0.1, "\n": -0.3}, None),
        ({" A": -0.5, " B": -0.5}, None),  # a tie decides nothing
    ],
)
def test_first_token_letter(top: dict[str, float], expected: str | None) -> None:
    letter, detail = first_token_letter((top,), ("A", "B"))
    assert letter == expected
    assert detail


def test_first_token_letter_without_logprobs() -> None:
    assert first_token_letter(None, ("A", "B"))[0] is None
    assert first_token_letter((), ("A", "B"))[0] is None


def test_mixed_responses_are_all_read() -> None:
    """100,000 responses of a realistic mix (clean letters, letters with text, sentences, CoT
    JSON, few-shot continuations) across both benchmarks score in well under 2 s."""
    convre_item = EvalItem(
        0,
        "r/0",
        "p",
        "B",
        ("A", "B"),
        (
            "Find an entity that works for anthony fauci.",
            "Find an entity that anthony fauci is employed by.",
        ),
    )
    mcr_item = EvalItem(
        0, "en/0", "p", "C", ("A", "B", "C", "D"), ("East", "West", "Northeast", "Uncertain")
    )
    cot = (
        " {'thought': \"Let's think step by step. The instruction indicates y works for x, "
        "so x is the employer of anthony fauci, the answer is B.\", 'answer': 'B'}\n"
    )
    convre = [
        Response(text=t)
        for t in (" A", " B", "B: Find an entity that anthony fauci is employed by.", "A.")
    ]
    plain = [
        Response(text=t)
        for t in (" C", " (C) Northeast", "C) Northeast\nQ: next", "The answer is C.")
    ]
    cases = (
        [(lambda r: score_convre(convre_item, r, cot=False), r) for r in convre]
        + [(lambda r: score_convre(convre_item, r, cot=True), Response(text=cot))]
        + [(lambda r: score_mcr(mcr_item, r, mode="robust", few_shot=False), r) for r in plain]
        + [(lambda r: score_mcr(mcr_item, r, mode="paper", few_shot=True), r) for r in plain]
    )
    n = 2_000  # speed is measured in perf/bench_prompts_scoring.py
    read = 0
    for i in range(n):
        scorer, response = cases[i % len(cases)]
        read += scorer(response).answer is not None
    assert read == n  # every case in the mix is readable
