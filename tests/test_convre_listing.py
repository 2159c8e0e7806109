"""ConvRe's sound reader on two forms it misread (issue 31): both choices listed back on one
line ("A: <A's text> B: <B's text>", also "A. ..." and "(A) ...") is no answer, as the same
listing on two lines is; a quoted letter after "The answer is:" ('"A"', "'A'", curly quotes)
is that letter. Hypothesis properties over choice texts, label forms and quotes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from relreason.benchmarks.convre.scoring import extract_convre

WORDS = ("find", "an", "entity", "that", "gold", "ring", "wheel", "part", "made", "of", "has")
TEXTS = st.lists(st.sampled_from(WORDS), min_size=1, max_size=7).map(
    lambda words: "Find " + " ".join(words) + "."
)
LABELS = st.sampled_from(("{x}: ", "{x}. ", "({x}) ", "{x}) "))
QUOTES = st.sampled_from((('"', '"'), ("'", "'"), ("\u201c", "\u201d"), ("\u2018", "\u2019")))


def _listing(texts: tuple[str, str], label: str, order: tuple[int, int], gap: str) -> str:
    return gap.join(label.format(x="AB"[i]) + texts[i] for i in order)


@given(
    a=TEXTS,
    b=TEXTS,
    label=LABELS,
    order=st.sampled_from(((0, 1), (1, 0))),
)
def test_both_choices_listed_back_on_one_line_is_no_answer(
    a: str, b: str, label: str, order: tuple[int, int]
) -> None:
    if a.casefold() == b.casefold():
        return
    texts = (a, b)
    one_line = _listing(texts, label, order, " ")
    assert extract_convre(one_line, texts, cot=False)[0] is None, one_line
    two_lines = _listing(texts, label, order, "\n")  # the form that was already no answer
    assert extract_convre(two_lines, texts, cot=False)[0] is None, two_lines


@given(a=TEXTS, b=TEXTS, label=LABELS, letter=st.sampled_from("AB"))
def test_a_statement_after_a_one_line_listing_is_read(
    a: str, b: str, label: str, letter: str
) -> None:
    if a.casefold() == b.casefold():
        return
    texts = (a, b)
    output = _listing(texts, label, (0, 1), " ") + f"\nThe answer is {letter}."
    assert extract_convre(output, texts, cot=False)[0] == letter, output


@given(a=TEXTS, b=TEXTS, label=LABELS, letter=st.sampled_from("AB"))
def test_one_label_with_its_own_text_is_still_that_answer(
    a: str, b: str, label: str, letter: str
) -> None:
    """Only both choices listed make a listing: one label with its text stays an answer."""
    if a.casefold() == b.casefold():
        return
    texts = (a, b)
    output = label.format(x=letter) + texts["AB".index(letter)]
    assert extract_convre(output, texts, cot=False)[0] == letter, output


@given(
    a=TEXTS,
    b=TEXTS,
    letter=st.sampled_from("AB"),
    quotes=QUOTES,
    rest=st.sampled_from(("", ".", " because the ring is gold.", "\n\nThe ring is gold.")),
)
def test_a_quoted_letter_after_the_answer_is_is_that_letter(
    a: str, b: str, letter: str, quotes: tuple[str, str], rest: str
) -> None:
    if a.casefold() == b.casefold():
        return
    output = f"The answer is: {quotes[0]}{letter}{quotes[1]}{rest}"
    assert extract_convre(output, (a, b), cot=False)[0] == letter, output
