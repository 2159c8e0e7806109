"""compose: every generated item is re-proved by verify; determinism; options; tampering."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relreason.benchmarks.compose.benchmark import BENCHMARK
from relreason.errors import UsageError
from relreason.generate.compose import DOMAINS, ComposeOptions, compose
from relreason.generate.kin_world import PREMISE_RELATIONS
from relreason.generate.lexicon import LANGUAGES, UNCERTAIN
from relreason.generate.names import UNISEX
from relreason.generate.records import dumps, load_records, write_items
from relreason.generate.verify import verify, verify_items


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**31),
    language=st.sampled_from(LANGUAGES),
    domain=st.sampled_from(DOMAINS),
    hops=st.integers(min_value=2, max_value=6),
    n_options=st.integers(min_value=2, max_value=7),
    uncertain=st.booleans(),
    fictional=st.booleans(),
)
def test_every_generated_item_is_proved(
    seed: int,
    language: str,
    domain: str,
    hops: int,
    n_options: int,
    uncertain: bool,
    fictional: bool,
) -> None:
    options = ComposeOptions(
        language=language,
        domains=(domain,),
        hops=(hops,),
        n_options=n_options,
        uncertain=uncertain,
        fictional=fictional,
        seed=seed,
        count=3,
    )
    items = compose(options)
    assert [str(p) for p in verify_items(items)] == []
    for item in items:
        assert item["hops"] == hops and item["domain"] == domain
        assert 2 <= len(item["options"]) <= n_options
        assert len(set(item["options"])) == len(item["options"])
        assert (UNCERTAIN[language] in item["options"]) == options.offers_uncertain(domain)
        assert options.offers_uncertain(domain) == uncertain
        if not uncertain:
            assert item["answer"] != "uncertain"


def test_same_seed_same_bytes_other_seed_other_items() -> None:
    options = ComposeOptions(language="ko", seed=11, count=12)
    assert dumps(compose(options)) == dumps(compose(options))
    other = compose(ComposeOptions(language="ko", seed=12, count=12))
    assert [i["question"] for i in other] != [i["question"] for i in compose(options)]


def test_long_chains_up_to_eight_hops_are_proved() -> None:
    items = compose(ComposeOptions(language="zh", hops=(7, 8), seed=3, count=12))
    assert {i["hops"] for i in items} == {7, 8}
    assert verify_items(items) == []


def test_uncertain_answers_occur_in_every_domain() -> None:
    items = compose(ComposeOptions(language="ja", seed=1, count=90))
    uncertain = {i["domain"] for i in items if i["answer"] == "uncertain"}
    assert uncertain == set(DOMAINS)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**31),
    language=st.sampled_from(LANGUAGES),
    hops=st.integers(min_value=2, max_value=6),
)
def test_kinship_is_uncertain_where_the_asked_sex_is_open(
    seed: int, language: str, hops: int
) -> None:
    options = ComposeOptions(
        language=language, domains=("kinship",), hops=(hops,), seed=seed, count=8
    )
    items = compose(options)
    assert verify_items(items) == []
    assert sum(i["answer"] == "uncertain" for i in items) == 2  # one item in 4
    for item in items:
        head, _, tail = item["query"]
        said = [p for p in item["premises"] if p[1] == "sex"]
        assert len(said) == 2 and tail in {p[0] for p in said}  # two, whatever the answer
        assert (head in item["sexes"]) == (item["answer"] != "uncertain")
        told = [p for p in item["premises"] if p[1] != "sex"]
        own = [p for p in told if head in (p[0], p[2])]
        assert all(PREMISE_RELATIONS[p[1]][1] is None for p in own)  # "parent", never "father"
        assert len(own) == 3  # the path premise and two fillers, each to a person named once
        named = Counter(x for p in told for x in (p[0], p[2]))
        assert sorted(named[p[2]] for p in own)[:2] == [1, 1]
        people = {p[0] for p in item["premises"]} | {p[2] for p in item["premises"]}
        assert {n for n in people if n not in ("male", "female")} <= set(UNISEX[language])


def test_kinship_in_every_language_is_uncertain_one_item_in_four() -> None:
    for language in LANGUAGES:
        items = compose(ComposeOptions(language=language, domains=("kinship",), seed=5, count=20))
        assert sum(i["answer"] == "uncertain" for i in items) == 5, language


@pytest.mark.parametrize("language", ["en", "zh"])
def test_verify_refuses_a_sex_no_premise_gives_and_one_left_out(language: str) -> None:
    item = compose(ComposeOptions(language=language, domains=("kinship",), seed=2, count=1))[0]
    assert verify_items([item]) == []
    tail = item["query"][2]  # the person asked from: their sex is always given
    invented = _tampered(item, "sexes", {**item["sexes"], "Nobody": "M"})
    assert "sexes" in {p.field for p in verify_items([invented])}
    dropped = _tampered(item, "sexes", {k: v for k, v in item["sexes"].items() if k != tail})
    assert "sexes" in {p.field for p in verify_items([dropped])}  # a sex the premises give
    unsaid = {p[0] for p in item["premises"]} - set(item["sexes"])
    if unsaid:  # a sex no premise gives (a word such as "parent" leaves one open)
        guessed = _tampered(item, "sexes", {**item["sexes"], min(unsaid): "F"})
        assert "sexes" in {p.field for p in verify_items([guessed])}


def _tampered(item: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(item)
    changed[field] = value
    return changed


def test_verify_names_item_and_field_of_each_problem() -> None:
    item = compose(ComposeOptions(language="en", domains=("order",), seed=4, count=1))[0]
    wrong = next(o for o in item["options"] if o != item["correct"])
    problems = verify_items([_tampered(item, "correct", wrong)])
    assert [(p.item, p.field) for p in problems] == [(item["id"], "correct")]
    swapped = _tampered(item, "options", list(reversed(item["options"])))
    assert {p.field for p in verify_items([swapped])} == {"options", "correct"}
    assert {p.field for p in verify_items([_tampered(item, "hops", 9)])} == {"hops"}
    edited = _tampered(item, "question", item["question"] + " ")
    assert {p.field for p in verify_items([edited])} == {"question"}
    assert [p.field for p in verify_items([{"question": "?"}])] == ["options"]


def test_verify_catches_a_premise_changed_under_the_answer() -> None:
    items = compose(ComposeOptions(language="fr", domains=("position",), seed=2, count=10))
    item = next(i for i in items if i["answer"] != "uncertain")
    changed = copy.deepcopy(item)
    a, relation, b = changed["premises"][0]
    changed["premises"][0] = [b, relation, a]  # the same words, the opposite fact
    fields = {p.field for p in verify_items([changed])}
    assert "question" in fields


def test_verify_and_records_read_a_written_file(tmp_path: Path) -> None:
    items = compose(ComposeOptions(language="zh", seed=9, count=6))
    path = write_items(items, tmp_path / "set.json")
    assert verify(path) == []
    records = load_records(path)
    assert [r.question for r in records] == [i["question"] for i in items]
    assert records[0].categories == tuple(items[0]["category"])
    assert records[0].options[ord(records[0].gold) - 65] == items[0]["correct"]
    assert records[0].labels()["hops"] == items[0]["hops"]
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw == items


@pytest.mark.parametrize(
    "kwargs",
    [
        {"language": "de"},
        {"domains": ("weather",)},
        {"hops": (1,)},
        {"n_options": 8},
        {"count": -1},
    ],
)
def test_bad_options_are_usage_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(UsageError):
        ComposeOptions(**kwargs)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
_ITEM = compose(ComposeOptions(language="ko", domains=("kinship",), seed=5, count=1))[0]


@settings(max_examples=200, deadline=None)
@given(field=st.sampled_from(sorted(_ITEM)), value=_JSON)
def test_verify_never_crashes_on_a_corrupted_field(field: str, value: Any) -> None:
    corrupted = _tampered(_ITEM, field, value)
    problems = verify_items([corrupted])
    if value != _ITEM[field] and field not in ("seed", "index", "id"):
        assert problems, f"{field}={value!r} went unnoticed"


def test_kin_word_usage_ranks_words_due_in_the_items_contexts() -> None:
    """A word right beside a context (and not yet wrong there) ranks first as a wrong option
    in that context; once shown wrong n-1 times there, it no longer does."""
    from relreason.generate.kin_balance import PAIRED, WordUsage, contexts

    premises = [("P0", "father", "P1"), ("P1", "father", "P2"), ("P2", "sex", "male")]
    keys = contexts(premises)
    assert keys == ["own=father", "n=3"]
    assert contexts([("P0", "parent", "P3"), *premises]) == keys  # a filler is not a context
    usage = WordUsage(4)
    item = {
        "language": "en",
        "answer": "anc:MM@M",
        "option_labels": ["anc:MM@M", "col:M:*:M@M", "desc:*M@M", "col:-:*:*M@M"],
    }
    usage.count(item, keys)
    rank = usage.due(keys)
    right, wrong = "grandfather", "uncle"
    before = rank(right)
    assert before >= PAIRED * len(keys) > rank(wrong)  # due in both contexts
    assert usage.ahead(item, keys) > 0  # its right word is right too often already
    for _ in range(3):
        usage.count({**item, "answer": "col:M:*:M@M"}, keys)
    assert usage.due(keys)(right) < before


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31), language=st.sampled_from(LANGUAGES))
def test_position_diagonals_are_right_as_often_as_sides_when_shown(
    seed: int, language: str
) -> None:
    """Relative premises name sides only, so the wrong options the asked person's premises name
    are sides; the direction counts keep a diagonal from being shown mostly as the answer."""
    items = compose(ComposeOptions(language=language, domains=("position",), seed=seed, count=160))
    sides = {"north", "south", "east", "west", "front", "back", "left", "right"}
    right: dict[tuple[str, bool], int] = {}
    shown: dict[tuple[str, bool], int] = {}
    for item in items:
        for label in item["option_labels"]:
            if label != "uncertain":
                key = (item["frame"], label not in sides)
                shown[key] = shown.get(key, 0) + 1
                right[key] = right.get(key, 0) + (label == item["answer"])
    share = {key: right[key] / shown[key] for key in shown}
    assert all(0.15 <= value <= 0.35 for value in share.values()), share
    for frame in ("compass", "relative"):
        assert abs(share[(frame, True)] - share[(frame, False)]) <= 0.15, share


@pytest.mark.parametrize(("seed", "language"), [(1, "en"), (22, "ja")])
def test_position_every_definite_option_has_one_asked_persons_premise_leaning_to_it(
    seed: int, language: str
) -> None:
    """The asked person's three premises (path step, two fillers) lean one to each definite
    option (determined and "Uncertain" items alike), and two of them are the first and the
    last premise."""
    import itertools

    from relreason.generate.balance import _turn
    from relreason.generate.kin_balance import leans

    items = compose(ComposeOptions(language=language, domains=("position",), seed=seed, count=40))
    for item in items:
        head = item["query"][0]
        own = [p for p in item["premises"] if head in (p[0], p[2])]
        read = [r if a == head else str(_turn(r)) for a, r, _ in own]
        definite = [x for x in item["option_labels"] if x != "uncertain"]
        assert len(own) == 3 == len(definite), item["id"]
        assert any(
            all(r in leans(item["frame"], label) for r, label in zip(order, definite, strict=True))
            for order in itertools.permutations(read)
        ), (item["id"], read, definite)
        assert head in item["premises"][0][::2] and head in item["premises"][-1][::2]


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31), language=st.sampled_from(LANGUAGES))
def test_quantity_numbers_do_not_tell_the_right_one(seed: int, language: str) -> None:
    """The right number is the least, the median or the greatest alike (scheduled), every item
    (Uncertain or not) shows three numbers, and exchange numbers are a shape of ratios 2-4
    between neighbours whatever place the right one takes."""
    import itertools
    from fractions import Fraction

    items = compose(ComposeOptions(language=language, domains=("quantity",), seed=seed, count=120))
    ranks = [0, 0, 0]
    for item in items:
        numbers = sorted(Fraction(o) for o in item["options"] if o[0].isdigit())
        assert len(set(numbers)) == 3
        if item["frame"] == "exchange":
            assert {b / a for a, b in itertools.pairwise(numbers)} <= {2, 3, 4}
        if item["answer"] != "uncertain":
            ranks[numbers.index(Fraction(item["correct"]))] += 1
    assert all(0.2 <= r / sum(ranks) <= 0.47 for r in ranks), ranks


def test_the_compose_benchmarks_listing_names_the_generators_domains() -> None:
    """The listing writes the names out (it must not import ``generate/``)."""
    assert BENCHMARK.listing()["domains"] == list(DOMAINS)
