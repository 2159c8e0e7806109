"""Bad MCR data gives a clear DataError naming the file, the item and the field."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from relreason.benchmarks.mcr import data as mcr_data
from relreason.benchmarks.mcr import prompts as mcr
from relreason.errors import DataError, RelreasonError, UsageError

Entry = dict[str, Any]


def _write_english(data_dir: Path, content: Any, *, raw: str | None = None) -> Path:
    path = data_dir / "mcr" / "composition_english.json"
    text = raw if raw is not None else json.dumps(content, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    stat = path.stat()  # a new mtime even within the clock's resolution
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    return path


def _first_five(data_dir: Path) -> list[Entry]:
    path = data_dir / "mcr" / "composition_english.json"
    entries: list[Entry] = json.loads(path.read_text(encoding="utf-8"))[:5]
    return entries


def _set(key: str, value: Any) -> Callable[[Entry], None]:
    def change(entry: Entry) -> None:
        entry[key] = value

    return change


def _drop(key: str) -> Callable[[Entry], None]:
    def change(entry: Entry) -> None:
        del entry[key]

    return change


def _duplicate_correct(entry: Entry) -> None:
    entry["options"] = [*entry["options"], entry["correct"]]


CASES: list[tuple[str, Callable[[Entry], None], str, str]] = [
    ("missing question", _drop("question"), "question", "missing"),
    ("missing correct", _drop("correct"), "correct", "missing"),
    ("missing options", _drop("options"), "options", "missing"),
    ("missing category", _drop("category"), "category", "missing"),
    ("question not a string", _set("question", 42), "question", "string"),
    ("options not a list", _set("options", "A, B"), "options", "non-empty list"),
    ("options empty", _set("options", []), "options", "non-empty list"),
    ("option not a string", _set("options", ["Front", 3, "Left"]), "options", "option 1"),
    ("correct not an option", _set("correct", "Nowhere"), "correct", "'Nowhere' is not one"),
    ("correct twice", _duplicate_correct, "correct", "appears 2 times"),
    ("category not a list", _set("category", "Positional"), "category", "list"),
    ("unknown category", _set("category", ["Positional", "Spatial"]), "category", "'Spatial'"),
    ("too many options", _set("options", [*"uvwxyzF", "Front"]), "options", "8 options"),
    ("hint not a string", _set("hint", 7), "hint", "string"),
]


@pytest.mark.parametrize(("label", "change", "field", "words"), CASES, ids=[c[0] for c in CASES])
def test_bad_question_field(
    data_copy: Path, label: str, change: Callable[[Entry], None], field: str, words: str
) -> None:
    entries = _first_five(data_copy)
    change(entries[3])
    path = _write_english(data_copy, entries)
    with pytest.raises(DataError) as caught:
        mcr_data.load_questions("en", data_copy)
    error = caught.value
    assert error.item == "[3]" and error.field == field
    assert Path(error.file).name == path.name
    message = str(error)
    assert "composition_english.json" in message and "item [3]" in message
    assert f"field '{field}'" in message and words in message, message


def test_bad_data_stops_build_items_too(data_copy: Path) -> None:
    entries = _first_five(data_copy)
    entries[1]["category"] = ["Positional", "关系"]
    _write_english(data_copy, entries)
    with pytest.raises(DataError, match=r"item \[1\].*'关系'"):
        mcr.build_items("en", "zs", data_dir=data_copy)


def test_chinese_names_are_accepted_and_mapped(data_copy: Path) -> None:
    entries = _first_five(data_copy)
    entries[0]["category"] = ["位置关系", "Identity"]
    _write_english(data_copy, entries)
    assert mcr_data.load_questions("en", data_copy)[0].categories == ("Positional", "Identity")


def test_file_not_a_list(data_copy: Path) -> None:
    _write_english(data_copy, {"question": "x"})
    with pytest.raises(DataError, match=r"composition_english\.json.*JSON list"):
        mcr_data.load_questions("en", data_copy)


def test_item_not_an_object(data_copy: Path) -> None:
    entries: list[Any] = _first_five(data_copy)
    entries[2] = ["not", "an", "object"]
    _write_english(data_copy, entries)
    with pytest.raises(DataError, match=r"item \[2\]: expected an object"):
        mcr_data.load_questions("en", data_copy)


def test_invalid_json(data_copy: Path) -> None:
    _write_english(data_copy, None, raw='[{"question": "x",')
    with pytest.raises(DataError, match=r"composition_english\.json"):
        mcr_data.load_questions("en", data_copy)


def test_missing_file(data_copy: Path) -> None:
    (data_copy / "mcr" / "composition_korean.json").unlink()
    with pytest.raises(RelreasonError, match=r"composition_korean\.json"):
        mcr_data.load_questions("ko", data_copy)


def test_edited_file_is_read_again(data_copy: Path) -> None:
    entries = _first_five(data_copy)
    _write_english(data_copy, entries)
    before = mcr.build_items("en", "zs", data_dir=data_copy)
    entries[0]["question"] = "  Edited question?  "
    _write_english(data_copy, entries)
    after = mcr.build_items("en", "zs", data_dir=data_copy)
    assert len(before) == len(after) == 5
    assert after[0].prompt.startswith("Q: Edited question? Answer choices: A) ")
    assert before[0].prompt != after[0].prompt and before[1:] == after[1:]


def _write_exemplars(tmp_path: Path, content: Any) -> Path:
    path = tmp_path / "my_exemplars.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    return path


def test_exemplars_missing_key(tmp_path: Path) -> None:
    blocks = {key: "x" for key in mcr_data.EXEMPLAR_KEYS if key != "korean"}
    path = _write_exemplars(tmp_path, blocks)
    with pytest.raises(DataError) as caught:
        mcr_data.load_exemplars(path)
    assert caught.value.field == "korean"
    assert "my_exemplars.json" in str(caught.value) and "missing" in str(caught.value)


def test_exemplars_non_string(tmp_path: Path) -> None:
    blocks: dict[str, Any] = {key: "x" for key in mcr_data.EXEMPLAR_KEYS}
    blocks["multilingual"] = ["a", "b"]
    path = _write_exemplars(tmp_path, blocks)
    with pytest.raises(DataError, match="field 'multilingual': expected a string, got list"):
        mcr_data.load_exemplars(path)


def test_exemplars_not_an_object(tmp_path: Path) -> None:
    path = _write_exemplars(tmp_path, ["english"])
    with pytest.raises(DataError, match=r"my_exemplars\.json.*JSON object"):
        mcr_data.load_exemplars(path)


def test_exemplars_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"nowhere\.json"):
        mcr_data.load_exemplars(tmp_path / "nowhere.json")


def test_bad_exemplar_mapping(shared_data: Path) -> None:
    with pytest.raises(UsageError, match="'french' block is missing"):
        mcr.build_items("fr", "fs", data_dir=shared_data, exemplars={"english": "x"})
    with pytest.raises(UsageError, match="'multilingual' block"):
        mcr.build_items(
            "fr", "fs-multilingual", data_dir=shared_data, exemplars={"multilingual": 1}
        )  # type: ignore[dict-item]
    # A mapping needs only the block the method uses.
    assert mcr.build_items("fr", "fs-english", data_dir=shared_data, exemplars={"english": "x"})
    # Zero-shot methods never need exemplars.
    assert mcr.build_items("fr", "zs", data_dir=shared_data, exemplars={"english": "x"})


def test_unknown_language_and_method(shared_data: Path) -> None:
    with pytest.raises(UsageError, match="german"):
        mcr_data.load_questions("german", shared_data)
    with pytest.raises(UsageError, match="unknown MCR method 'two-shot'"):
        mcr.build_items("en", "two-shot", data_dir=shared_data)
