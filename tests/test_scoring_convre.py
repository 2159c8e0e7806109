"""Reading A/B answers from ConvRe outputs: clean forms, CoT JSON, log-prob fallback."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from relreason.benchmarks.convre.scoring import extract_convre, score_convre
from relreason.types import EvalItem, Response

RE2TEXT = (
    "Find an entity that works for anthony fauci.",
    "Find an entity that anthony fauci is employed by.",
)
TEXT2RE = ("(?, works for, anthony fauci)", "(anthony fauci, works for, ?)")


def item(gold: str = "B", texts: tuple[str, str] = RE2TEXT) -> EvalItem:
    """A ConvRe item with the given gold letter and choice texts."""
    return EvalItem(0, "works_for/0", "prompt", gold, ("A", "B"), texts)


@pytest.mark.parametrize(
    ("output", "letter", "method"),
    [
        ("A", "A", "clean"),
        (" B", "B", "clean"),
        ("A.", "A", "clean"),
        (" B:", "B", "clean"),
        ("(A)", "A", "clean"),
        ("Answer: B", "B", "clean"),
        ("answer: (A)", "A", "clean"),
        ("The answer is A", "A", "clean"),
        ("The answer is B.", "B", "clean"),
        (" **B**", "B", "clean"),
        ("Ｂ", "B", "clean"),  # full-width letter
        ("B: Find an entity that anthony fauci is employed by.", "B", "clean"),
        (" A: Find an entity that works for anthony fauci.", "A", "clean"),
        ("(B) Find an entity that anthony fauci is employed by.", "B", "clean"),
        ("B. Because y works for x, x is the employer.", "B", "clean"),
        (
            "B: Find an entity that anthony fauci is employed by.\nExplanation: y works for x.",
            "B",
            "clean",
        ),
        ("A\nThe instruction says y works for x, so ...", "A", "clean"),
        ("A is correct.", "A", "clean"),
        (
            " B\n\nInstruction: (x, boss, y) ...\nQuestion: (?, boss, mary)\nA: x\nB: y\nAnswer: A",
            "B",
            "clean",
        ),
        ("Find an entity that anthony fauci is employed by.", "B", "option_text"),
        ("Based on the instruction, the answer is B.", "B", "pattern"),
        ("I think the correct choice is (A) here.", "A", "pattern"),
        ("The answer is A. Wait, no: the answer is B", "B", "pattern"),
        ("So the answer is B: Find an entity that anthony fauci is employed by.", "B", "pattern"),
        ("the answer is b", "B", "clean"),  # a lowercase letter (issue 20: was unread)
    ],
)
def test_non_cot_forms(output: str, letter: str, method: str) -> None:
    assert extract_convre(output, RE2TEXT, cot=False) == (letter, method)


@pytest.mark.parametrize(
    "output",
    [
        "Based on the instruction",  # capital B inside a word is no answer
        "A person that works for anthony fauci.",  # "A" the article
        "All Answers Are Bad",
        f"A: {RE2TEXT[0]}\nB: {RE2TEXT[1]}",  # both choices echoed
        "\nA:\nB:",  # both choice labels echoed (seen from SmolLM2 on setting 1)
        "A:\nB:\n",
        " A. works for\n B. employed by",
        "A: Find an entity that anthony fauci is employed by.",  # letter with the other text
        "Instruction: (x, works for, y) indicates that y works for x.",
        "the answer is a person",  # a lowercase "a" that is an article
        "So the answer is A: Find an entity that anthony fauci is employed by.",
        "I believe the correct choice is (B) Find an entity that works for anthony fauci.",
    ],
)
def test_non_cot_unreadable(output: str) -> None:
    assert extract_convre(output, RE2TEXT, cot=False) == (None, "none")


def test_contradiction_and_echo_are_unparseable_with_a_reason() -> None:
    contradictory = score_convre(
        item(), Response(text="A: Find an entity that anthony fauci is employed by."), cot=False
    )
    assert (contradictory.status, contradictory.method) == ("unparseable", "none")
    assert contradictory.detail is not None and "contradictory" in contradictory.detail
    echo = score_convre(item(), Response(text=f"A: {RE2TEXT[0]}\nB: {RE2TEXT[1]}"), cot=False)
    assert echo.status == "unparseable"
    assert echo.detail is not None and "both choices" in echo.detail
    top = ({"\n": -1.5, " A": -1.7, " B": -2.4},)
    labels = score_convre(item(), Response(text="\nA:\nB:", top_logprobs=top), cot=False)
    assert (labels.answer, labels.method) == ("A", "logprob_fallback")
    # An answer on the first line stays an answer when the model rambles on with labels.
    rambling = " A.\nTo convert the question, which choice is correct?\nA:\nB:\nC:\n"
    assert extract_convre(rambling, RE2TEXT, cot=False) == ("A", "clean")


@pytest.mark.parametrize(
    ("output", "letter", "method"),
    [
        ('{"thought": "y works for x", "answer": "B"}', "B", "json"),
        ('```json\n{"thought": "x", "answer": "A"}\n```', "A", "json"),
        ('Sure! Here it is: {"thought": "t", "answer": "(B)"} Hope it helps.', "B", "json"),
        ("{'thought': \"Let's think. The answer is B.\", 'answer': 'A'}", "A", "literal"),
        ("{'thought': 'brace } inside', 'answer': 'B'}\n\nInstruction: ...", "B", "literal"),
        ('{"thought": "t", "answer": "(anthony fauci, works for, ?)"}', "B", "json"),
        ("{'thought': 't', 'answer': '(?, works for, anthony fauci).'}", "A", "literal"),
        ("{'thought': 'truncated', 'answer': 'B'", "B", "pattern"),
        ('{"thought": "t",\n "answer": "A"', "A", "pattern"),
        ("thought: because ...\nanswer: B", "B", "pattern"),
        ("{'thought': 't', 'answer': '(anthony fauci, works for, ?)'", "B", "pattern"),
        ('{"thought": "so the answer is B.", "answ', "B", "pattern"),
        ("B", "B", "clean"),
    ],
)
def test_cot_forms(output: str, letter: str, method: str) -> None:
    assert extract_convre(output, TEXT2RE, cot=True) == (letter, method)


@pytest.mark.parametrize(
    "output",
    [
        "{'thought': 'x', 'answer': 'C'}",
        '{"thought": "x", "answer": "Based on the question"}',
        "{'thought': 'no answer field'}",
        "I cannot decide.",
    ],
)
def test_cot_unreadable(output: str) -> None:
    assert extract_convre(output, TEXT2RE, cot=True)[0] is None


def test_cot_output_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = f"{{'thought': 'x', 'answer': __import__('os').mkdir({str(marker)!r})}}"
    letter, _ = extract_convre(payload, TEXT2RE, cot=True)
    assert letter is None
    assert not marker.exists()


def test_cot_deeply_nested_output_does_not_raise() -> None:
    assert extract_convre("{" * 5000 + "}" * 5000, TEXT2RE, cot=True)[0] is None
    assert extract_convre('{"a": ' + "[" * 100_000, TEXT2RE, cot=True)[0] is None


# --- log-probability fallback (paper Appendix F) --------------------------------------------


def test_logprob_fallback_picks_the_likelier_letter() -> None:
    response = Response(
        text=" The question asks for the employer.",
        top_logprobs=({" The": -0.1, " B": -1.5, " A": -2.5}, {" question": -0.1}),
    )
    extraction = score_convre(item("B"), response, cot=False)
    assert (extraction.answer, extraction.status, extraction.method) == (
        "B",
        "correct",
        "logprob_fallback",
    )
    assert extraction.detail is not None and "B=-1.5" in extraction.detail


def test_logprob_fallback_token_forms_and_switch() -> None:
    top = ({"A": -0.7, "Read": -0.1, "▁B": -2.0},)
    response = Response(text="Read the instruction", top_logprobs=top)
    assert score_convre(item("B"), response, cot=False).answer == "A"
    off = score_convre(item("B"), response, cot=False, logprob_fallback=False)
    assert (off.answer, off.status, off.method) == (None, "unparseable", "none")


@pytest.mark.parametrize(
    "top",
    [({" The": -0.1, " Read": -2.0},), ({" A": -1.0, " B": -1.0},), ()],
)
def test_logprob_fallback_without_a_decision(top: tuple[dict[str, float], ...]) -> None:
    response = Response(text="The question ...", top_logprobs=top)
    extraction = score_convre(item(), response, cot=False)
    assert (extraction.answer, extraction.status) == (None, "unparseable")


def test_logprob_fallback_is_not_used_for_readable_or_empty_text() -> None:
    top = ({" A": -0.1, " B": -3.0},)
    readable = score_convre(item(), Response(text=" B", top_logprobs=top), cot=False)
    assert (readable.answer, readable.method) == ("B", "clean")
    empty = score_convre(item(), Response(text="  ", top_logprobs=top), cot=False)
    assert (empty.answer, empty.status) == (None, "no_answer")


def test_score_convre_statuses() -> None:
    assert score_convre(item("A"), Response(text="A"), cot=False).status == "correct"
    assert score_convre(item("A"), Response(text="B"), cot=False).status == "wrong"
    assert score_convre(item(), Response(error="timeout"), cot=False).status == "failed"
    by_logprob = score_convre(item(), Response(choice_logprobs={"A": -2, "B": -1}), cot=False)
    assert (by_logprob.answer, by_logprob.method) == ("B", "choice_logprob")


def test_score_convre_rejects_an_item_without_two_choice_texts() -> None:
    bad = EvalItem(0, "x/0", "p", "A", ("A", "B"), ("only one",))
    with pytest.raises(ValueError, match="x/0"):
        score_convre(bad, Response(text="A"), cot=False)


# --- real few-shot examples of the official data ---------------------------------------------


def _examples(shared_data: Path) -> list[tuple[str, str, tuple[str, str], str]]:
    """(file:key/index, answer text after the last "Answer:", choice texts, gold) per example.

    The gold letter comes from the data itself: the "Answer: X" line, or for CoT examples the
    ``answer`` of the official (trusted, literal-only) Python dict.
    """
    cases = []
    for name in ("re2text_examples.json", "text2re_examples.json"):
        data = json.loads((shared_data / "convre" / name).read_text(encoding="utf-8"))
        for key, examples in data.items():
            for index, example in enumerate(examples):
                head, answer = example.rsplit("\nAnswer:", 1)
                lines = head.split("\n")
                text_a = next(line[3:] for line in lines if line.startswith("A: "))
                text_b = next(line[3:] for line in lines if line.startswith("B: "))
                if "cot" in key:
                    gold = ast.literal_eval(answer.strip())["answer"]
                else:
                    gold = answer.strip()
                cases.append((f"{name}:{key}/{index}", answer, (text_a, text_b), gold))
    return cases


def test_official_few_shot_answers_parse(shared_data: Path) -> None:
    cases = _examples(shared_data)
    assert len(cases) == 80
    for where, answer, texts, gold in cases:
        cot = "cot" in where
        assert extract_convre(answer, texts, cot=cot)[0] == gold, where
        if cot:
            as_json = json.dumps(ast.literal_eval(answer.strip()))
            assert extract_convre(as_json, texts, cot=True) == (gold, "json"), where


def test_official_cot_answers_with_choice_text_in_the_answer_field(shared_data: Path) -> None:
    for where, answer, texts, gold in _examples(shared_data):
        if "cot" not in where:
            continue
        obj = ast.literal_eval(answer.strip())
        obj["answer"] = texts["AB".index(gold)]
        assert extract_convre(repr(obj), texts, cot=True) == (gold, "literal"), where
        truncated = repr(obj)[:-1]  # no closing brace: the answer field is read by pattern
        assert extract_convre(truncated, texts, cot=True)[0] == gold, where


# --- properties ------------------------------------------------------------------------------

LOWER_TEXT = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789 .,;:!?()'\"-\n"), max_size=200
)
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=10)


@given(LOWER_TEXT, st.booleans())
def test_lowercase_text_yields_no_answer(text: str, cot: bool) -> None:
    # a lone lowercase letter ("b") and an explicit statement with one ("the answer is b")
    # are read (issue 20)
    assume(not any(cue in text for cue in ("answer", "option", "choice", "答案")))
    assume(len(text.strip().split("\n")[0].strip("()[]*.:'\" \t")) != 1)
    assert extract_convre(text, ("Find X.", "Find Y."), cot=cot)[0] is None


@given(
    st.lists(
        st.tuples(WORD, st.sampled_from("AB"), WORD).map(lambda t: t[0] + t[1] + t[2]),
        max_size=20,
    )
)
def test_capitals_inside_words_yield_no_answer(words: list[str]) -> None:
    text = " ".join(words)
    assert extract_convre(text, RE2TEXT, cot=False)[0] is None


@given(
    WORD,
    WORD,
    st.sampled_from(["{x}: {t}", "({x}) {t}", "{x}. {t}", "{t}", "{x}: {t}\nbecause it is so"]),
    st.sampled_from("AB"),
)
def test_swapping_choice_texts_swaps_the_letter(
    first: str, second: str, form: str, letter: str
) -> None:
    assume(first != second and not first.startswith(second) and not second.startswith(first))
    texts = (f"find {first} of it", f"find {second} of it")
    index = "AB".index(letter)
    output = form.format(x=letter, t=texts[index])
    assert extract_convre(output, texts, cot=False)[0] == letter
    swapped_output = form.format(x="AB"[1 - index], t=texts[index])
    assert extract_convre(swapped_output, (texts[1], texts[0]), cot=False)[0] == "AB"[1 - index]


@given(st.sampled_from("AB"), LOWER_TEXT)
def test_answer_statement_reads_whatever_follows(letter: str, explanation: str) -> None:
    assert extract_convre(f"Answer: {letter}\n{explanation}", RE2TEXT, cot=False)[0] == letter
    assert extract_convre(f"Answer: {letter} {explanation}", RE2TEXT, cot=False)[0] == letter


@given(st.text(max_size=300), st.sampled_from("AB"))
def test_cot_object_round_trips(thought: str, letter: str) -> None:
    obj = {"thought": thought, "answer": letter}
    assert extract_convre(json.dumps(obj), TEXT2RE, cot=True) == (letter, "json")
    assert extract_convre(json.dumps(obj, ensure_ascii=False), TEXT2RE, cot=True)[0] == letter
    assert extract_convre(repr(obj), TEXT2RE, cot=True)[0] == letter
    assert extract_convre(f"```json\n{json.dumps(obj)}\n```", TEXT2RE, cot=True)[0] == letter


@given(st.sampled_from("ABCDEF"), st.lists(st.sampled_from("ABCDEF"), min_size=1, max_size=4))
def test_a_first_line_of_labels_only_is_no_answer(first: str, rest: list[str]) -> None:
    line = " ".join(f"({x})" for x in [first, *rest])
    assert extract_convre(f"{line}\nAnswer: {line}", RE2TEXT, cot=False) == (None, "none")


@given(st.sampled_from("AB"), st.sampled_from(["?", "x", "anthony fauci"]))
def test_a_letter_opening_a_made_up_triple_is_no_answer(letter: str, entity: str) -> None:
    output = f"The answer is ({letter}, works for, {entity})."
    assert extract_convre(output, TEXT2RE, cot=False) == (None, "none")
    assert extract_convre(f"The answer is ({letter}).", TEXT2RE, cot=False)[0] == letter


@given(st.text(max_size=300), st.booleans(), st.booleans())
def test_scorer_never_raises_on_arbitrary_text(text: str, cot: bool, fallback: bool) -> None:
    response = Response(text=text, top_logprobs=({" A": -1.0, " B": -2.0},))
    extraction = score_convre(item(), response, cot=cot, logprob_fallback=fallback)
    assert extraction.answer in (None, "A", "B")
    assert extraction.status in ("correct", "wrong", "unparseable", "no_answer")
