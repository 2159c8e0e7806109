"""converse: a small user set round-trips through relreason's own ConvRe loader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from relreason.benchmarks.convre import data as convre_data
from relreason.benchmarks.convre.prompts import build_items
from relreason.errors import DataError
from relreason.generate.converse import converse
from relreason.generate.converse_input import read_definitions

RELATION = {
    "name": "mentors",
    "meaning": "x mentors y",
    "head_regular": "Find a person that mentors [N].",
    "head_hard": "Find a person whose mentee is [N].",
    "tail_regular": "Find a person that [N] mentors.",
    "tail_hard": "Find a person that is the mentee of [N].",
}
EXAMPLE_RELATION = {
    "name": "larger than",
    "meaning": "y is larger than x",
    "head_regular": "Find an entity so that [N] is larger than it.",
    "head_hard": "Find an entity that is smaller than [N].",
    "tail_regular": "Find an entity that is larger than [N].",
    "tail_hard": "Find an entity so that [N] is smaller than it.",
    "text2re_reading": "tail",
}


def definitions(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "relations": [RELATION],
        "example_relations": [EXAMPLE_RELATION],
        "examples": [
            {"relation": "larger than", "tail": f"thing {i}", "answer": "AB"[i % 2]}
            for i in range(6)
        ],
    }
    data.update(changes)
    return data


def write(tmp: Path, defs: dict[str, Any], triples: str = "") -> tuple[Path, Path]:
    d = tmp / "defs.json"
    d.write_text(json.dumps(defs), encoding="utf-8")
    t = tmp / "triples.csv"
    t.write_text(
        triples
        or "head,relation,tail,answer\nOrla,mentors,Bram,A\nBram,mentors,Cai,B\nCai,mentors,Dov,\n",
        encoding="utf-8",
    )
    return d, t


def test_round_trip_all_settings_and_neutral(tmp_path: Path) -> None:
    d, t = write(tmp_path, definitions())
    out = tmp_path / "data"
    converse(d, t, out, subset_size=2)
    convre_data.clear_cache()
    triples = convre_data.load_triples(out, subset=False)
    assert [(x.head, x.tail) for x in triples] == [
        ("Orla", "Bram"),
        ("Bram", "Cai"),
        ("Cai", "Dov"),
    ]
    assert [x.answer for x in triples[:2]] == ["A", "B"]
    assert len(convre_data.load_triples(out, subset=True)) == 2
    for task in ("re2text", "text2re"):
        for setting in range(1, 13):
            for neutral in (False, True):
                items = build_items(task, setting, data_dir=out, neutral=neutral)
                assert [i.gold for i in items] == [x.answer for x in triples]
    re2text = build_items("re2text", 3, data_dir=out)[0]  # converse, zero-shot, regular text
    # Converse: (x, mentors, y) means y mentors x, so (?, mentors, Bram) asks whom Bram mentors.
    assert "Instruction: (x, mentors, y) indicates that y mentors x." in re2text.prompt
    assert re2text.choice_texts[0] == "Find a person that Bram mentors."
    text2re = build_items("text2re", 1, data_dir=out)[0]  # normal relation, hard text
    assert "Question: Find a person that mentors Bram." in text2re.prompt
    assert text2re.choice_texts[0] == "(?, mentors, Bram)"
    neutral = build_items("text2re", 9, data_dir=out, neutral=True)[0]
    assert "(x, R, y) indicates that x is larger than y." in neutral.prompt  # converse
    assert ", larger than," not in neutral.prompt


def test_few_shot_examples_follow_the_official_layout(tmp_path: Path) -> None:
    d, t = write(tmp_path, definitions())
    folder = converse(d, t, tmp_path / "data")
    examples = json.loads((folder / "re2text_examples.json").read_text(encoding="utf-8"))
    assert sorted(examples) == ["hard", "hard-cot", "regular", "regular-cot"]
    first = examples["hard"][0]
    assert first == (
        "Instruction: (x, larger than, y) indicates that x is larger than y.\n"
        "Question: (?, larger than, thing 0)\n"
        "A: Find an entity so that thing 0 is smaller than it.\n"
        "B: Find an entity so that thing 0 is larger than it.\n"
        "To convert the question into a semantically equivalent natural language sentence, "
        "which choice is correct?\nAnswer: A\n"
    )
    assert examples["regular-cot"][1].endswith("'answer': 'B'}\n")


def test_shipped_example_set_builds(tmp_path: Path) -> None:
    base = Path(__file__).parents[1] / "src" / "relreason" / "generate" / "examples"
    converse(base / "converse_definitions.json", base / "converse_triples.csv", tmp_path)
    convre_data.clear_cache()
    assert len(build_items("re2text", 12, data_dir=tmp_path)) == 18


@pytest.mark.parametrize(
    ("defs", "item", "field"),
    [
        (definitions(relations=[]), None, "relations"),
        (definitions(relations=[{**RELATION, "name": "a, b"}]), "relations[0]", "name"),
        (definitions(relations=[{**RELATION, "meaning": "mentoring"}]), "relations[0]", "meaning"),
        (
            definitions(relations=[{**RELATION, "tail_hard": "no slot"}]),
            "relations[0]",
            "tail_hard",
        ),
        (
            definitions(relations=[{**RELATION, "text2re_reading": "up"}]),
            "relations[0]",
            "text2re_reading",
        ),
        (definitions(example_relations=[RELATION]), "example_relations[0]", "name"),
        (definitions(examples=[]), None, "examples"),
        (definitions(examples=[{"relation": "nope", "tail": "x"}] * 6), "examples[0]", "relation"),
    ],
)
def test_bad_definitions_name_item_and_field(
    tmp_path: Path, defs: dict[str, Any], item: str | None, field: str
) -> None:
    d, _ = write(tmp_path, defs)
    with pytest.raises(DataError) as caught:
        read_definitions(d)
    assert (caught.value.file, caught.value.item, caught.value.field) == (str(d), item, field)


@pytest.mark.parametrize(
    ("triples", "item", "field"),
    [
        ("head,relation,tail\nOrla,teaches,Bram\n", "row 2", "relation"),
        ("head,relation,tail\n,mentors,Bram\n", "row 2", "head"),
        ("head,relation,tail,answer\nOrla,mentors,Bram,C\n", "row 2", "answer"),
        ("head,relation,tail\nOrla,mentors,Bram\nOrla,mentors,Bram\n", "row 3", None),
        ("head,tail\nOrla,Bram\n", "header", None),
    ],
)
def test_bad_triples_name_row_and_field(
    tmp_path: Path, triples: str, item: str, field: str | None
) -> None:
    d, t = write(tmp_path, definitions(), triples)
    with pytest.raises(DataError) as caught:
        converse(d, t, tmp_path / "out")
    assert (caught.value.file, caught.value.item, caught.value.field) == (str(t), item, field)


def test_json_triples_are_accepted(tmp_path: Path) -> None:
    d, _ = write(tmp_path, definitions())
    t = tmp_path / "triples.json"
    t.write_text(
        json.dumps(
            [
                ["Orla", "mentors", "Bram"],
                {"head": "Bo", "relation": "mentors", "tail": "Cy", "answer": "B"},
            ]
        )
    )
    folder = converse(d, t, tmp_path / "out")
    data = json.loads((folder / "triple_dataset.json").read_text(encoding="utf-8"))
    assert [row["head"] for row in data["mentors"]] == ["Orla", "Bo"]
    assert data["mentors"][1]["answer"] == "B"
