"""Bad ConvRe data gives a DataError naming the file, the item and the field.

Each test corrupts a writable copy of the official data (the ``data_copy`` fixture).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relreason.benchmarks.convre.prompts import ConvReSetting, build_items, load_triples
from relreason.errors import DataError

ORG = "organization , organization , child. , organization , organization relationship , child"


def _edit(data: Path, name: str, change: Callable[[Any], None]) -> Path:
    path = data / "convre" / name
    content = json.loads(path.read_text(encoding="utf-8"))
    change(content)
    path.write_text(json.dumps(content), encoding="utf-8")
    return path


def _error(call: Callable[[], object]) -> DataError:
    with pytest.raises(DataError) as caught:
        call()
    return caught.value


def _set(key: str, position: int, field: str, value: object) -> Callable[[Any], None]:
    def change(content: Any) -> None:
        content[key][position][field] = value

    return change


@pytest.mark.parametrize(
    ("position", "field", "value", "message"),
    [
        (3, "answer", "C", "expected 'A' or 'B', got 'C'"),
        (3, "answer", "a", "expected 'A' or 'B', got 'a'"),
        (0, "head", 17, "expected a string, got int"),
        (5, "tail", None, "expected a string, got null"),
        (1, "relation", ["has part"], "expected a string, got list"),
        (2, "answer", True, "expected a string, got bool"),
        (4, "tail", "   ", "empty text"),
        (6, "relation", "hypernym", "differs from its relation key"),
    ],
)
def test_bad_triple_field(
    data_copy: Path, position: int, field: str, value: object, message: str
) -> None:
    path = _edit(data_copy, "triple_dataset.json", _set("has part", position, field, value))
    error = _error(lambda: build_items("re2text", 1, data_dir=data_copy))
    assert error.file == str(path)
    assert error.item == f'"has part"[{position}]'
    assert error.field == field
    assert message in str(error)
    assert str(path) in str(error) and f'"has part"[{position}]' in str(error)


def test_missing_triple_field(data_copy: Path) -> None:
    path = _edit(data_copy, "triple_subset.json", lambda c: c[ORG][7].pop("tail"))
    error = _error(lambda: load_triples(data_copy, subset=True))
    assert (error.file, error.item, error.field) == (str(path), json.dumps(ORG) + "[7]", "tail")
    assert "missing field" in str(error)


def test_triple_not_an_object(data_copy: Path) -> None:
    def change(content: Any) -> None:
        content["consult"][2] = ["a", "consult", "b", "A"]

    path = _edit(data_copy, "triple_dataset.json", change)
    error = _error(lambda: load_triples(data_copy, subset=False))
    assert (error.file, error.item) == (str(path), '"consult"[2]')
    assert "expected an object, got list" in str(error)


def test_relation_not_a_list(data_copy: Path) -> None:
    def change(content: Any) -> None:
        content["made of"] = {"head": "x"}

    path = _edit(data_copy, "triple_dataset.json", change)
    error = _error(lambda: load_triples(data_copy, subset=False))
    assert (error.file, error.item) == (str(path), '"made of"')
    assert "expected a list of triples, got dict" in str(error)


def test_triples_file_not_an_object(data_copy: Path) -> None:
    path = data_copy / "convre" / "triple_subset.json"
    path.write_text("[1, 2]", encoding="utf-8")
    error = _error(lambda: load_triples(data_copy, subset=True))
    assert error.file == str(path)
    assert "expected an object" in str(error)


@pytest.mark.parametrize("task", ["re2text", "text2re"])
def test_relation_key_without_templates(data_copy: Path, task: str) -> None:
    relations = _edit(data_copy, f"{task}_relations.json", lambda c: c.pop("owned by"))
    error = _error(lambda: build_items(task, 4, data_dir=data_copy))
    assert error.file == str(data_copy / "convre" / "triple_dataset.json")
    assert error.item == '"owned by"'
    assert error.field == "relation"
    assert str(relations) in str(error)


@pytest.mark.parametrize(
    ("task", "template"),
    [
        ("re2text", "converse-hard"),
        ("re2text", "normal"),
        ("text2re", "normal-wrong"),
        ("text2re", "regular"),
    ],
)
def test_missing_template_key(data_copy: Path, task: str, template: str) -> None:
    path = _edit(data_copy, f"{task}_relations.json", lambda c: c["side effect"].pop(template))
    error = _error(lambda: build_items(task, 1, data_dir=data_copy))
    assert (error.file, error.item, error.field) == (str(path), '"side effect"', template)
    assert f"missing template key {template!r}" in str(error)


def test_template_not_a_string(data_copy: Path) -> None:
    def change(content: Any) -> None:
        content["hypernym"]["converse"] = ["(x, hypernym, y)"]

    path = _edit(data_copy, "text2re_relations.json", change)
    error = _error(lambda: build_items("text2re", 3, data_dir=data_copy))
    assert (error.file, error.item, error.field) == (str(path), '"hypernym"', "converse")
    assert "expected a string, got list" in str(error)


def test_examples_list_missing(data_copy: Path) -> None:
    path = _edit(data_copy, "re2text_examples.json", lambda c: c.pop("hard-cot"))
    assert len(build_items("re2text", 7, data_dir=data_copy)) == 1240  # uses "hard" only
    error = _error(lambda: build_items("re2text", 8, data_dir=data_copy))
    assert (error.file, error.item, error.field) == (str(path), '"hard-cot"', "hard-cot")
    assert "missing" in str(error)


def test_fewer_examples_than_n_shot(data_copy: Path) -> None:
    path = _edit(data_copy, "text2re_examples.json", lambda c: c.update(regular=c["regular"][:4]))
    assert len(build_items("text2re", 10, data_dir=data_copy)) == 1240  # 3-shot: enough
    error = _error(lambda: build_items("text2re", 12, data_dir=data_copy))  # 6-shot
    assert (error.file, error.item, error.field) == (str(path), '"regular"[4]', "regular")
    assert "6-shot prompts need 6 examples but the list holds 4" in str(error)


def test_example_not_a_string(data_copy: Path) -> None:
    def change(content: Any) -> None:
        content["hard"][1] = {"text": "Instruction: ..."}

    path = _edit(data_copy, "re2text_examples.json", change)
    error = _error(lambda: build_items("re2text", 9, data_dir=data_copy))
    assert (error.file, error.item, error.field) == (str(path), '"hard"[1]', "hard")
    assert "expected a string, got dict" in str(error)


def test_zero_shot_does_not_need_the_examples_file(data_copy: Path) -> None:
    (data_copy / "convre" / "text2re_examples.json").unlink()
    assert len(build_items("text2re", 6, data_dir=data_copy)) == 1240
    error = _error(lambda: build_items("text2re", 7, data_dir=data_copy))
    assert error.file == str(data_copy / "convre" / "text2re_examples.json")


def test_neutral_needs_a_triple_notation(data_copy: Path) -> None:
    def change(content: Any) -> None:
        content["used for"]["converse-correct"] = "something used for [N]"

    path = _edit(data_copy, "text2re_relations.json", change)
    assert len(build_items("text2re", 3, data_dir=data_copy)) == 1240  # fine when not neutral
    error = _error(lambda: build_items("text2re", 3, neutral=True, data_dir=data_copy))
    assert (error.file, error.item, error.field) == (str(path), '"used for"', "converse-correct")


@pytest.mark.parametrize("name", ["triple_dataset.json", "re2text_relations.json"])
def test_bad_json_and_missing_file(data_copy: Path, name: str) -> None:
    path = data_copy / "convre" / name
    path.write_text('{"hypernym": [', encoding="utf-8")
    error = _error(lambda: build_items("re2text", 1, data_dir=data_copy))
    assert error.file == str(path)
    assert "JSON" in str(error)
    path.unlink()
    error = _error(lambda: build_items("re2text", 1, data_dir=data_copy))
    assert error.file == str(path)
    assert "not found" in str(error)


def test_a_changed_file_is_read_again(data_copy: Path) -> None:
    assert len(load_triples(data_copy, subset=True)) == 328
    _edit(data_copy, "triple_subset.json", _set("hypernym", 0, "answer", "AB"))
    error = _error(lambda: load_triples(data_copy, subset=True))
    assert error.item == '"hypernym"[0]'


TEXT = st.text(max_size=8)
JSON_VALUE = st.one_of(st.none(), st.booleans(), st.integers(), TEXT, st.lists(TEXT, max_size=2))


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    record=st.dictionaries(
        st.sampled_from(["head", "relation", "tail", "answer", "other"]),
        st.one_of(JSON_VALUE, st.sampled_from(["A", "B", "hypernym", "cat"])),
    )
)
def test_any_triple_record_loads_or_names_its_fault(
    shared_data: Path, tmp_path_factory: pytest.TempPathFactory, record: dict[str, Any]
) -> None:
    """A fuzzed first triple either loads as given or gives a DataError naming item and field."""
    data = tmp_path_factory.mktemp("fuzz")  # a fresh folder per example: no cache reuse
    content = json.loads((shared_data / "convre" / "triple_subset.json").read_text("utf-8"))
    content["hypernym"][0] = record
    path = data / "convre" / "triple_subset.json"
    path.parent.mkdir()
    path.write_text(json.dumps(content), encoding="utf-8")
    try:
        triple = load_triples(data, subset=True)[0]
    except DataError as error:
        assert error.file == str(path)
        assert error.item == '"hypernym"[0]'
        assert error.field in ("head", "relation", "tail", "answer")
    else:
        assert (triple.head, triple.relation, triple.tail, triple.answer) == (
            record["head"],
            record["relation"],
            record["tail"],
            record["answer"],
        )
        assert triple.relation == "hypernym" and triple.answer in ("A", "B")
        assert triple.head.strip() and triple.tail.strip()


def test_custom_setting_uses_the_examples_it_asks_for(data_copy: Path) -> None:
    path = _edit(data_copy, "re2text_examples.json", lambda c: c.update(regular=c["regular"][:9]))
    setting = ConvReSetting("normal", "converse", 10, "regular", "hard")
    error = _error(lambda: build_items("re2text", setting, data_dir=data_copy))
    assert (error.file, error.item, error.field) == (str(path), '"regular"[9]', "regular")
