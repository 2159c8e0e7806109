"""Properties of the cut-off, repeated and numbered option texts the sound readers read (issue 20):
``cut_option_text`` ("C) Ni l'un" is B's text cut off), ``number_option`` ("12 years old" is
the option "12歳") and ConvRe's ``first_line_option`` (a choice's text repeated until cut)."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from relreason.benchmarks.convre.forms import first_line_option
from relreason.scoring.common import (
    cut_option_text,
    match_option_text,
    normalized_choices,
    number_option,
)

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
OPTION = st.lists(WORDS, min_size=1, max_size=5).map(" ".join)


@given(st.lists(OPTION, min_size=2, max_size=4, unique=True), st.data())
def test_a_word_boundary_cut_names_the_one_option_it_begins(
    options: list[str], data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, len(options) - 1))
    words = options[index].split(" ")
    assume(len(words) >= 2)
    cut = " ".join(words[: data.draw(st.integers(1, len(words) - 1))])
    assume(len(cut) >= 3 and cut not in options)
    starts = [i for i, o in enumerate(options) if o.startswith(cut + " ")]
    found = cut_option_text(cut + "\nQ: next question", tuple(options))
    assert found == (starts[0] if len(starts) == 1 else None)


@given(st.lists(OPTION, min_size=2, max_size=4, unique=True), st.text(max_size=2))
def test_a_whole_option_or_a_short_line_is_no_cut(options: list[str], short: str) -> None:
    assert cut_option_text(options[0], tuple(options)) is None
    assert cut_option_text(short, tuple(options)) is None


@given(
    st.sampled_from([("(?, parent of, {e})", "({e}, parent of, ?)")]),
    WORDS,
    st.integers(0, 1),
    st.integers(1, 6),
    st.sampled_from([", ", "; ", " ", "\t"]),
    st.integers(0, 12),
)
def test_a_choice_repeated_and_cut_is_that_choice(
    forms: tuple[str, str], entity: str, index: int, times: int, sep: str, cut: int
) -> None:
    texts = (forms[0].format(e=entity), forms[1].format(e=entity))
    line = sep.join([texts[index]] * times) + sep + texts[index][:cut]
    assert first_line_option(line, texts) == index


@given(st.lists(OPTION, min_size=2, max_size=2, unique=True), WORDS)
def test_a_choice_followed_by_other_words_is_not_read_as_that_choice(
    options: list[str], word: str
) -> None:
    keys = normalized_choices(tuple(options))
    line = f"{options[0]} {word} {options[1]}"
    assume(not any(k.startswith(f"{keys[0]} {word}") for k in keys))
    assume(not any(k.startswith(word) for k in keys))  # then it could be a cut-off copy
    assert first_line_option(line, tuple(options)) is None


@given(
    st.lists(st.integers(0, 999), min_size=2, max_size=6, unique=True),
    st.sampled_from(["", "歳", "岁", "块", "살", " ans"]),
    st.sampled_from(["{n}", "{n}.", "{n} hours.", "{n} years old", "{n} heures"]),
    st.data(),
)
def test_a_number_names_the_one_option_with_that_number(
    numbers: list[int], unit: str, form: str, data: st.DataObject
) -> None:
    options = tuple(f"{n}{unit}" for n in numbers)
    index = data.draw(st.integers(0, len(numbers) - 1))
    assert number_option(form.format(n=numbers[index]), options) == index
    other = numbers[(index + 1) % len(numbers)]
    assert number_option(f"{numbers[index]} or {other}", options) is None
    assert number_option(f"{max(numbers) + 1}", options) is None


@given(st.lists(OPTION, min_size=2, max_size=4, unique=True), WORDS, st.sampled_from("'’"))
def test_a_possessive_is_not_the_option_it_names(
    options: list[str], word: str, apostrophe: str
) -> None:
    assume(not any(o.startswith(f"{options[0]}{apostrophe}s") for o in options))
    assume(not any(options[0].startswith(o) and o != options[0] for o in options))
    text = f"{options[0]}{apostrophe}s {word}."
    assert match_option_text(text, tuple(options), prefix=True) != 0
