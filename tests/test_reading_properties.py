"""Properties of the sound readers: special tokens, hedges, letters outside the choices."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reading_tables import careful_convre, careful_mcr
from relreason.benchmarks.convre.scoring import extract_convre
from relreason.benchmarks.mcr.scoring import extract_robust
from relreason.scoring.reading import clean_output, leading_hedge, sentence_key

SPECIAL = ["<pad>", "</s>", "<s>", "<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<unk>", "[INST]"]
LANGUAGES = sorted(careful_mcr.OPTIONS)
WRAPS = [
    "<pad> {o}</s>",
    "<s>{o}</s>",
    "{o}<|im_end|>",
    "<|im_start|>assistant\n{o}<|im_end|>",
    "{o}<|endoftext|>",
    "{o}<|eot_id|><|eot_id|>",
    "{o}</s><pad><pad>",
]
HEDGES = {
    "en": ["{x} or {y}", "The answer is {x} or {y}.", "Either {x} or {y}.", "{x}/{y}"],
    "zh": ["{x}和{y}都有可能", "答案是{x}或{y}", "{x}或者{y}"],
    "fr": ["{x} ou {y}", "La réponse est {x} ou {y}."],
    "ja": ["{x}と{y}", "{x}か{y}", "答えは{x}か{y}です。"],
    "ko": ["{x} 또는 {y}", "정답은 {x} 또는 {y}입니다"],
}
LETTER_SETS = st.integers(2, 7).map(lambda n: tuple("ABCDEFG"[:n]))


@given(st.text(max_size=200), st.lists(st.sampled_from(SPECIAL), max_size=4))
def test_clean_output_never_raises_and_removes_tokens(text: str, tokens: list[str]) -> None:
    cleaned = clean_output("".join(tokens) + text)
    assert isinstance(cleaned, str)
    for token in ("<pad>", "<|im_end|>", "<|eot_id|>", "<|endoftext|>"):
        if token not in text:
            assert token not in cleaned


@given(st.sampled_from(LANGUAGES), st.sampled_from("ACD"), st.sampled_from(WRAPS), st.data())
def test_special_tokens_do_not_change_the_reading(
    language: str, letter: str, wrap: str, data: st.DataObject
) -> None:
    texts = careful_mcr.OPTIONS[language]
    forms = careful_mcr.ANSWERED[language]
    form = data.draw(st.sampled_from([f for f in forms if "<" not in f and "\nQ:" not in f]))
    text = texts[careful_mcr.LETTERS.index(letter)]
    fx = chr(ord(letter) - ord("A") + ord("Ａ"))
    output = form.format(x=letter, t=text, fx=fx, y="B")
    plain = extract_robust(output, careful_mcr.LETTERS, texts)[0]
    assert plain == letter
    assert extract_robust(wrap.format(o=output), careful_mcr.LETTERS, texts)[0] == plain


@given(st.sampled_from(LANGUAGES), st.permutations("ABCD"), st.data())
def test_hedges_are_never_an_answer(language: str, order: list[str], data: st.DataObject) -> None:
    x, y = order[0], order[1]
    form = data.draw(st.sampled_from(HEDGES[language]))
    output = form.format(x=x, y=y)
    assert extract_robust(output, careful_mcr.LETTERS, careful_mcr.OPTIONS[language])[0] is None
    if {x, y} == {"A", "B"}:
        texts = careful_convre.CHOICE_TEXTS["re2text"]
        assert extract_convre(output, texts, cot=False)[0] is None


@given(
    LETTER_SETS,
    st.lists(
        st.sampled_from(
            [
                *"ABCDEFG",
                " ",
                "\n",
                ".",
                ",",
                "(",
                ")",
                ":",
                "or",
                "is",
                "answer",
                "答案是",
                "と",
                "정답은 ",
                "입니다",
                "It's ",
                "Option ",
                " is correct",
                "<pad>",
                "</s>",
                "Ｃ",
                "和",
            ]
        ),
        max_size=30,
    ),
)
def test_never_reads_a_letter_outside_the_choices(
    letters: tuple[str, ...], parts: list[str]
) -> None:
    texts = tuple(f"option {i}" for i in range(len(letters)))
    output = "".join(parts)
    assert extract_robust(output, letters, texts)[0] in (None, *letters)
    assert extract_convre(output, ("x first", "y second"), cot=False)[0] in (None, "A", "B")
    assert extract_convre(output, ("x first", "y second"), cot=True)[0] in (None, "A", "B")


@given(st.text(max_size=300))
def test_helpers_never_raise(text: str) -> None:
    leading_hedge(text)
    sentence_key(text)
    extract_robust(text, careful_mcr.LETTERS, careful_mcr.OPTIONS["ja"])
