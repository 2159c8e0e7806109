"""Properties of what may follow an MCR label (issue 20): another option's text after the label's
own and a comma or "or" (``another_candidate``: two candidates), a bare other letter
(``letter_after``: "D) C"), an option's text after a French article (``article_option``:
"L'épouse" is the option "Épouse"), a Japanese option's text inflected (``inflected_option``:
"中に含んでいます" is "中に含む"), a garbled capital answer (``abbreviated_option``: "INCERTY" is
"Incertain"), a CJK sentence that ends with an option's text (``ending_option``), labels cut to
initials (``labels_only``) and a sentence repeated under successive labels (``label_run``: no
listing)."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from relreason.benchmarks.mcr.labels import (
    another_candidate,
    article_option,
    ending_option,
    inflected_option,
    label_run,
    labels_only,
    letter_after,
)
from relreason.scoring.common import match_option_text
from relreason.scoring.forms import abbreviated_option

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
OPTION = st.lists(WORDS, min_size=1, max_size=3).map(" ".join)
OPTIONS = st.lists(OPTION, min_size=2, max_size=5, unique=True)
LETTERS = ("A", "B", "C", "D", "E")
SEPARATORS = st.sampled_from([", ", " / ", " or ", " ou ", "、", " 또는 "])


@given(OPTIONS, st.data(), SEPARATORS)
def test_an_own_text_then_another_after_a_separator_names_the_other(
    options: list[str], data: st.DataObject, separator: str
) -> None:
    own = data.draw(st.integers(0, len(options) - 1))
    other = data.draw(st.integers(0, len(options) - 1))
    assume(other != own and not any(o.startswith(options[other] + " ") for o in options))
    assume(not any(word in ("or", "ou") for o in options for word in o.split()))
    line = f" {options[own]}{separator}{options[other]}\nQ: next"
    assert another_candidate(line, own, tuple(options)) == other


@given(OPTIONS, st.data(), st.text(max_size=12))
def test_a_line_that_is_not_the_own_text_first_names_no_other(
    options: list[str], data: st.DataObject, rest: str
) -> None:
    own = data.draw(st.integers(0, len(options) - 1))
    line = f" {options[own]}{rest}"
    found = another_candidate(line, own, tuple(options))
    assert found is None or found != own
    if found is not None:  # only ever after a separator that follows the whole own text
        assert match_option_text(options[found], tuple(options)) == found


@given(st.sampled_from(LETTERS), st.sampled_from(LETTERS), st.sampled_from(["", ".", ")"]))
def test_a_bare_other_letter_after_a_label_is_that_letter(
    letter: str, other: str, mark: str
) -> None:
    found = letter_after(f" {other}{mark}\n\nA: more", letter, LETTERS)
    assert found == (None if other == letter else LETTERS.index(other))
    assert letter_after(f" {other}{mark} and more", letter, LETTERS) is None


@given(OPTIONS, st.data(), st.sampled_from(["L'", "l'", "la ", "Le ", "les ", "L\u2019"]))
def test_an_article_before_an_option_text_names_that_option(
    options: list[str], data: st.DataObject, article: str
) -> None:
    index = data.draw(st.integers(0, len(options) - 1))
    assume(not options[index].startswith(("la ", "le ", "les ")))
    expected = match_option_text(options[index], tuple(options), prefix=True)
    assert article_option(f" {article}{options[index]}", tuple(options)) == expected
    assert article_option(f" {options[index]}", tuple(options)) is None


@given(st.lists(st.sampled_from(LETTERS), min_size=3, max_size=5, unique=True), st.data())
def test_labels_in_rising_order_with_initials_only_are_listed_back(
    letters: list[str], data: st.DataObject
) -> None:
    ordered = sorted(letters)
    tails = [data.draw(st.text(alphabet="ABCDEFÉIL", max_size=2)) for _ in ordered]
    text = "\n".join(f"{letter}) {tail}" for letter, tail in zip(ordered, tails, strict=True))
    assert labels_only(" " + text)
    assume(ordered != letters)
    shuffled = "\n".join(f"{letter}) {tail}" for letter, tail in zip(letters, tails, strict=True))
    assert not labels_only(" " + shuffled)


@given(st.lists(WORDS, min_size=3, max_size=8).map(" ".join), st.integers(1, 3))
def test_a_sentence_repeated_under_successive_labels_is_no_listing(sentence: str, cut: int) -> None:
    lines = [f"A. {sentence}.", f"B: {sentence}.", f"C: {sentence[: max(1, len(sentence) // cut)]}"]
    assert label_run(" " + "\n".join(lines), ("A", "B", "C", "D")) is None
    listed = " A. one thing here\nB: another thing there\nC: a third one"
    assert label_run(listed, ("A", "B", "C", "D")) is not None


KANJI = st.text(alphabet="中含箱上下前後右左大小", min_size=2, max_size=4)
VERB_ENDINGS = ("む", "る", "う", "く", "す", "い")
INFLECTIONS = ("んでいます", "ります", "います", "きます", "した", "かった")


@given(st.lists(KANJI, min_size=2, max_size=4, unique=True), st.data())
def test_a_japanese_option_text_inflected_names_that_option(
    stems: list[str], data: st.DataObject
) -> None:
    assume(not any(a != b and b.startswith(a) for a in stems for b in stems))
    options = tuple(stem + data.draw(st.sampled_from(VERB_ENDINGS)) for stem in stems)
    index = data.draw(st.integers(0, len(options) - 1))
    inflected = stems[index] + data.draw(st.sampled_from(INFLECTIONS)) + "\nQ: 箱"
    assume(not inflected.startswith(options[index]))
    assert inflected_option(inflected, options) == index
    assert inflected_option(options[index], options) is None  # the text itself: not inflected


@given(OPTIONS, st.data(), st.sampled_from("XYZQ"))
def test_capitals_with_a_garbled_last_letter_name_the_one_option_they_begin(
    options: list[str], data: st.DataObject, garble: str
) -> None:
    index = data.draw(st.integers(0, len(options) - 1))
    word = options[index].split()[0]
    assume(len(word) >= 5)
    capitals = word[:5].upper() + garble  # six capitals, the last one garbled
    begins = [o for o in options if o.casefold().startswith(word[:5].casefold())]
    expected = index if len(begins) == 1 else None
    assert abbreviated_option(f" {capitals}.", tuple(options)) == expected


HANGUL = st.text(alphabet="가나다라마바사아자차카타파하", min_size=2, max_size=4)


@given(st.lists(HANGUL, min_size=2, max_size=4, unique=True), st.data(), HANGUL)
def test_a_cjk_sentence_ending_with_one_option_text_names_it(
    options: list[str], data: st.DataObject, lead: str
) -> None:
    index = data.draw(st.integers(0, len(options) - 1))
    sentence = f"{lead}와 {options[index]}"
    ends = [o for o in options if sentence.endswith(o)]
    longest = max(len(o) for o in ends)
    expected = [i for i, o in enumerate(options) if o in ends and len(o) == longest]
    assert ending_option(sentence, tuple(options)) == (expected[0] if len(expected) == 1 else None)
    assert ending_option("The sentence ends with east", ("East", "West")) is None  # not CJK
