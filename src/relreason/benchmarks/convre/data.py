"""Reading and checking the official ConvRe files.

Each file is parsed and validated once per (path, inode, modification time, size); later calls
reuse the frozen result. Bad content raises ``DataError`` naming the file, the item and the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from relreason.benchmarks.convre.settings import check_task
from relreason.data import sources
from relreason.errors import DataError

TRIPLE_FIELDS: tuple[str, ...] = ("head", "relation", "tail", "answer")
ANSWERS: tuple[str, ...] = ("A", "B")
TEMPLATE_KEYS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "re2text": (
            "normal",
            "converse",
            "normal-regular",
            "normal-hard",
            "converse-regular",
            "converse-hard",
        ),
        "text2re": (
            "normal",
            "converse",
            "hard",
            "regular",
            "normal-correct",
            "normal-wrong",
            "converse-correct",
            "converse-wrong",
        ),
    }
)


def item_label(relation_key: str, position: int | None = None) -> str:
    """Return how errors name an item: ``"has part"[3]`` (or ``"has part"`` without position)."""
    quoted = json.dumps(relation_key, ensure_ascii=False)
    return quoted if position is None else f"{quoted}[{position}]"


@dataclass(frozen=True)
class Triple:
    """One ConvRe triple, with where it sits in its file (relation key, position in its list)."""

    relation_key: str
    position: int
    head: str
    relation: str
    tail: str
    answer: str

    @property
    def item_id(self) -> str:
        """Return the stable item id ``"<relation key>/<position>"``."""
        return f"{self.relation_key}/{self.position}"

    @property
    def relation_name(self) -> str:
        """Return the short relation name: the text after the last comma of ``relation``."""
        return self.relation.split(",")[-1].strip()


@dataclass(frozen=True)
class RelationsFile:
    """A parsed ``<task>_relations.json``: relation key -> template key -> template text."""

    path: str
    entries: Mapping[str, Mapping[str, str]]


@dataclass(frozen=True)
class ExamplesFile:
    """A parsed ``<task>_examples.json``: list name (hard, regular, hard-cot...) -> examples."""

    path: str
    lists: Mapping[str, tuple[str, ...]]

    def first(self, name: str, n: int) -> tuple[str, ...]:
        """Return the first ``n`` examples of list ``name``.

        Raises ``DataError`` when the list is missing or holds fewer than ``n`` examples.
        """
        if name not in self.lists:
            raise DataError(
                self.path,
                f"the list of examples is missing (needed for {n}-shot prompts)",
                item=json.dumps(name),
                field=name,
            )
        examples = self.lists[name]
        if len(examples) < n:
            raise DataError(
                self.path,
                f"{n}-shot prompts need {n} examples but the list holds {len(examples)}",
                item=item_label(name, len(examples)),
                field=name,
            )
        return examples[:n]


# ---- finding and reading files (relreason.data.sources) ----------------------------------------


def _data_path(name: str, data_dir: Path | str | None) -> Path:
    return sources.data_file("convre", name, data_dir)


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


# ---- triples -----------------------------------------------------------------------------


def triples_path(subset: bool, data_dir: Path | str | None) -> Path:
    """Return the path of ``triple_subset.json`` (subset) or ``triple_dataset.json``."""
    return _data_path("triple_subset.json" if subset else "triple_dataset.json", data_dir)


def _parse_triple(file: str, key: str, position: int, raw: object) -> Triple:
    item = item_label(key, position)
    if not isinstance(raw, dict):
        raise DataError(file, f"expected an object, got {_type_name(raw)}", item=item)

    def fail(message: str, field: str) -> DataError:
        return DataError(file, message, item=item, field=field)

    values: dict[str, str] = {}
    for name in TRIPLE_FIELDS:
        if name not in raw:
            raise fail("missing field", name)
        value = raw[name]
        if not isinstance(value, str):
            raise fail(f"expected a string, got {_type_name(value)}", name)
        values[name] = value
    if values["answer"] not in ANSWERS:
        raise fail(f"expected 'A' or 'B', got {values['answer']!r}", "answer")
    for name in ("head", "tail"):
        if not values[name].strip():
            raise fail("empty text", name)
    if values["relation"] != key:
        raise fail(
            f"relation {values['relation']!r} differs from its relation key {key!r}", "relation"
        )
    if not values["relation"].split(",")[-1].strip():
        raise fail("no relation name after the last comma", "relation")
    return Triple(
        key, position, values["head"], values["relation"], values["tail"], values["answer"]
    )


@lru_cache(maxsize=16)
def _parse_triples(path: str, stamp: sources.Stamp) -> tuple[Triple, ...]:
    data = sources.load_json(Path(path))
    if not isinstance(data, dict):
        raise DataError(path, f"expected an object of relation key -> list, got {_type_name(data)}")
    triples: list[Triple] = []
    for key, rows in data.items():
        if not isinstance(rows, list):
            raise DataError(
                path, f"expected a list of triples, got {_type_name(rows)}", item=item_label(key)
            )
        triples.extend(_parse_triple(path, key, i, raw) for i, raw in enumerate(rows))
    return tuple(triples)


def load_triples(data_dir: Path | str | None, subset: bool) -> list[Triple]:
    """Return the ConvRe triples (1240, or 328 with ``subset``) in benchmark order.

    Order: relation keys in file order, then list order. Raises ``DataError`` (naming file, item
    and field) for a missing, unreadable or malformed file.
    """
    path = triples_path(subset, data_dir)
    return list(_parse_triples(str(path), sources.file_stamp(path)))


# ---- relations (templates) --------------------------------------------------------------


@lru_cache(maxsize=16)
def _parse_relations(path: str, stamp: sources.Stamp, task: str) -> RelationsFile:
    data = sources.load_json(Path(path))
    if not isinstance(data, dict):
        raise DataError(
            path, f"expected an object of relation key -> templates, got {_type_name(data)}"
        )
    entries: dict[str, Mapping[str, str]] = {}
    for key, templates in data.items():
        item = item_label(key)
        if not isinstance(templates, dict):
            raise DataError(
                path, f"expected an object of templates, got {_type_name(templates)}", item=item
            )
        for name in TEMPLATE_KEYS[task]:
            if name not in templates:
                raise DataError(path, f"missing template key {name!r}", item=item, field=name)
            if not isinstance(templates[name], str):
                got = _type_name(templates[name])
                raise DataError(path, f"expected a string, got {got}", item=item, field=name)
        entries[key] = MappingProxyType(dict(templates))
    return RelationsFile(path, MappingProxyType(entries))


def load_relations(task: str, data_dir: Path | str | None) -> RelationsFile:
    """Return the parsed, checked ``<task>_relations.json``.

    Raises ``DataError`` for a missing template key or a non-string template (naming the key),
    ``UsageError`` for an unknown task.
    """
    path = _data_path(f"{check_task(task)}_relations.json", data_dir)
    return _parse_relations(str(path), sources.file_stamp(path), task)


# ---- few-shot examples ------------------------------------------------------------------


@lru_cache(maxsize=16)
def _parse_examples(path: str, stamp: sources.Stamp) -> ExamplesFile:
    data = sources.load_json(Path(path))
    if not isinstance(data, dict):
        raise DataError(
            path, f"expected an object of list name -> examples, got {_type_name(data)}"
        )
    lists: dict[str, tuple[str, ...]] = {}
    for name, examples in data.items():
        if not isinstance(examples, list):
            got = _type_name(examples)
            raise DataError(
                path, f"expected a list of strings, got {got}", item=json.dumps(name), field=name
            )
        for i, example in enumerate(examples):
            if not isinstance(example, str):
                got = _type_name(example)
                raise DataError(
                    path, f"expected a string, got {got}", item=item_label(name, i), field=name
                )
        lists[name] = tuple(examples)
    return ExamplesFile(path, MappingProxyType(lists))


def load_examples(task: str, data_dir: Path | str | None) -> ExamplesFile:
    """Return the parsed, checked ``<task>_examples.json``.

    Raises ``DataError`` for a list that is not a list of strings, ``UsageError`` for an unknown
    task.
    """
    path = _data_path(f"{check_task(task)}_examples.json", data_dir)
    return _parse_examples(str(path), sources.file_stamp(path))


def clear_cache() -> None:
    """Forget every parsed file (files are re-read anyway when their mtime or size changes)."""
    for cached in (_parse_triples, _parse_relations, _parse_examples):
        cached.cache_clear()


__all__ = [
    "ExamplesFile",
    "RelationsFile",
    "Triple",
    "clear_cache",
    "item_label",
    "load_examples",
    "load_relations",
    "load_triples",
]
