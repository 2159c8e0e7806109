"""Generated item files: writing them byte-stably and reading them back as plain records.

A file is a JSON list of items in the MCR format (``question``, ``options``, ``correct``,
``category``) plus the formal fields (``premises``, ``query``, ``answer``, ``option_labels``,
``domain``, ``frame``, ``hops``, ``language``, ``seed``, ``index``, ``id``, ``sexes``); see
``VOCABULARY.md``. ``load_records`` gives what a benchmark package needs to build prompts the
way MCR does (the MCR fields, with hops and domain labels for the report).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relreason.errors import DataError


@dataclass(frozen=True)
class Record:
    """One generated question as a benchmark sees it: MCR fields plus labels for grouping."""

    index: int
    item_id: str
    question: str
    options: tuple[str, ...]
    correct: str
    categories: tuple[str, ...]
    domain: str
    hops: int
    language: str

    @property
    def gold(self) -> str:
        """Return the letter of the correct option (A, B, ...)."""
        return chr(65 + self.options.index(self.correct))

    def labels(self) -> dict[str, Any]:
        """Return the grouping labels of the item (domain, hops, language, n_options)."""
        return {
            "domain": self.domain,
            "hops": self.hops,
            "language": self.language,
            "n_options": len(self.options),
        }


def dumps(items: Sequence[dict[str, Any]]) -> str:
    """Return the file text of ``items``: a JSON list, one item per line (stable bytes)."""
    lines = [json.dumps(item, ensure_ascii=False, separators=(",", ":")) for item in items]
    return "[\n" + ",\n".join(lines) + "\n]\n"


def write_items(items: Sequence[dict[str, Any]], path: Path | str) -> Path:
    """Write ``items`` to ``path`` (parents created) and return the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(dumps(items), encoding="utf-8")
    return target


def read_text(path: Path | str) -> str:
    """Return a UTF-8 file's text (``DataError`` naming the file when missing or unreadable)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(str(path), "file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(str(path), f"cannot read the file ({error})") from None


def read_json(path: Path | str) -> Any:
    """Return the parsed content of a JSON file (``DataError`` naming the file for a missing
    or unreadable file or bad JSON)."""
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as error:
        raise DataError(str(path), f"not valid JSON ({error})") from None


def read_items(path: Path | str) -> list[dict[str, Any]]:
    """Return the raw items of a generated file.

    Raises ``DataError`` naming the file for a missing file, bad JSON or a non-list.
    """
    file = Path(path)
    data = read_json(file)
    if not isinstance(data, list):
        raise DataError(str(file), f"expected a JSON list of items, got {type(data).__name__}")
    return data


def _field(file: str, i: int, raw: dict[str, Any], name: str, kind: type) -> Any:
    if name not in raw:
        raise DataError(file, "missing field", item=f"[{i}]", field=name)
    value = raw[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise DataError(file, f"expected {kind.__name__}, got {value!r}", item=f"[{i}]", field=name)
    return value


def to_record(file: str, i: int, raw: Any) -> Record:
    """Return the ``Record`` of raw item ``i``; raises ``DataError`` naming item and field."""
    if not isinstance(raw, dict):
        raise DataError(file, f"expected an object, got {type(raw).__name__}", item=f"[{i}]")
    question = _field(file, i, raw, "question", str)
    options = _field(file, i, raw, "options", list)
    if not options or not all(isinstance(o, str) for o in options) or len(options) > 7:
        raise DataError(file, "expected 1..7 strings", item=f"[{i}]", field="options")
    correct = _field(file, i, raw, "correct", str)
    if options.count(correct) != 1:
        raise DataError(
            file,
            f"{correct!r} is not exactly once among the options",
            item=f"[{i}]",
            field="correct",
        )
    categories = _field(file, i, raw, "category", list)
    return Record(
        index=i,
        item_id=str(raw.get("id", i)),
        question=question,
        options=tuple(options),
        correct=correct,
        categories=tuple(str(c) for c in categories),
        domain=_field(file, i, raw, "domain", str),
        hops=_field(file, i, raw, "hops", int),
        language=_field(file, i, raw, "language", str),
    )


def load_records(path: Path | str) -> list[Record]:
    """Return the plain records of a generated file, in file order.

    Raises ``DataError`` (file, item, field) for malformed content.
    """
    file = str(path)
    return [to_record(file, i, raw) for i, raw in enumerate(read_items(path))]
