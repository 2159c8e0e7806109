"""Reading A-G answers from MCR outputs: the official paper rule and the robust reader."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from relreason.benchmarks.mcr.scoring import (
    ZSC_SUFFIX,
    extract_paper,
    extract_robust,
    paper_letters,
    score_mcr,
    zsc_second_stage,
)
from relreason.errors import UsageError
from relreason.types import EvalItem, Response

CHOICES = ("A", "B", "C", "D")
TEXTS = ("East", "West", "Northeast", "Uncertain")
BENCHMARKS_MD = Path(__file__).resolve().parents[2] / "shared" / "docs" / "BENCHMARKS.md"


def item(
    gold: str = "C", choices: tuple[str, ...] = CHOICES, texts: tuple[str, ...] = TEXTS
) -> EvalItem:
    """An MCR item with the given gold letter, letters and option texts."""
    prompt = "Q: Where? Answer choices: A) East B) West C) Northeast D) Uncertain \nA:"
    return EvalItem(3, "en/3", prompt + " Let's think step by step.", gold, choices, texts)


# --- paper rule -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "few_shot", "letter", "method"),
    [
        (" C", False, "C", "paper_rule"),
        ("Based on the question, C", False, None, "paper_rule_cleanup"),  # B and C: clean-up
        ("the answer is (c)", False, None, "paper_rule_cleanup"),
        ("Ｃ", False, None, "paper_rule_cleanup"),  # the official regex sees no full-width letter
        ("The answer is G", False, "G", "paper_rule"),  # "T" is no letter; G is out of choices
        ("B) Elder sister", True, None, "paper_rule_cleanup"),  # E of "Elder" counts too
        ("D) 91\nQ: next question\nA:B) x", True, "B", "paper_rule"),  # after the last "A:"
        ("D) 91\nQ: next question\nA:B) x", False, None, "paper_rule_cleanup"),  # fs-english
        ("no trigger, answer c", True, None, "paper_rule_cleanup"),
    ],
)
def test_paper_rule(output: str, few_shot: bool, letter: str | None, method: str) -> None:
    assert extract_paper(output, CHOICES, few_shot=few_shot) == (letter, method)


def test_paper_rule_counts_letters_in_the_detail() -> None:
    extraction = score_mcr(item("B"), Response(text="Based on Ace"), mode="paper", few_shot=False)
    assert (extraction.answer, extraction.status, extraction.method) == (
        None,
        "unparseable",
        "paper_rule_cleanup",
    )
    assert extraction.detail is not None
    assert extraction.detail.startswith("letters_found=2 (B, A)")
    assert "second model" in extraction.detail
    none = score_mcr(item(), Response(text="no idea"), mode="paper", few_shot=False)
    assert (none.status, none.method) == ("unparseable", "paper_rule_cleanup")
    assert none.detail is not None and none.detail.startswith("letters_found=0")
    outside = score_mcr(item(), Response(text="G"), mode="paper", few_shot=False)
    assert (outside.answer, outside.status) == ("G", "wrong")
    assert outside.detail is not None and "not one of this item's choices" in outside.detail


@given(st.text(max_size=300), st.booleans())
def test_paper_rule_equals_the_official_computation(text: str, few_shot: bool) -> None:
    searched = text.split("A:")[-1] if few_shot else text
    expected = re.findall(r"A|B|C|D|E|F|G", searched)
    assert paper_letters(text, few_shot=few_shot) == expected
    letter, method = extract_paper(text, CHOICES, few_shot=few_shot)
    assert letter == (expected[0] if len(expected) == 1 else None)
    assert (method == "paper_rule") == (len(expected) == 1)
    extraction = score_mcr(item(), Response(text=text), mode="paper", few_shot=few_shot)
    if text.strip():
        assert extraction.answer == letter
        assert extraction.correct == (letter == "C")


# --- robust reader ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "letter", "method"),
    [
        ("C", "C", "clean"),
        (" (C)", "C", "clean"),
        ("C.", "C", "clean"),
        ("Ｃ", "C", "clean"),
        ("（Ｃ）", "C", "clean"),
        ("Northeast", "C", "option_text"),
        ("  northeast. ", "C", "option_text"),
        ("the answer is C", "C", "statement"),
        ("Therefore, the answer is C.", "C", "statement"),
        ("Answer: (C)", "C", "statement"),
        ("The answer is: C", "C", "statement"),
        ("The correct option is C because ...", "C", "statement"),
        ("C) Northeast", "C", "statement"),
        (" (C) Northeast. Option (A) East is wrong.", "C", "statement"),
        ("(C)", "C", "clean"),
        ("I think (C) fits.", "C", "statement"),
        ("C\nBecause Location A is north of Location B.", "C", "statement"),
        ("The answer is northeast.", "C", "statement"),
        ("The answer is A. Wait, the answer is C.", "C", "statement"),
        ("Answer: C\nLocation D is east of Location B, option (A) fails.", "C", "statement"),
        ("答案是C", "C", "statement"),
        ("答案：Ｃ", "C", "statement"),
        ("答案为（C）东北", "C", "statement"),
        ("所以选C。", "C", "statement"),
        ("La réponse est C", "C", "statement"),
        ("Réponse : (C) Nord-est", "C", "statement"),
        ("La bonne réponse est C.", "C", "statement"),
        ("答えはCです。", "C", "statement"),
        ("正解は C", "C", "statement"),
        ("정답은 C입니다", "C", "statement"),
        ("답: C", "C", "statement"),
        ("C입니다", "C", "statement"),
        ("B) West\nQ: The next question ...\nA: D) Uncertain", "B", "statement"),
    ],
)
def test_robust_forms(output: str, letter: str, method: str) -> None:
    assert extract_robust(output, CHOICES, TEXTS) == (letter, method)


@pytest.mark.parametrize(
    "output",
    [
        "Based on the question",
        "Location A is north of Location B, and C is south.",
        "A, B and C are on a line.",
        "the answer is g",
        "The answer is G",  # not one of this item's choices
        "the answer is E) Maybe",
        "A) East B) West C) Northeast D) Uncertain",  # the options listed back
        "C) West",  # C with another option's text
        "Answer choices: A) East B) West",
        "I do not know.",
    ],
)
def test_robust_unreadable(output: str) -> None:
    assert extract_robust(output, CHOICES, TEXTS) == (None, "none")


@pytest.mark.parametrize(
    ("output", "texts"),
    [
        ("回答の選択肢: A) 東 B) 西 C) 北東 D) 不明", ("東", "西", "北東", "不明")),
        ("답 선택지: A) 동쪽 B) 서쪽 C) 북동쪽 D) 불확실", ("동쪽", "서쪽", "북동쪽", "불확실")),
        (
            "Choix de réponses : A) Est B) Ouest C) Nord-est D) Incertain",
            ("Est", "Ouest", "Nord-est", "Incertain"),
        ),
        ("A) Chef B) Chef C) Ami D) Chef", ("Chef", "Chef", "Ami", "Chef")),  # duplicate options
    ],
)
def test_echoed_option_lists_are_no_answer(output: str, texts: tuple[str, ...]) -> None:
    assert extract_robust(output, CHOICES, texts) == (None, "none")
    answered = output + "\nThe answer is C."
    assert extract_robust(answered, CHOICES, texts) == ("C", "statement")


def test_robust_statuses_and_details() -> None:
    right = score_mcr(item("C"), Response(text="答案是C"), mode="robust", few_shot=False)
    assert (right.answer, right.status) == ("C", "correct")
    contradiction = score_mcr(item(), Response(text="C) West"), mode="robust", few_shot=True)
    assert contradiction.status == "unparseable"
    assert contradiction.detail is not None and "contradictory" in contradiction.detail
    empty = score_mcr(item(), Response(text=" \n"), mode="robust", few_shot=False)
    assert empty.status == "no_answer"
    failed = score_mcr(item(), Response(error="429 too many"), mode="paper", few_shot=False)
    assert (failed.status, failed.detail) == ("failed", "429 too many")
    logprob = score_mcr(
        item("A"),
        Response(choice_logprobs=dict(zip(CHOICES, (-1, -2, -3, -4), strict=True))),
        mode="robust",
        few_shot=False,
    )
    assert (logprob.answer, logprob.status, logprob.method) == ("A", "correct", "choice_logprob")


def test_unknown_mode_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="robust"):
        score_mcr(item(), Response(text="C"), mode="strict", few_shot=False)  # type: ignore[arg-type]


# --- zero-shot CoT second stage ---------------------------------------------------------------


def test_zsc_second_stage() -> None:
    first = " Location C is north-east, so it is the third option."
    second = zsc_second_stage(item(), first)
    assert second == item().prompt + first + "\nTherefore, among options, the answer is"
    assert second.endswith(ZSC_SUFFIX)


def test_zsc_suffix_is_the_one_benchmarks_md_names() -> None:
    if not BENCHMARKS_MD.is_file():
        pytest.skip(f"{BENCHMARKS_MD} not found")
    spec = BENCHMARKS_MD.read_text(encoding="utf-8")
    assert json.dumps(ZSC_SUFFIX) in spec  # the spec writes it as a quoted string with \\n


# --- real data ---------------------------------------------------------------------------------

LANGUAGES = ("english", "chinese", "french", "japanese", "korean")
EXEMPLAR_ANSWER = re.compile(r"\nA:([A-G])\) ([^\n]*)")
EXEMPLAR_OPTION = re.compile(r"([A-G])\)\s*(.*?)(?=\s*[A-G]\)|\n|$)")


def test_real_option_texts_read_as_their_letters(shared_data: Path) -> None:
    for language in LANGUAGES:
        path = shared_data / "mcr" / f"composition_{language}.json"
        questions = json.loads(path.read_text(encoding="utf-8"))
        for index, question in enumerate(questions[:300]):
            options = tuple(question["options"])
            letters = tuple(chr(65 + i) for i in range(len(options)))
            gold = letters[options.index(question["correct"])]
            where = f"{language}/{index}"
            if options.count(question["correct"]) == 1 and len(
                set(map(str.casefold, options))
            ) == len(options):
                assert extract_robust(question["correct"], letters, options)[0] == gold, where
            assert extract_robust(f"答案是{gold}", letters, options)[0] == gold, where
            assert extract_robust(f"{gold}) {question['correct']}", letters, options)[0] == gold, (
                where
            )
            listed = " ".join(f"{x}) {o}" for x, o in zip(letters, options, strict=True))
            assert extract_robust(listed, letters, options)[0] is None, where


def test_real_exemplar_answers(shared_data: Path) -> None:
    """The answers inside the official 5-shot blocks ("A:B) Elder sister") read as their letter
    in robust mode and by the official rule's first letter in paper mode."""
    blocks = json.loads((shared_data / "mcr" / "exemplars_official.json").read_text("utf-8"))
    seen = 0
    for name, block in blocks.items():
        questions = block.split("\nQ:")[1:]
        for question in questions:
            answer = EXEMPLAR_ANSWER.search("\n" + question.split("\n", 1)[1])
            assert answer is not None, name
            gold, gold_text = answer.group(1), answer.group(2)
            options = dict(EXEMPLAR_OPTION.findall(question.split("\n", 1)[0]))
            letters = tuple(options)
            texts = tuple(options.values())
            output = f"{gold}) {gold_text}\nQ: another question"
            assert extract_robust(output, letters, texts)[0] == gold, (name, question)
            found = paper_letters(block + "Q: x\nA:" + output, few_shot=True)
            assert found[0] == gold, (name, question)  # several letters: the clean-up step
            seen += 1
    assert seen == 30


# --- properties -------------------------------------------------------------------------------

LOWER_TEXT = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789 .,;:!?()'\"-\n答案是"),
    max_size=200,
)
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
OPTION_TEXTS = ("Ōne", "Twō", "Thrēe", "Fōur")  # "ō"/"ē" never occur in the generated text


@given(LOWER_TEXT)
def test_lowercase_text_yields_no_answer(text: str) -> None:
    # a lone lowercase letter ("b") and an explicit statement with one ("the answer is b")
    # are read (issue 20)
    assume(not any(cue in text for cue in ("answer", "option", "choice", "答案")))
    assume(len(text.strip().split("\n")[0].strip("()[]*.:'\" \t")) != 1)
    assert extract_robust(text, CHOICES, OPTION_TEXTS)[0] is None


@given(
    st.lists(
        st.tuples(
            WORD, st.sampled_from("ABCDEFG"), st.text("abcdefghijklmnopqrstuvwxyz", max_size=6)
        ),
        max_size=20,
    ),
    st.sampled_from([" ", ", ", ". ", "\n"]),
)
def test_capitals_inside_words_yield_no_answer(parts: list[tuple[str, str, str]], sep: str) -> None:
    words = [a + x + b for a, x, b in parts] + [x + a for a, x, _ in parts]
    text = "the answer is " + sep.join(words)
    assert extract_robust(text, CHOICES, OPTION_TEXTS)[0] is None


@given(
    st.sampled_from(CHOICES),
    LOWER_TEXT,
    st.sampled_from(["Answer: {x}", "Answer: ({x})", "The answer is {x}."]),
)
def test_answer_statement_reads_whatever_follows(letter: str, explanation: str, form: str) -> None:
    output = form.format(x=letter) + "\n" + explanation
    assert extract_robust(output, CHOICES, OPTION_TEXTS)[0] == letter


@given(
    st.sampled_from((*CHOICES, "E", "F", "G")),
    st.sampled_from(["答案是{x}", "the answer is {x}", "({x})", "{x}"]),
)
def test_letters_outside_the_choices_never_count(letter: str, form: str) -> None:
    read = extract_robust(form.format(x=letter), CHOICES, OPTION_TEXTS)[0]
    assert read == (letter if letter in CHOICES else None)


@given(
    st.permutations(range(4)),
    st.integers(0, 3),
    st.sampled_from(["{t}", "{x}) {t}", "The answer is {t}.", "答案是{x}", "정답은 {x}입니다"]),
)
def test_permuting_options_moves_the_letter(order: list[int], index: int, form: str) -> None:
    texts = tuple(TEXTS[i] for i in order)
    letter = CHOICES[index]
    output = form.format(x=letter, t=texts[index])
    assert extract_robust(output, CHOICES, texts)[0] == letter


@given(st.text(max_size=300), st.sampled_from(["paper", "robust"]), st.booleans())
def test_scorer_never_raises_on_arbitrary_text(text: str, mode: str, few_shot: bool) -> None:
    extraction = score_mcr(item(), Response(text=text), mode=mode, few_shot=few_shot)  # type: ignore[arg-type]
    assert extraction.status in ("correct", "wrong", "unparseable", "no_answer")
    if mode == "robust":
        assert extraction.answer in (None, *CHOICES)


@given(
    st.permutations(range(4)),
    st.integers(0, 3),
    st.sampled_from([" not {x}) {t}.", "not ({x}) {t}", " not {x})\nA: \nA: ", "pas {x}) {t}"]),
)
def test_a_rejected_letter_is_no_answer(order: list[int], index: int, form: str) -> None:
    texts = tuple(OPTION_TEXTS[i] for i in order)
    output = form.format(x=CHOICES[index], t=texts[index])
    assert extract_robust(output, CHOICES, texts) == (None, "none")
    other = CHOICES[(index + 1) % 4]
    assert extract_robust(f"{output}\nThe answer is {other}.", CHOICES, texts)[0] == other


@given(
    st.sampled_from(CHOICES),
    st.sampled_from(["The answer is not a correct option", "The answer is not a true statement"]),
    LOWER_TEXT,
)
def test_a_letter_taken_back_is_no_answer(letter: str, remark: str, reason: str) -> None:
    output = f" {letter}. {remark} because {reason}"
    assert extract_robust(output, CHOICES, OPTION_TEXTS) == (None, "none")
    kept = f" {letter}. The answer is not {CHOICES[(CHOICES.index(letter) + 1) % 4]}."
    assert extract_robust(kept, CHOICES, OPTION_TEXTS)[0] == letter


FRENCH = ("Est", "Ouest", "Nord-est", "Incertain")


@given(
    st.integers(0, 3),
    st.integers(0, 3),
    st.sampled_from([" {x}. {t}.", " {x}) {t}", "({x}) {t}\nA: Among options, the answer is {x}."]),
)
def test_a_letter_with_an_option_text_in_english_reads_as_that_text_says(
    letter: int, named: int, form: str
) -> None:
    translated = EvalItem(3, "fr/3", "", "A", CHOICES, FRENCH, english_choice_texts=TEXTS)
    output = form.format(x=CHOICES[letter], t=TEXTS[named])
    read = score_mcr(translated, Response(text=output), mode="robust", few_shot=False)
    assert read.answer == (CHOICES[letter] if letter == named else None)
    if letter != named:
        assert read.detail is not None and read.detail.endswith("(in English)")
    alone = EvalItem(3, "fr/3", "", "A", CHOICES, FRENCH)  # no English texts: the letter
    assert (
        score_mcr(alone, Response(text=output), mode="robust", few_shot=False).answer
        == (CHOICES[letter])
    )
