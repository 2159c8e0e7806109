"""Reading and checking a user's converse-relation definitions and triples.

Definitions (JSON)::

    {"relations": [RELATION, ...],            # the relations asked about
     "example_relations": [RELATION, ...],    # optional: relations used only in few-shot examples
     "examples": [{"relation": NAME, "tail": "...", "answer": "A"}, ...]}   # 6..10 examples

    RELATION = {"name": "mentors",            # the name inside triple notations
                "meaning": "x mentors y",     # what (x, name, y) means normally (x and y as words)
                "head_regular": "Find a person that mentors [N].",      # e with meaning(e, [N])
                "head_hard": "Find a person whose mentee is [N].",      # same, other words
                "tail_regular": "Find a person that [N] mentors.",      # e with meaning([N], e)
                "tail_hard": "Find a person that is the mentee of [N].",
                "text2re_reading": "head"}    # optional: which reading text2re asks (head|tail)

Triples: a CSV with a header ``head,relation,tail`` (optional ``answer``), or a JSON list of
objects with those keys (or of ``[head, relation, tail]`` lists). Every error names the file,
the item and the field (``DataError``).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relreason.errors import DataError
from relreason.generate.records import read_json, read_text

TEXT_FIELDS: tuple[str, ...] = ("head_regular", "head_hard", "tail_regular", "tail_hard")
MIN_EXAMPLES, MAX_EXAMPLES = 6, 10
_NAME_FORBIDDEN = re.compile(r"[(),\n]")
_WORD_X = re.compile(r"\bx\b")
_WORD_Y = re.compile(r"\by\b")


@dataclass(frozen=True)
class Relation:
    """One checked relation definition."""

    name: str
    meaning: str
    head_regular: str
    head_hard: str
    tail_regular: str
    tail_hard: str
    text2re_reading: str

    def meaning_of(self, x: str, y: str) -> str:
        """Return the meaning with ``x`` and ``y`` replaced (``x mentors y`` -> ``a mentors b``)."""
        marked = _WORD_Y.sub("\0Y", _WORD_X.sub("\0X", self.meaning))
        return marked.replace("\0X", x).replace("\0Y", y)

    @property
    def normal(self) -> str:
        """Return the normal instruction: ``(x, name, y) indicates that <meaning>.``."""
        return f"(x, {self.name}, y) indicates that {self.meaning_of('x', 'y')}."

    @property
    def converse(self) -> str:
        """Return the converse instruction: the meaning with x and y exchanged."""
        return f"(x, {self.name}, y) indicates that {self.meaning_of('y', 'x')}."


@dataclass(frozen=True)
class Example:
    """One few-shot example: a relation (by name), a tail entity and the answer letter."""

    relation: str
    tail: str
    answer: str


@dataclass(frozen=True)
class Definitions:
    """Checked definitions: asked relations, example-only relations and examples."""

    relations: tuple[Relation, ...]
    example_relations: tuple[Relation, ...]
    examples: tuple[Example, ...]


@dataclass(frozen=True)
class UserTriple:
    """One (head, relation, tail) of the user's, with its answer letter if given."""

    head: str
    relation: str
    tail: str
    answer: str | None


def _text(file: str, item: str, raw: dict[str, Any], field: str, *, placeholder: bool) -> str:
    value = raw.get(field)
    if not isinstance(value, str) or not value.strip():
        raise DataError(file, f"expected a non-empty string, got {value!r}", item=item, field=field)
    if "\n" in value:
        raise DataError(file, "must be one line", item=item, field=field)
    if placeholder and "[N]" not in value:
        raise DataError(file, "must contain [N] (where the entity goes)", item=item, field=field)
    return value


def _answer(file: str, item: str, value: Any, *, optional: bool = False) -> Any:
    """An answer letter as given (``optional``: None, not given); DataError unless A or B."""
    if not (optional and value is None) and value not in ("A", "B"):
        raise DataError(file, f"expected 'A' or 'B', got {value!r}", item=item, field="answer")
    return value


def _relation(file: str, item: str, raw: Any) -> Relation:
    if not isinstance(raw, dict):
        raise DataError(file, f"expected an object, got {type(raw).__name__}", item=item)
    name = _text(file, item, raw, "name", placeholder=False)
    if _NAME_FORBIDDEN.search(name) or name != name.strip():
        raise DataError(
            file, "a name may not hold commas, parentheses or outer spaces", item=item, field="name"
        )
    meaning = _text(file, item, raw, "meaning", placeholder=False)
    if not (_WORD_X.search(meaning) and _WORD_Y.search(meaning)):
        raise DataError(
            file, "must mention x and y as words (e.g. 'x mentors y')", item=item, field="meaning"
        )
    texts = [_text(file, item, raw, field, placeholder=True) for field in TEXT_FIELDS]
    reading = raw.get("text2re_reading", "head")
    if reading not in ("head", "tail"):
        raise DataError(
            file, f"expected 'head' or 'tail', got {reading!r}", item=item, field="text2re_reading"
        )
    head_regular, head_hard, tail_regular, tail_hard = texts
    return Relation(name, meaning, head_regular, head_hard, tail_regular, tail_hard, reading)


def _relations(file: str, raw: dict[str, Any], key: str, required: bool) -> list[Relation]:
    rows = raw.get(key, [] if not required else None)
    if not isinstance(rows, list) or (required and not rows):
        raise DataError(file, f"expected a non-empty list of relations, got {rows!r}", field=key)
    found = [_relation(file, f"{key}[{i}]", row) for i, row in enumerate(rows)]
    return found


def read_definitions(path: Path | str) -> Definitions:
    """Return the checked definitions file; raises ``DataError`` naming file, item and field."""
    file = Path(path)
    raw = read_json(file)
    where = str(file)
    if not isinstance(raw, dict):
        raise DataError(where, f"expected a JSON object, got {type(raw).__name__}")
    relations = _relations(where, raw, "relations", True)
    extra = _relations(where, raw, "example_relations", False)
    seen: set[str] = set()
    for i, relation in enumerate([*relations, *extra]):
        key = "relations" if i < len(relations) else "example_relations"
        position = i if i < len(relations) else i - len(relations)
        if relation.name in seen:
            raise DataError(
                where,
                f"relation {relation.name!r} is defined twice",
                item=f"{key}[{position}]",
                field="name",
            )
        seen.add(relation.name)
    rows = raw.get("examples")
    if not isinstance(rows, list) or not MIN_EXAMPLES <= len(rows) <= MAX_EXAMPLES:
        count = len(rows) if isinstance(rows, list) else rows
        raise DataError(
            where,
            f"expected a list of {MIN_EXAMPLES}..{MAX_EXAMPLES} examples (6-shot settings need 6), "
            f"got {count!r}",
            field="examples",
        )
    examples: list[Example] = []
    for i, row in enumerate(rows):
        item = f"examples[{i}]"
        if not isinstance(row, dict):
            raise DataError(where, f"expected an object, got {type(row).__name__}", item=item)
        name = _text(where, item, row, "relation", placeholder=False)
        if name not in seen:
            raise DataError(where, f"unknown relation {name!r}", item=item, field="relation")
        tail = _text(where, item, row, "tail", placeholder=False)
        answer = _answer(where, item, row.get("answer", "AB"[i % 2]))
        examples.append(Example(name, tail, answer))
    return Definitions(tuple(relations), tuple(extra), tuple(examples))


def _rows(path: Path) -> list[Any]:
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(read_text(path)))
        missing = [k for k in ("head", "relation", "tail") if k not in (reader.fieldnames or [])]
        if missing:
            raise DataError(str(path), f"the header lacks {', '.join(missing)}", item="header")
        return list(reader)
    data = read_json(path)
    if not isinstance(data, list):
        raise DataError(str(path), f"expected a JSON list of triples, got {type(data).__name__}")
    return data


def read_triples(path: Path | str, known: set[str]) -> list[UserTriple]:
    """Return the checked triples (relations must be in ``known``); raises ``DataError``."""
    file = Path(path)
    where = str(file)
    triples: list[UserTriple] = []
    seen: set[tuple[str, str, str]] = set()
    for i, row in enumerate(_rows(file)):
        item = f"[{i}]" if file.suffix.lower() != ".csv" else f"row {i + 2}"
        if isinstance(row, list) and len(row) == 3:
            row = dict(zip(("head", "relation", "tail"), row, strict=True))
        if not isinstance(row, dict):
            raise DataError(where, "expected an object or a [head, relation, tail] list", item=item)
        head = _text(where, item, row, "head", placeholder=False).strip()
        relation = _text(where, item, row, "relation", placeholder=False).strip()
        tail = _text(where, item, row, "tail", placeholder=False).strip()
        if relation not in known:
            raise DataError(
                where,
                f"unknown relation {relation!r}; defined: {', '.join(sorted(known))}",
                item=item,
                field="relation",
            )
        answer = _answer(where, item, row.get("answer") or None, optional=True)
        if (head, relation, tail) in seen:
            raise DataError(where, "duplicate triple", item=item)
        seen.add((head, relation, tail))
        triples.append(UserTriple(head, relation, tail, answer))
    if not triples:
        raise DataError(where, "no triples")
    return triples
