"""Records that mean one thing: answers entailed, labels agreeing with the sexes, no two options
true together; label patterns exact; verify catches each kind of contradiction."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from relreason.generate import kin_words, label_patterns
from relreason.generate.compose import ComposeOptions, compose
from relreason.generate.label_universe import kin_labels
from relreason.generate.lexicon import LANGUAGES
from relreason.generate.solver import solve
from relreason.generate.verify import verify_items


@settings(max_examples=40, deadline=None)
@given(subset=st.sets(st.sampled_from(kin_labels()[:80]), min_size=1, max_size=12))
def test_a_pattern_matches_exactly_its_labels(subset: set[str]) -> None:
    universe = kin_labels()
    pattern = label_patterns.describe(subset, universe)
    assert set(label_patterns.expand(pattern, universe)) == subset


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), language=st.sampled_from(LANGUAGES))
def test_kinship_records_mean_what_their_models_entail(seed: int, language: str) -> None:
    items = compose(ComposeOptions(language=language, domains=("kinship",), seed=seed, count=3))
    assert verify_items(items) == []
    for item in items:
        head, _, tail = item["query"]
        models = solve(item["premises"], item["query"])
        sexes = item["sexes"]
        for label in item["option_labels"]:
            if label == "uncertain":
                continue
            meant = label_patterns.expand(label, kin_labels())
            assert meant, label
            assert all(m.endswith("@" + sexes[tail]) for m in meant)  # Y's sex as stated
            # X's sex as stated; left open (English, French): the word's own, one for all
            x_sex = sexes.get(head, kin_words.head_sex(meant[0]))
            assert all(kin_words.head_sex(m) == x_sex for m in meant)
        if item["answer"] != "uncertain":
            assert all(label_patterns.matches(item["answer"], m) for m in models)
        words = [kin_words.word_of(language, x) for x in item["option_labels"] if x != "uncertain"]
        for i, first in enumerate(words):
            for second in words[i + 1 :]:
                assert first and second and not kin_words.overlap(language, first, second)


def test_an_open_sibling_order_is_brother_in_english_and_uncertain_in_chinese() -> None:
    premises = [("A", "younger_brother", "B"), ("B", "older_sister", "C"), ("C", "sex", "male")]
    models = solve(premises, ("A", "?", "C"))
    assert kin_words.answer_word("en", models) == "brother"
    assert kin_words.answer_word("zh", models) == "uncertain"
    english = kin_words.pattern("en", "brother", "M", "M")
    assert english == "col:-:*:M@M"  # older or younger: the record says neither
    assert all(label_patterns.matches(english, m) for m in models)


def test_korean_cover_words() -> None:
    # A is B's brother (age open), B is C's father: 큰아버지 or 작은아버지 -> 삼촌 covers both.
    premises = [("A", "younger_brother", "D"), ("D", "older_brother", "B"), ("B", "father", "C")]
    premises.append(("C", "sex", "female"))
    models = solve(premises, ("A", "?", "C"))
    assert {kin_words.word_of("ko", m) for m in models} == {"큰아버지", "작은아버지"}
    assert kin_words.answer_word("ko", models) == "삼촌"
    assert kin_words.overlap("ko", "삼촌", "작은아버지")
    assert kin_words.overlap("ko", "조카", "조카딸")
    assert not kin_words.overlap("ko", "조카딸", "삼촌")


def _korean_item() -> dict:
    items = compose(ComposeOptions(language="ko", domains=("kinship",), seed=3, count=12))
    return next(i for i in items if i["answer"] != "uncertain")


def test_verify_flags_two_options_true_together() -> None:
    item = _korean_item()
    changed = copy.deepcopy(item)
    answer = kin_words.word_of("ko", item["answer"])
    assert answer is not None
    head, _, tail = item["query"]
    i = next(
        j for j, x in enumerate(item["option_labels"]) if x not in ("uncertain", item["answer"])
    )
    # Offer the answer's word a second time under another option: both are true.
    changed["option_labels"][i] = item["answer"]
    changed["options"][i] = item["correct"]
    messages = [p.message for p in verify_items([changed])]
    assert any("also right" in m or "both true" in m for m in messages), messages
    assert kin_words.pattern("ko", answer, item["sexes"][tail], item["sexes"][head])


def test_verify_flags_a_label_of_the_wrong_sex_and_an_unstated_sex() -> None:
    item = _korean_item()
    wrong = copy.deepcopy(item)
    j = next(k for k, x in enumerate(item["option_labels"]) if x != "uncertain")
    label = item["option_labels"][j]
    wrong["option_labels"][j] = label[:-1] + ("M" if label.endswith("F") else "F")
    assert "option_labels" in {p.field for p in verify_items([wrong])}
    unstated = copy.deepcopy(item)
    unstated["premises"] = [p for p in item["premises"] if p[1] != "sex"]
    fields = {p.field for p in verify_items([unstated])}
    assert "sexes" in fields or "premises" in fields
