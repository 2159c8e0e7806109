"""ConvRe items and prompts against the official data and the official
``utils/data_processor.py`` (``ConvReProcessor.construct_prompt``), byte for byte."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.benchmarks.convre import data as convre_data
from relreason.benchmarks.convre.prompts import (
    ConvReSetting,
    build_items,
    build_task,
    load_triples,
    neutralize,
    paper_setting,
    setting_id_of,
)
from relreason.benchmarks.convre.settings import KNOBS
from relreason.errors import UsageError

TASK_NAMES = ("re2text", "text2re")

# The paper's settings (Tables 2-4, the prompt ids of Table 9, the official README):
# id: (prompt, relation, n_shot, example_type, text_type re2text, text_type text2re)
PAPER_TABLE = {
    1: ("normal", "normal", 0, "regular", "regular", "hard"),
    2: ("normal", "normal", 0, "regular", "hard", "regular"),
    3: ("normal", "converse", 0, "regular", "regular", "hard"),
    4: ("normal", "converse", 0, "regular", "hard", "regular"),
    5: ("hint", "converse", 0, "regular", "regular", "hard"),
    6: ("hint", "converse", 0, "regular", "hard", "regular"),
    7: ("normal", "converse", 3, "hard", "hard", "hard"),
    8: ("hint+cot", "converse", 3, "hard", "hard", "hard"),
    9: ("normal", "converse", 6, "hard", "hard", "hard"),
    10: ("normal", "converse", 3, "regular", "hard", "hard"),
    11: ("hint+cot", "converse", 3, "regular", "hard", "hard"),
    12: ("normal", "converse", 6, "regular", "hard", "hard"),
}


def _json(data: Path, name: str) -> Any:
    return json.loads((data / "convre" / name).read_text(encoding="utf-8"))


# ---- an independent reference, transcribed from the official construct_prompt -------------


def reference_prompts(data: Path, task: str, knobs: tuple[Any, ...], subset: bool) -> list[str]:
    """Straight-line transcription of the official ``construct_prompt``'s string formula (no
    shared helpers)."""
    prompt_knob, relation, n_shot, example_type, text_type = knobs
    triples_file = "triple_subset.json" if subset else "triple_dataset.json"
    dataset = _json(data, triples_file)
    relations = _json(data, task + "_relations.json")
    examples = _json(data, task + "_examples.json")
    out = []
    for key in dataset:
        for t in dataset[key]:
            R = relations[key]
            if n_shot > 0:
                if "cot" in prompt_knob:
                    example_list = examples[example_type + "-cot"]
                else:
                    example_list = examples[example_type]
                F = ""
                for example in example_list[:n_shot]:
                    F = F + "\n" + example
                F = F + "\n"
            else:
                F = "\n"
            I = "Instruction: " + R[relation]  # noqa: E741 - a one-letter name, as in the formula
            if task == "re2text":
                REL = t["relation"].split(",")[-1].strip()
                Q = "Question: (?, " + REL + ", " + t["tail"] + ")"
                other_relation = "converse" if relation == "normal" else "normal"
                other_text_type = "regular" if text_type == "hard" else "hard"
                correct = R[relation + "-" + text_type]
                wrong = R[other_relation + "-" + other_text_type]
                GOAL = "natural language sentence"
            else:
                Q = "Question: " + R[text_type].replace("[N]", t["tail"])
                correct = R[relation + "-correct"]
                wrong = R[relation + "-wrong"]
                GOAL = "triple query"
            correct = correct.replace("[N]", t["tail"])
            wrong = wrong.replace("[N]", t["tail"])
            if t["answer"] == "A":
                A, B = correct, wrong
            else:
                A, B = wrong, correct
            if "hint" in prompt_knob:
                H = (
                    " Note that in this task, if the relation is defined in a converse manner,"
                    " unlike the conventional definition, you should carefully choose the answer."
                )
                HR = "Look out for the ORDER of the entities in the instruction!"
            else:
                H = ""
                HR = ""
            if "cot" in prompt_knob:
                C = (
                    " Your answer should be in JSON format with the following keys:"
                    " thought, answer."
                )
            else:
                C = ""
            out.append(
                "Read the instruction and then answer the question using A or B."
                + H
                + C
                + "\n"
                + F
                + I
                + "\n"
                + Q
                + "\nA: "
                + A
                + "\nB: "
                + B
                + "\nTo convert the question into a semantically equivalent "
                + GOAL
                + ", which choice is correct? "
                + HR
                + "\nAnswer:"
            )
    return out


def _knobs(task: str, setting_id: int) -> tuple[Any, ...]:
    prompt, relation, n_shot, example_type, re2text_text, text2re_text = PAPER_TABLE[setting_id]
    text_type = re2text_text if task == "re2text" else text2re_text
    return (prompt, relation, n_shot, example_type, text_type)


@pytest.mark.parametrize("task", TASK_NAMES)
@pytest.mark.parametrize("setting_id", list(PAPER_TABLE))
def test_every_prompt_matches_the_reference(shared_data: Path, task: str, setting_id: int) -> None:
    items = build_items(task, setting_id, data_dir=shared_data)
    expected = reference_prompts(shared_data, task, _knobs(task, setting_id), subset=False)
    assert len(items) == len(expected) == 1240
    for item, prompt in zip(items, expected, strict=True):
        assert item.prompt == prompt, item.item_id


@pytest.mark.parametrize("task", TASK_NAMES)
@pytest.mark.parametrize("setting_id", [1, 8, 12])
def test_subset_prompts_match_the_reference(shared_data: Path, task: str, setting_id: int) -> None:
    items = build_items(task, setting_id, subset=True, data_dir=shared_data)
    expected = reference_prompts(shared_data, task, _knobs(task, setting_id), subset=True)
    assert [item.prompt for item in items] == expected


@pytest.mark.parametrize("task", TASK_NAMES)
def test_custom_setting_matches_the_reference(shared_data: Path, task: str) -> None:
    setting = ConvReSetting("hint", "normal", 10, "regular", "hard")
    assert setting_id_of(task, setting) is None
    items = build_items(task, setting, data_dir=shared_data)
    knobs = ("hint", "normal", 10, "regular", "hard")
    assert [i.prompt for i in items] == reference_prompts(shared_data, task, knobs, subset=False)


# ---- a few prompts spelled out by hand from the data files ----------------------------------

HEAD = "Read the instruction and then answer the question using A or B."
HINT = (
    " Note that in this task, if the relation is defined in a converse manner, unlike the "
    "conventional definition, you should carefully choose the answer."
)
COT = " Your answer should be in JSON format with the following keys: thought, answer."
REMIND = "Look out for the ORDER of the entities in the instruction!"
RE2TEXT_END = (
    "To convert the question into a semantically equivalent natural language sentence, "
    "which choice is correct? "
)
TEXT2RE_END = (
    "To convert the question into a semantically equivalent triple query, which choice is correct? "
)

# hypernym/0 is (scabious, hypernym, flower), answer A.
HAND_WRITTEN = {
    ("re2text", 1): (
        "Read the instruction and then answer the question using A or B.\n"
        "\n"
        "Instruction: (x, hypernym, y) indicates that y is the hypernym of x.\n"
        "Question: (?, hypernym, flower)\n"
        "A: Find an entity so that flower is the hypernym of it.\n"
        "B: Find an entity that is more general than flower.\n"
        "To convert the question into a semantically equivalent natural language sentence, "
        "which choice is correct? \n"
        "Answer:"
    ),
    ("re2text", 5): (
        HEAD + HINT + "\n"
        "\n"
        "Instruction: (x, hypernym, y) indicates that x is the hypernym of y.\n"
        "Question: (?, hypernym, flower)\n"
        "A: Find an entity that is the hypernym of flower.\n"
        "B: Find an entity so that flower is more general than it.\n" + RE2TEXT_END + REMIND + "\n"
        "Answer:"
    ),
    ("re2text", 8): (
        HEAD + HINT + COT + "\n"
        "\n"
        "Instruction: (x, works for, y) indicates that y works for x.\n"
        "Question: (?, works for, anthony fauci)\n"
        "A: Find an entity that works for anthony fauci.\n"
        "B: Find an entity that anthony fauci is employed by.\n"
        "To convert the question into a semantically equivalent natural language sentence, "
        "which choice is correct?\n"
        "Answer: {'thought': \"Let's think step by step. Firstly, the question is asking for x. "
        "Then, the instruction indicates y works for x. According to the question, y is anthony "
        "fauci, and therefore anthony fauci works for x. So x is the employer of anthony fauci, "
        "the answer is B.\", 'answer': 'B'}\n"
        "\n"
        "Instruction: (x, bigger than, y) indicates that y is bigger than x.\n"
        "Question: (?, bigger than, elephant)\n"
        "A: Find an entity that is smaller than elephant.\n"
        "B: Find an entity that is bigger than elephant.\n"
        "To convert the question into a semantically equivalent natural language sentence, "
        "which choice is correct?\n"
        "Answer: {'thought': \"Let's think step by step. Firstly, the question is asking for x. "
        "Then, the instruction indicates y is bigger than x. According to the question, y is "
        "elephant, and therefore elephant is bigger than x. So x is smaller than elephant, the "
        "answer is A.\", 'answer': 'A'}\n"
        "\n"
        "Instruction: (x, in the south of, y) indicates that y is in the south of x.\n"
        "Question: (?, in the south of, china)\n"
        "A: Find an entity that is in the north of china.\n"
        "B: Find an entity that is in the south of china.\n"
        "To convert the question into a semantically equivalent natural language sentence, "
        "which choice is correct?\n"
        "Answer: {'thought': \"Let's think step by step. Firstly, the question is asking for x. "
        "Then, the instruction indicates y is in the south of x. According to the question, y is "
        "china, and therefore china is in the south of x. So x is in the north of china, the "
        "answer is A.\", 'answer': 'A'}\n"
        "\n"
        "Instruction: (x, hypernym, y) indicates that x is the hypernym of y.\n"
        "Question: (?, hypernym, flower)\n"
        "A: Find an entity that is more general than flower.\n"
        "B: Find an entity so that flower is the hypernym of it.\n" + RE2TEXT_END + REMIND + "\n"
        "Answer:"
    ),
    ("text2re", 1): (
        "Read the instruction and then answer the question using A or B.\n"
        "\n"
        "Instruction: (x, hypernym, y) indicates that y is the hypernym of x.\n"
        "Question: Find an entity that is the hypernym of flower.\n"
        "A: (flower, hypernym, ?)\n"
        "B: (?, hypernym, flower)\n"
        "To convert the question into a semantically equivalent triple query, which choice is "
        "correct? \n"
        "Answer:"
    ),
    ("text2re", 5): (
        HEAD + HINT + "\n"
        "\n"
        "Instruction: (x, hypernym, y) indicates that x is the hypernym of y.\n"
        "Question: Find an entity that is the hypernym of flower.\n"
        "A: (?, hypernym, flower)\n"
        "B: (flower, hypernym, ?)\n" + TEXT2RE_END + REMIND + "\n"
        "Answer:"
    ),
    ("text2re", 8): (
        HEAD + HINT + COT + "\n"
        "\n"
        "Instruction: (x, works for, y) indicates that y works for x.\n"
        "Question: Find an entity that works for anthony fauci.\n"
        "A: (?, works for, anthony fauci)\n"
        "B: (anthony fauci, works for, ?)\n"
        "To convert the question into a semantically equivalent triple query, which choice is "
        "correct?\n"
        "Answer: {'thought': \"Let's think step by step. Firstly, we need to find an entity that "
        "works for anthony fauci. Then (x, works for, y) indicates that y works for x. So y works "
        'for anthony fauci, the answer is (anthony fauci, works for, ?)", \'answer\': "B"}\n'
        "\n"
        "Instruction: (x, bigger than, y) indicates that y is bigger than x.\n"
        "Question: Find an entity that is bigger than elephant.\n"
        "A: (elepahnt, bigger than, ?)\n"
        "B: (?, bigger than, elephant)\n"
        "To convert the question into a semantically equivalent triple query, which choice "
        "should you choose?\n"
        "Answer: {'thought': \"Let's think step by step. Firstly, we need to find an entity that "
        "is bigger than elephant. Then (x, bigger than, y) indicates that y is bigger than x. So "
        'y is bigger than elephant, the answer is (elephant, bigger than, ?)", \'answer\': "A"}\n'
        "\n"
        "Instruction: (x, in the south of, y) indicates that y is in the south of x.\n"
        "Question: Find an entity that is in the south of china.\n"
        "A: (china, in the south of, ?)\n"
        "B: (?, in the south of, china)\n"
        "To convert the question into a semantically equivalent triple query, which choice "
        "should you choose?\n"
        "Answer: {'thought': \"Let's think step by step. Firstly, we need to find an entity that "
        "is in the south of china. Then (x, in the south of, y) indicates that y is in the south "
        'of x. So y is in the south of china, the answer is (china, in the south of, ?)", '
        "'answer': \"A\"}\n"
        "\n"
        "Instruction: (x, hypernym, y) indicates that x is the hypernym of y.\n"
        "Question: Find an entity that is the hypernym of flower.\n"
        "A: (?, hypernym, flower)\n"
        "B: (flower, hypernym, ?)\n" + TEXT2RE_END + REMIND + "\n"
        "Answer:"
    ),
}


@pytest.mark.parametrize(("task", "setting_id"), list(HAND_WRITTEN))
def test_hand_written_prompt(shared_data: Path, task: str, setting_id: int) -> None:
    item = build_items(task, setting_id, data_dir=shared_data)[0]
    assert item.item_id == "hypernym/0"
    assert item.prompt == HAND_WRITTEN[(task, setting_id)]
    assert item.gold == "A"
    lines = item.prompt.split("\n")
    assert item.choice_texts == (lines[-4][3:], lines[-3][3:])


def test_hand_written_answer_b_and_long_relation_key(shared_data: Path) -> None:
    """organization .../1 is (Miramax Films, ..., Dimension Films), answer B; setting 2."""
    key = "organization , organization , child. , organization , organization relationship , child"
    item = build_items("re2text", 2, data_dir=shared_data)[159]
    assert item.item_id == key + "/1"
    assert item.prompt == (
        "Read the instruction and then answer the question using A or B.\n"
        "\n"
        "Instruction: (x, child, y) indicates that y is the child company of x.\n"
        "Question: (?, child, Dimension Films)\n"
        "A: Find a company that is the child company of Dimension Films.\n"
        "B: Find a company that is the parent company of Dimension Films.\n"
        "To convert the question into a semantically equivalent natural language sentence, "
        "which choice is correct? \n"
        "Answer:"
    )
    assert item.gold == "B"
    assert item.choice_texts == (
        "Find a company that is the child company of Dimension Films.",
        "Find a company that is the parent company of Dimension Films.",
    )
    assert item.labels["relation"] == key
    assert item.labels["relation_name"] == "child"
    assert item.labels["source"] == "FB15K-237/FreeBase"
    assert item.labels["head"] == "Miramax Films"
    assert item.labels["tail"] == "Dimension Films"
    assert item.labels["task"] == "re2text"


# ---- counts, order, golds, labels ---------------------------------------------------------


@pytest.mark.parametrize(("subset", "count"), [(False, 1240), (True, 328)])
def test_counts_order_and_golds(shared_data: Path, subset: bool, count: int) -> None:
    raw = _json(shared_data, "triple_subset.json" if subset else "triple_dataset.json")
    expected = [(k, i, t) for k in raw for i, t in enumerate(raw[k])]
    triples = load_triples(shared_data, subset)
    assert len(triples) == len(expected) == count
    for task in TASK_NAMES:
        items = build_items(task, 3, subset=subset, data_dir=shared_data)
        assert len(items) == count
        for index, (item, triple, (key, pos, t)) in enumerate(
            zip(items, triples, expected, strict=True)
        ):
            assert (triple.relation_key, triple.position, triple.head, triple.tail) == (
                key,
                pos,
                t["head"],
                t["tail"],
            )
            assert item.index == index
            assert item.item_id == f"{key}/{pos}"
            assert item.gold == t["answer"] == triple.answer
            assert item.choices == ("A", "B")
            assert f"\nA: {item.choice_texts[0]}\nB: {item.choice_texts[1]}\n" in item.prompt
            assert item.labels["relation"] == key
            assert item.labels["head"] == t["head"] and item.labels["tail"] == t["tail"]
            assert item.labels["task"] == task


def test_gold_choice_is_the_correct_template(shared_data: Path) -> None:
    """In text2re setting 1 (normal relation) the gold text is R['normal-correct'] filled in."""
    relations = _json(shared_data, "text2re_relations.json")
    for item in build_items("text2re", 1, data_dir=shared_data):
        correct = relations[item.labels["relation"]]["normal-correct"]
        gold_text = item.choice_texts[item.choices.index(item.gold)]
        assert gold_text == correct.replace("[N]", item.labels["tail"])


def test_labels_name_the_source_of_every_relation(shared_data: Path) -> None:
    items = build_items("re2text", 1, data_dir=shared_data)
    sources = {item.labels["relation"]: item.labels["source"] for item in items}
    assert len(sources) == 17
    assert "unknown" not in sources.values()
    assert sources["hypernym"] == "WN18RR/WordNet"
    assert sources["consult"] == "ICEWS14/ICEWS"
    assert sources["used for"] == "ConceptNet5/ConceptNet"
    names = {item.labels["relation"]: item.labels["relation_name"] for item in items}
    assert names["location , location , partially contains"] == "partially contains"


# ---- settings ---------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASK_NAMES)
def test_paper_settings_table(task: str) -> None:
    for setting_id in PAPER_TABLE:
        setting = paper_setting(task, setting_id)
        assert dataclasses.astuple(setting) == _knobs(task, setting_id)
        assert setting_id_of(task, setting) == setting_id


def test_settings_1_to_6_differ_in_text_type_between_tasks() -> None:
    for setting_id in range(1, 7):
        re2text, text2re = (paper_setting(t, setting_id) for t in TASK_NAMES)
        assert re2text.text_type != text2re.text_type
        assert dataclasses.replace(re2text, text_type=text2re.text_type) == text2re


@pytest.mark.parametrize(
    ("call", "listed"),
    [
        (lambda: paper_setting("re2txt", 1), "re2text, text2re"),
        (lambda: paper_setting("re2text", 13), "1, 2, 3"),
        (lambda: paper_setting("re2text", 0), "12"),
        (lambda: setting_id_of("nope", ConvReSetting()), "re2text, text2re"),
        (lambda: ConvReSetting(prompt="cot"), "normal, hint, hint+cot"),
        (lambda: ConvReSetting(relation="inverse"), "normal, converse"),
        (lambda: ConvReSetting(example_type="easy"), "hard, regular"),
        (lambda: ConvReSetting(text_type="easy"), "hard, regular"),
        (lambda: ConvReSetting(n_shot=11), "0..10"),
        (lambda: ConvReSetting(n_shot=-1), "0..10"),
        (lambda: ConvReSetting(n_shot=True), "0..10"),
        (lambda: build_items("text2rel", 1), "re2text, text2re"),
    ],
)
def test_bad_settings_list_the_valid_values(call: Any, listed: str) -> None:
    with pytest.raises(UsageError, match=re.escape(listed)):
        call()


@given(
    st.sampled_from(["normal", "hint", "hint+cot"]),
    st.sampled_from(["normal", "converse"]),
    st.integers(-3, 14),
    st.sampled_from(["hard", "regular", "easy"]),
    st.sampled_from(["hard", "regular", ""]),
)
def test_setting_accepts_exactly_the_valid_knobs(
    prompt: str, relation: str, n_shot: int, example_type: str, text_type: str
) -> None:
    valid = 0 <= n_shot <= 10 and example_type != "easy" and text_type != ""
    try:
        setting = ConvReSetting(prompt, relation, n_shot, example_type, text_type)
    except UsageError:
        assert not valid
    else:
        assert valid
        assert ConvReSetting(**setting.as_dict()) == setting
        assert setting.cot == (prompt == "hint+cot")


# ---- the neutral "relation R" variant (Appendix G) -------------------------------------------

NOTATION = re.compile(r"\(([^(),\n]+), ([^(),\n]+), ([^(),\n]+)\)")


def _example_block_lines(prompt: str, n_examples_lines: int) -> list[str]:
    return prompt.split("\n")[2 : 2 + n_examples_lines]


@pytest.mark.parametrize("task", TASK_NAMES)
@pytest.mark.parametrize("setting_id", [1, 2, 3, 8, 9, 11])
def test_neutral_variant(shared_data: Path, task: str, setting_id: int) -> None:
    plain = build_items(task, setting_id, subset=True, data_dir=shared_data)
    neutral = build_items(task, setting_id, subset=True, neutral=True, data_dir=shared_data)
    assert len(plain) == len(neutral) == 328
    for p, n in zip(plain, neutral, strict=True):
        tail = p.labels["tail"]
        p_lines, n_lines = p.prompt.split("\n"), n.prompt.split("\n")
        assert len(p_lines) == len(n_lines)
        # the item's own block: instruction, question, A, B, end, answer
        assert re.fullmatch(r"Instruction: \(x, R, y\) indicates .+", n_lines[-6])
        assert n_lines[-6].split(") indicates ")[1] == p_lines[-6].split(") indicates ")[1]
        if task == "re2text":
            assert n_lines[-5] == f"Question: (?, R, {tail})"
            assert n_lines[-4:] == p_lines[-4:]  # natural-language choices unchanged
            assert n.choice_texts == p.choice_texts
        else:
            assert n_lines[-5] == p_lines[-5]  # natural-language question unchanged
            for letter, line in zip("AB", n_lines[-4:-2], strict=True):
                assert line in (f"{letter}: (?, R, {tail})", f"{letter}: ({tail}, R, ?)")
            assert n_lines[-2:] == p_lines[-2:]
            # the choice order is kept: the same side of the triple holds the tail
            for p_text, n_text in zip(p.choice_texts, n.choice_texts, strict=True):
                assert p_text.startswith("(?, ") == n_text.startswith("(?, ")
        # the intro and the few-shot examples (no entity with commas there)
        for p_line, n_line in zip(p_lines[:-6], n_lines[:-6], strict=True):
            found = NOTATION.findall(n_line)
            assert all(middle == "R" for _, middle, _ in found), n_line
            assert NOTATION.sub("(_)", n_line) == NOTATION.sub("(_)", p_line)
            assert len(found) == len(NOTATION.findall(p_line))
        assert n.gold == p.gold and n.item_id == p.item_id and n.labels == p.labels


def _notation_names(item: Any) -> set[str]:
    """The relation names inside the triple notations of one (normal) prompt."""
    lines = item.prompt.split("\n")
    names = {lines[-6].split(", ")[1]}  # Instruction: (x, NAME, y) ...
    examples = item.prompt.rsplit("\nInstruction: ", 1)[0]
    names.update(m[1] for m in NOTATION.findall(examples))
    if item.labels["task"] == "re2text":
        names.add(lines[-5][len("Question: (?, ") :].split(", ")[0])
    else:
        for text in item.choice_texts:
            if text.startswith("(?, "):
                names.add(text[len("(?, ") :].split(", ")[0])
            else:
                names.add(text[: -len(", ?)")].rsplit(", ", 1)[1])
    return names


def test_neutral_leaves_no_relation_name_in_notations(shared_data: Path) -> None:
    """Every relation name used in any triple notation of the normal prompts is gone."""
    ten_cot = ConvReSetting("hint+cot", "converse", 10, "regular", "hard")
    runs = [(task, setting) for task in TASK_NAMES for setting in (1, 8, 11, ten_cot)]
    names: set[str] = set()
    for task, setting in runs:
        for item in build_items(task, setting, subset=True, data_dir=shared_data):
            names |= _notation_names(item)
    expected_some = {"beats", "consults", "athlete beat athlete", "child", "teaches", "prosecutes"}
    assert expected_some <= names
    assert "R" not in names
    for task, setting in runs:
        items = build_items(task, setting, subset=True, neutral=True, data_dir=shared_data)
        for item in items:
            for name in names:
                for pattern in (f"(x, {name}, y)", f"(?, {name}, ", f", {name}, ?)"):
                    assert pattern not in item.prompt, (item.item_id, pattern)


@given(
    st.text(st.characters(exclude_characters="(),\n"), min_size=1, max_size=12),
    st.text(st.characters(exclude_characters="(),\n"), min_size=1, max_size=12),
    st.text(st.characters(exclude_characters="(),\n"), min_size=1, max_size=12),
    st.text(st.characters(exclude_characters="(),"), max_size=20),
    st.text(st.characters(exclude_characters="(),"), max_size=20),
)
def test_neutralize_rewrites_only_the_middle_of_a_notation(
    a: str, name: str, b: str, before: str, after: str
) -> None:
    text = f"{before}({a}, {name}, {b}){after}"
    assert neutralize(text) == f"{before}({a}, R, {b}){after}"
    assert neutralize(before + after) == before + after


# ---- build_task, speed --------------------------------------------------------------------


def test_build_task(shared_data: Path) -> None:
    scoring = pytest.importorskip("relreason.benchmarks.convre.scoring")
    task = build_task("re2text", 9, data_dir=shared_data)
    assert task.benchmark == "convre"
    assert task.name == "convre/re2text/setting-9"
    assert len(task.items) == 1240
    desc = json.loads(json.dumps(task.description))
    assert desc == {
        "benchmark": "convre",
        "task": "re2text",
        "setting_id": 9,
        "prompt": "normal",
        "relation": "converse",
        "n_shot": 6,
        "example_type": "hard",
        "text_type": "hard",
        "subset": False,
        "neutral": False,
        "logprob_fallback": True,
    }
    assert isinstance(task.scorer, functools.partial)
    assert task.scorer.func is scoring.score_convre
    assert task.scorer.keywords == {"cot": False, "logprob_fallback": True}

    custom = ConvReSetting("hint+cot", "normal", 2, "regular", "hard")
    task = build_task(
        "text2re", custom, subset=True, neutral=True, data_dir=shared_data, logprob_fallback=False
    )
    assert task.name.startswith("convre/text2re/custom-")
    assert task.name.endswith("-subset-neutral")
    assert task.description["setting_id"] is None
    assert ConvReSetting(**{k: task.description[k] for k in KNOBS}) == custom
    assert task.scorer.keywords == {"cot": True, "logprob_fallback": False}
    assert task.items == tuple(
        build_items("text2re", custom, subset=True, neutral=True, data_dir=shared_data)
    )


def test_all_prompts_build(shared_data: Path) -> None:
    """Every paper setting of both tasks builds one prompt per triple (speed: benchmarks/)."""
    convre_data.clear_cache()
    total = sum(
        len(build_items(task, setting_id, data_dir=shared_data))
        for task in TASK_NAMES
        for setting_id in PAPER_TABLE
    )
    assert total == 2 * 12 * 1240
