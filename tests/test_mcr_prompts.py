"""MCR prompts, items, names and figures, checked against the official data and ``main.py``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.benchmarks.mcr import data as mcr_data
from relreason.benchmarks.mcr import prompts as mcr
from relreason.errors import UsageError
from relreason.records.context import chance_level

LONG = {"en": "english", "zh": "chinese", "fr": "french", "ja": "japanese", "ko": "korean"}
SIZES = {"en": 1598, "zh": 1587, "fr": 1598, "ja": 1597, "ko": 1598}  # the release files' lengths
PAPER_TABLE1 = {  # paper Table 1, per category, "for each language" (English file)
    "Positional": 347,
    "Comparative": 325,
    "Personal": 333,
    "Mathematical": 326,
    "Identity": 242,
    "Other": 307,
}
PAPER_RANDOM_GUESS = 25.13  # paper Table 4, "Random Guess"


def _raw(shared_data: Path, code: str) -> list[dict[str, Any]]:
    path = shared_data / "mcr" / f"composition_{LONG[code]}.json"
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _reference_prompt(
    entry: dict[str, Any], method: str, exemplars: dict[str, str], lang: str
) -> str:
    """Straight-line copy of the official ``main.py`` formula, independent of the module."""
    x = "Q: " + entry["question"].strip() + " Answer choices: "
    letter = 65
    for option in entry["options"]:
        x += chr(letter) + ") " + option + " "
        letter += 1
    x += "\nA:"
    if method == "zs":
        return x + " Among options, the answer is"
    if method == "zsc":
        return x + " Let's think step by step."
    if method == "fs":
        return exemplars[lang] + x
    if method == "fs-english":
        return exemplars["english"] + x
    if method == "fs-multilingual":
        return exemplars["multilingual"] + x
    raise AssertionError(method)


def test_sizes_match_the_release(shared_data: Path) -> None:
    for code, size in SIZES.items():
        assert len(mcr_data.load_questions(code, shared_data)) == size
        assert len(mcr_data.load_questions(LONG[code].upper(), shared_data)) == size


def test_categories_and_chinese_mapping(shared_data: Path) -> None:
    assert set(mcr_data.CATEGORY_ZH.values()) == set(mcr_data.CATEGORIES)
    assert len(mcr_data.CATEGORIES) == 6
    raw_zh = _raw(shared_data, "zh")
    assert {name for entry in raw_zh for name in entry["category"]} == set(mcr_data.CATEGORY_ZH)
    for entry, question in zip(raw_zh, mcr_data.load_questions("zh", shared_data), strict=True):
        assert question.categories == tuple(mcr_data.CATEGORY_ZH[c] for c in entry["category"])
    english = Counter(c for q in mcr_data.load_questions("en", shared_data) for c in q.categories)
    assert dict(english) == PAPER_TABLE1


def test_every_prompt_matches_the_reference_formula(shared_data: Path) -> None:
    exemplars = json.loads((shared_data / "mcr" / "exemplars_official.json").read_text("utf-8"))
    for code, lang in LONG.items():
        raw = _raw(shared_data, code)
        for method in mcr_data.METHODS:
            items = mcr.build_items(code, method, data_dir=shared_data)
            assert len(items) == len(raw)
            for i, (entry, item) in enumerate(zip(raw, items, strict=True)):
                assert item.prompt == _reference_prompt(entry, method, exemplars, lang)
                assert item.index == i
                assert item.item_id == f"{code}/{i}"
                assert item.choice_texts == tuple(entry["options"])
                assert item.choices == tuple("ABCDEFG"[: len(entry["options"])])
                assert item.choice_texts[item.choices.index(item.gold)] == entry["correct"]
                assert item.labels["language"] == code
                assert item.labels["n_options"] == len(entry["options"])
                assert "n_relations" not in item.labels


def test_first_english_question_by_hand(shared_data: Path) -> None:
    x = (
        "Q: Grass carp belong to the order Cypriniformes, which is part of the sub-class "
        "Actinopterygii. To which class do grass carp belong? Answer choices: "
        "A) Sub-class Actinopterygii B) Sub-class Dipnoi C) Order Perciformes "
        "D) Sub-class Sarcopterygii \nA:"
    )
    first = {m: mcr.build_items("en", m, data_dir=shared_data)[0] for m in mcr_data.METHODS}
    assert first["zs"].prompt == x + " Among options, the answer is"
    assert first["zsc"].prompt == x + " Let's think step by step."
    fs = first["fs"].prompt
    assert fs.startswith("\nQ:Ruby is George's elder sister. Lucy's elder brother is George.")
    assert fs.endswith("E)Uncertain\nA:D) 91\n" + x)
    assert fs.count("\nQ:") == 6 and fs.count("\nQ: ") == 1  # 5 exemplars, then x
    assert first["zs"].gold == "A"
    assert first["zs"].labels["categories"] == ["Other"]


def test_exemplar_choice_per_method(shared_data: Path) -> None:
    blocks = {key: f"<{key}>\n" for key in mcr_data.EXEMPLAR_KEYS}
    zs = mcr.build_items("fr", "zs", data_dir=shared_data)[5].prompt
    x = zs.removesuffix(" Among options, the answer is")
    for method, key in (
        ("fs", "french"),
        ("fs-english", "english"),
        ("fs-multilingual", "multilingual"),
    ):
        item = mcr.build_items("fr", method, data_dir=shared_data, exemplars=blocks)[5]
        assert item.prompt == blocks[key] + x


def test_exemplar_file_by_path(shared_data: Path, tmp_path: Path) -> None:
    blocks = {key: f"[{key} block]\n" for key in mcr_data.EXEMPLAR_KEYS}
    path = tmp_path / "ex.json"
    path.write_text(json.dumps(blocks), encoding="utf-8")
    assert mcr_data.load_exemplars(path) == blocks
    item = mcr.build_items("ko", "fs", data_dir=shared_data, exemplars=path)[0]
    assert item.prompt.startswith("[korean block]\nQ: ")
    official = mcr_data.load_exemplars(data_dir=shared_data)
    assert set(official) == set(mcr_data.EXEMPLAR_KEYS)


def test_build_task(shared_data: Path) -> None:
    scoring = pytest.importorskip("relreason.benchmarks.mcr.scoring")
    task = mcr.build_task("Japanese", "zero_shot_cot", mode="paper", data_dir=shared_data)
    assert task.benchmark == "mcr" and task.name == "mcr/ja/zsc"
    assert len(task.items) == SIZES["ja"]
    # Paper mode reads the reasoning itself, as the official code did: no second stage.
    assert task.second_stage is None
    robust = mcr.build_task("ja", "zsc", mode="robust", data_dir=shared_data)
    assert robust.second_stage is scoring.zsc_second_stage
    desc = json.loads(json.dumps(task.description))
    assert desc["language"] == "ja" and desc["method"] == "zsc" and desc["mode"] == "paper"
    assert desc["exemplars"] is None
    fs = mcr.build_task("en", "fs", data_dir=shared_data)
    assert fs.second_stage is None
    assert fs.description["exemplars"] == "official" and fs.description["mode"] == "robust"
    assert fs.scorer.keywords == {"mode": "robust", "few_shot": True}  # type: ignore[attr-defined]
    assert task.scorer.keywords == {"mode": "paper", "few_shot": False}  # type: ignore[attr-defined]
    with pytest.raises(UsageError, match="mode"):
        mcr.build_task("en", "zs", mode="lenient", data_dir=shared_data)


def test_task_description_rebuilds_the_task(shared_data: Path, tmp_path: Path) -> None:
    pytest.importorskip("relreason.benchmarks.mcr.scoring")
    from relreason.run.plan import task_from_description as build_task_from_description

    blocks = {key: f"[{key}]\n" for key in mcr_data.EXEMPLAR_KEYS}
    path = tmp_path / "ex.json"
    path.write_text(json.dumps(blocks), encoding="utf-8")
    task = mcr.build_task("zh", "fs", mode="paper", data_dir=shared_data, exemplars=path)
    desc = json.loads(json.dumps(task.description))
    assert desc["exemplars"] == "file" and desc["exemplars_path"] == str(path.resolve())
    again = build_task_from_description(desc, shared_data)
    assert again.name == task.name == "mcr/zh/fs"
    assert again.items == task.items
    assert again.items[0].prompt.startswith("[chinese]\nQ: ")
    assert dict(again.description) == dict(task.description)


def test_translated_items_carry_the_english_option_texts(shared_data: Path) -> None:
    english = _raw(shared_data, "en")
    for code in ("fr", "ko", "ja"):  # translated item by item (ja: less English question 511)
        items = mcr.build_items(code, "zs", data_dir=shared_data)
        originals = english[:511] + english[512:] if code == "ja" else english
        assert [item.english_choice_texts for item in items] == [
            tuple(entry["options"]) for entry in originals
        ]
        pairs = zip(_raw(shared_data, code), originals, strict=True)
        assert all(len(a["options"]) == len(b["options"]) for a, b in pairs)
    for code in ("en", "zh"):  # the English file itself; other questions
        items = mcr.build_items(code, "zs", data_dir=shared_data)
        assert all(item.english_choice_texts == () for item in items)


@pytest.mark.parametrize(
    ("change", "aligned"),
    [
        ("fewer options in one item", False),
        ("the gold moved in one item", True),  # one pair in a hundred may differ
        ("the gold moved in twenty items", False),
        ("one question dropped", True),
        ("two questions dropped", False),
    ],
)
def test_a_french_file_out_of_step_with_the_english_one_gets_no_english_texts(
    data_copy: Path, change: str, aligned: bool
) -> None:
    path = data_copy / "mcr" / "composition_french.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    if change == "fewer options in one item":
        raw[7]["options"] = raw[7]["options"][:2]
        raw[7]["correct"] = raw[7]["options"][0]
    for i in range(
        {"the gold moved in one item": 1, "the gold moved in twenty items": 20}.get(change, 0)
    ):
        options = raw[i]["options"]
        raw[i]["correct"] = options[(options.index(raw[i]["correct"]) + 1) % len(options)]
    if change.endswith("dropped"):
        del raw[600 : 601 if change.startswith("one") else 602]
    path.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    items = mcr.build_items("fr", "zs", data_dir=data_copy)
    assert all(bool(item.english_choice_texts) == aligned for item in items)


def test_random_guess_reproduces_the_paper(shared_data: Path) -> None:
    def chance(*languages: str) -> float | None:
        return chance_level(
            item for code in languages for item in mcr.build_items(code, "zs", data_dir=shared_data)
        )

    english = chance("en")
    assert english is not None and round(100 * english, 2) == PAPER_RANDOM_GUESS
    pooled = chance(*mcr_data.LANGUAGES)
    assert pooled is not None and round(100 * pooled, 2) == PAPER_RANDOM_GUESS
    # The figure is not the Chinese file's own (fewer, different questions).
    assert round(100 * (chance("zh") or 0), 2) != PAPER_RANDOM_GUESS
    by_hand = [1 / len(e["options"]) for e in _raw(shared_data, "en")]
    assert english == pytest.approx(sum(by_hand) / len(by_hand))


def test_building_everything_counts(shared_data: Path) -> None:
    """Every language x method builds one prompt per question (speed: benchmarks/)."""
    mcr_data._QUESTION_CACHE.clear()
    mcr_data._EXEMPLAR_CACHE.clear()
    total = sum(
        len(mcr.build_items(code, method, data_dir=shared_data))
        for code in mcr_data.LANGUAGES
        for method in mcr_data.METHODS
    )
    assert total == 5 * sum(SIZES.values())


@given(st.sampled_from(sorted(LONG.items())), st.data())
def test_language_names_any_case(pair: tuple[str, str], data: st.DataObject) -> None:
    code, long_name = pair
    name = data.draw(st.sampled_from([code, long_name]))
    flips = data.draw(st.lists(st.booleans(), min_size=len(name), max_size=len(name)))
    mixed = "".join(c.upper() if f else c for c, f in zip(name, flips, strict=True))
    assert mcr_data.normalize_language(mixed) == code


@given(st.text(max_size=12))
def test_unknown_language_lists_valid_names(name: str) -> None:
    known = {n.lower() for pair in LONG.items() for n in pair}
    if name.strip().lower() in known:
        assert mcr_data.normalize_language(name) in LONG
        return
    with pytest.raises(UsageError) as error:
        mcr_data.normalize_language(name)
    assert "en (english)" in str(error.value) and "ko (korean)" in str(error.value)


def test_method_names() -> None:
    for method in mcr_data.METHODS:
        assert mcr_data.normalize_method(method.upper()) == method
    assert mcr_data.normalize_method("few_shot_multilingual") == "fs-multilingual"
    assert mcr_data.normalize_method("zero_shot") == "zs"
    for bad in ("few", "fs-german", "", "cot"):
        with pytest.raises(UsageError, match="zs, zsc, fs, fs-english, fs-multilingual"):
            mcr_data.normalize_method(bad)


_option = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=15)


@given(
    question=st.text(alphabet=st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=40),
    options=st.lists(_option, min_size=1, max_size=7, unique=True),
    pick=st.integers(min_value=0, max_value=6),
)
def test_question_block_property(question: str, options: list[str], pick: int) -> None:
    correct = options[pick % len(options)]
    q = mcr_data.Question(0, question, correct, tuple(options), ("Other",))
    block = mcr_data.question_block(q)
    assert block == _reference_prompt(
        {"question": question, "options": options}, "fs", {"xx": ""}, "xx"
    )
    assert block.startswith("Q: " + question.strip() + " Answer choices: A) ")
    assert block.endswith(" \nA:")
    assert options[ord(q.gold) - 65] == correct


def test_without_the_english_file_french_items_build_without_english_texts(
    data_copy: Path,
) -> None:
    (data_copy / "mcr" / "composition_english.json").unlink()
    items = mcr.build_items("fr", "zs", data_dir=data_copy)
    assert len(items) == SIZES["fr"]
    assert all(item.english_choice_texts == () for item in items)
