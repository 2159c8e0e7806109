"""The official ConvRe reading rules: scorer wiring, family inference, never evaluating text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.benchmarks.convre.official import (
    FAMILIES,
    extract_official,
    infer_family,
    literal_value,
    read_official,
    score_convre_official,
)
from relreason.types import EvalItem, Response

ITEM = EvalItem(0, "hypernym/0", "prompt", "B", ("A", "B"), ("(x, h, ?)", "(?, h, x)"))
LITERALS = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=20)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@pytest.mark.parametrize(
    ("spec", "api", "family"),
    [
        ("anthropic:claude-3-5-sonnet-20241022", "chat", "claude"),
        ("openai:gpt-4o-mini", "chat", "gpt-chat"),
        ("openai:gpt-3.5-turbo-instruct", "completions", "gpt-text"),
        ("openai:text-davinci-003", "chat", "gpt-text"),
        ("hf:google/flan-t5-xl", "chat", "flan-t5"),
        ("hf:meta-llama/Llama-2-7b-chat-hf", "chat", "llama2"),
        ("openai:meta-llama/Llama-2-13b-chat-hf", "chat", "llama2"),
        ("hf:Qwen/Qwen-7B-Chat", "chat", "qwen"),
        ("hf:internlm/internlm-chat-7b", "chat", "internlm"),
        ("hf:/models/local/flan-t5-small/", "chat", "flan-t5"),
        ("hf:meta-llama/Meta-Llama-3-8B-Instruct", "chat", None),
        ("smollm2", "chat", None),
        ("hf:HuggingFaceTB/SmolLM2-135M-Instruct", "chat", None),
        ("random:3", "chat", None),
        ("oracle", "chat", None),
    ],
)
def test_infer_family(spec: str, api: str, family: str | None) -> None:
    assert infer_family(spec, api=api) == family


def test_scorer_statuses() -> None:
    def score(response: Response, family: str = "gpt-chat", cot: bool = False) -> tuple:
        e = score_convre_official(ITEM, response, family=family, cot=cot)
        return e.answer, e.status, e.method

    assert score(Response(text="B")) == ("B", "correct", "official:gpt-chat")
    assert score(Response(text="A.")) == ("A", "wrong", "official:gpt-chat")
    assert score(Response(text="The answer is B")) == (None, "unparseable", "official:gpt-chat")
    assert score(Response(text="")) == (None, "no_answer", "official:gpt-chat")
    assert score(Response(text=None)) == (None, "no_answer", "none")
    assert score(Response(error="timeout"))[1] == "failed"
    assert score(Response(choice_logprobs={"A": -3.0, "B": -1.0}))[:2] == ("B", "correct")
    top = ({" A": -2.0, " B": -0.5},)
    assert score(Response(text="Hmm", top_logprobs=top), "gpt-text") == (
        "B",
        "correct",
        "official:gpt-text/logprob",
    )
    assert score(Response(text='{"answer": "B"}'), "claude", cot=True) == (
        "B",
        "correct",
        "official:cot",
    )


def test_unknown_family_is_an_error() -> None:
    with pytest.raises(ValueError, match="gpt-chat"):
        extract_official("gpt5", "A", cot=False)
    with pytest.raises(ValueError):
        read_official("llama3", "A", ITEM, cot=False)


def test_the_detail_says_what_strict_mode_does() -> None:
    read = extract_official("internlm", "A.", cot=False)
    assert read.letter is None and read.detail is not None
    assert "strict mode raises AssertionError" in read.detail
    crash = extract_official("gpt-text", "The answer", cot=False)
    assert crash.detail is not None and "TypeError" in crash.detail


def test_cot_output_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = f"{{'thought': 'x', 'answer': __import__('os').mkdir({str(marker)!r}) or 'A'}}"
    assert extract_official("gpt-chat", payload, cot=True).letter is None
    assert not marker.exists()


@given(LITERALS, st.sampled_from(["A", "B", "C", "a", "(A)", None]))
def test_cot_rule_on_any_literal_object(value: object, answer: str | None) -> None:
    """repr() of a literal is what eval() would accept; the rule reads obj['answer'] exactly
    when it is 'A' or 'B', as the official code does."""
    obj = {"thought": value} if answer is None else {"thought": value, "answer": answer}
    read = extract_official("qwen", repr(obj).replace("\n\n", " "), cot=True)
    assert read.letter == (answer if answer in ("A", "B") else None)


@given(LITERALS)
def test_literal_value_round_trips(value: object) -> None:
    assert literal_value(repr(value)) == (True, value)


@given(
    st.text(max_size=200),
    st.sampled_from(sorted(FAMILIES)),
    st.booleans(),
    st.one_of(
        st.none(),
        st.lists(
            st.dictionaries(
                st.sampled_from([" A", " B", "A", "\n", " The"]),
                st.floats(-2000, 0, allow_nan=False),
                max_size=4,
            ),
            max_size=2,
        ),
    ),
)
def test_official_rules_never_raise_and_read_only_a_or_b(
    text: str, family: str, cot: bool, top: list[dict[str, float]] | None
) -> None:
    logprobs = tuple(top) if top is not None else None
    read = extract_official(family, text, cot=cot, first_token_logprobs=logprobs)
    assert read.letter in (None, "A", "B")
    assert read.method.startswith("official:")
    assert (read.letter is None) == (read.detail is not None) or read.method.endswith("logprob")


@given(st.text(max_size=100))
def test_chat_rule_reads_only_outputs_that_start_with_the_letter(text: str) -> None:
    read = extract_official("gpt-chat", text, cot=False)
    if read.letter is not None:
        assert text == read.letter or text[1] in ":."
        assert text[0] == read.letter
