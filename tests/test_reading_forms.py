"""Properties of the reading rules added for issue 20: lowercase letters, conflicting CoT
answer fields, verdicts on labelled options, the repeated few-shot cue, the first answer before
invented turns, "It is uncertain.", and the log-probability fallback's margin."""

from __future__ import annotations

import json
import math

from hypothesis import given
from hypothesis import strategies as st

from reading_tables import careful_convre, careful_mcr
from relreason.benchmarks.convre.scoring import extract_convre, score_convre
from relreason.benchmarks.mcr.scoring import extract_robust
from relreason.scoring.common import FALLBACK_MARGIN, fallback_letter
from relreason.scoring.forms import UNCERTAIN
from relreason.scoring.reading import lowercase_statements, verdict_letter
from relreason.types import EvalItem, Response

LANGUAGES = sorted(careful_mcr.OPTIONS)
LETTERS = careful_mcr.LETTERS
TEXTS = careful_convre.CHOICE_TEXTS["re2text"]
PUNCT = st.sampled_from(["", ".", " ", "\n", ")", "**"])
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)


@given(st.sampled_from("ab"), PUNCT)
def test_a_lone_lowercase_letter_is_read_in_convre(letter: str, end: str) -> None:
    output = f"({letter})" if end == ")" else f"{letter}{end}"
    assert extract_convre(output, TEXTS, cot=False)[0] == letter.upper()


@given(st.sampled_from(LANGUAGES), st.sampled_from("abcd"), st.sampled_from(["", ".", "\n"]))
def test_a_lone_lowercase_letter_is_read_in_mcr(language: str, letter: str, end: str) -> None:
    texts = careful_mcr.OPTIONS[language]
    assert extract_robust(f"{letter}{end}", LETTERS, texts)[0] == letter.upper()


@given(st.sampled_from("abcdefg"), st.sampled_from(["", ".", "!", " because it fits."]))
def test_lowercase_letter_ending_a_statement_is_read(letter: str, tail: str) -> None:
    for lead in ("the answer is ", "Answer: ", "答案是", "la réponse est "):
        found = lowercase_statements(f"{lead}{letter}{tail}")
        assert [x[2] for x in found] == [letter.upper()]


@given(st.sampled_from("abcdefg"), WORD)
def test_lowercase_letter_starting_a_phrase_is_no_statement(letter: str, word: str) -> None:
    assert lowercase_statements(f"the answer is {letter} {word}") == []


@given(st.text(max_size=80), st.sampled_from("ABab"), st.sampled_from("ABab"))
def test_cot_object_with_two_answer_fields(thought: str, first: str, second: str) -> None:
    answers = f'"answer": {json.dumps(first)}, "answer": {json.dumps(second)}'
    output = "{" + f'"thought": {json.dumps(thought)}, {answers}' + "}"
    expected = first.upper() if first.upper() == second.upper() else None
    assert extract_convre(output, TEXTS, cot=True)[0] == expected


@given(st.sampled_from(LANGUAGES), st.permutations(LETTERS))
def test_the_one_option_called_right_is_the_answer(language: str, order: list[str]) -> None:
    texts = careful_mcr.OPTIONS[language]
    right, *wrong = order[:3]
    parts = [f"{x}) {texts[LETTERS.index(x)]} is wrong" for x in wrong]
    parts.insert(1, f"{right}) {texts[LETTERS.index(right)]} is right")
    output = "; ".join(parts) + "."
    assert verdict_letter(output, LETTERS, texts) == (right, frozenset(wrong))
    assert extract_robust(output, LETTERS, texts)[0] == right


@given(st.sampled_from(LANGUAGES), st.permutations(LETTERS))
def test_two_options_called_right_is_no_answer(language: str, order: list[str]) -> None:
    texts = careful_mcr.OPTIONS[language]
    x, y = order[:2]
    output = f"{x}) {texts[LETTERS.index(x)]} is right; {y}) {texts[LETTERS.index(y)]} is right."
    assert extract_robust(output, LETTERS, texts)[0] is None


@given(st.sampled_from(LANGUAGES), st.sampled_from(LETTERS), st.sampled_from(["", " "]))
def test_the_repeated_few_shot_cue_is_not_the_answer(language: str, x: str, gap: str) -> None:
    texts = careful_mcr.OPTIONS[language]
    output = f"A:{gap}{x}) {texts[LETTERS.index(x)]}"
    assert extract_robust(output, LETTERS, texts)[0] == x


@given(st.sampled_from(LANGUAGES), st.permutations(LETTERS), st.sampled_from(["Q", "A"]))
def test_the_first_answer_before_invented_turns_counts(
    language: str, order: list[str], turn: str
) -> None:
    texts = careful_mcr.OPTIONS[language]
    x, y = order[:2]
    output = f"{x}) {texts[LETTERS.index(x)]}\n{turn}: The answer is {y}."
    assert extract_robust(output, LETTERS, texts)[0] == x


@given(st.sampled_from(sorted(UNCERTAIN)), st.permutations(range(4)))
def test_it_is_uncertain_names_the_uncertain_option(word: str, order: list[int]) -> None:
    texts = ["East", "West", "Northeast", word]
    texts = tuple(texts[i] for i in order)
    expected = LETTERS[texts.index(word)]
    assert extract_robust("It is uncertain.", LETTERS, texts)[0] == expected
    plain = ("East", "West", "Northeast", "Southwest")
    assert extract_robust("It is uncertain.", LETTERS, plain)[0] is None


VALUES = st.floats(min_value=-20.0, max_value=0.0, allow_nan=False)


@given(st.one_of(st.none(), VALUES), st.one_of(st.none(), VALUES), VALUES)
def test_fallback_needs_both_letters_and_the_margin(
    a: float | None, b: float | None, other: float
) -> None:
    top = {" the": other}
    if a is not None:
        top[" A"] = a
    if b is not None:
        top["B"] = b
    letter, detail = fallback_letter((top,), ("A", "B"))
    assert detail
    if a is None or b is None or abs(a - b) < FALLBACK_MARGIN:
        assert letter is None
    else:
        assert letter == ("A" if a > b else "B")
    item = EvalItem(0, "x", "", "A", ("A", "B"), TEXTS)
    read = score_convre(item, Response(text="Read the instruction", top_logprobs=(top,)), cot=False)
    assert read.answer == letter
    assert (read.method == "logprob_fallback") == (letter is not None)


def test_the_margin_is_stated_and_positive() -> None:
    assert FALLBACK_MARGIN > 0 and math.isfinite(FALLBACK_MARGIN)
