"""An item as the plain document another harness reads: relreason's prompt as built (byte for
byte), the texts ``--scoring logprob`` compares, the gold as a letter and as an index, and the
cell the item belongs to (so that a harness's log can be read back against the same task)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from relreason.bridges.cells import cell_key
from relreason.errors import DataError
from relreason.types import EvalItem, Task


def prompt_digest(prompt: str) -> str:
    """The SHA-256 of a prompt's UTF-8 bytes."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def item_doc(task: Task, item: EvalItem, key: str | None = None) -> dict[str, Any]:
    """Return ``item`` of ``task`` as a harness document.

    ``continuations`` are exactly the texts relreason's ``--scoring logprob`` scores after the
    prompt (``Task.continuations``: ``" A"``, ``" B"``, ...), in the item's choice order;
    ``gold_index`` is the gold letter's position in it. ``key`` is the cell key (computed from
    the task when not given).
    """
    continuations = task.continuations(item)
    letters = list(item.choices)
    return {
        "index": item.index,
        "item_id": item.item_id,
        "prompt": item.prompt,
        "gold": item.gold,
        "gold_index": letters.index(item.gold),
        "letters": letters,
        "continuations": [continuations[letter] for letter in letters],
        "choice_texts": list(item.choice_texts),
        "relreason_cell": key if key is not None else cell_key(task),
        "prompt_sha256": prompt_digest(item.prompt),
    }


def task_docs(task: Task) -> list[dict[str, Any]]:
    """Every item of ``task`` as a document."""
    key = cell_key(task)
    return [item_doc(task, item, key) for item in task.items]


def doc_item(task: Task, doc: Mapping[str, Any], path: str, where: str) -> EvalItem:
    """Return the item of ``task`` that ``doc`` (read back from a harness log) stands for.

    Raises ``DataError`` naming ``path``, ``where`` (the line or sample) and the field when the
    document names no item of the task or its prompt is not the task's (another relreason
    version, other data, or a document edited by hand).
    """
    index = doc.get("index")
    if not isinstance(index, int) or isinstance(index, bool):
        raise DataError(path, "expected an integer item index", item=where, field="doc.index")
    if not 0 <= index < len(task.items):
        message = f"index {index} is outside 0..{len(task.items) - 1}"
        raise DataError(path, message, item=where, field="doc.index")
    item = task.items[index]
    if doc.get("item_id") != item.item_id:
        message = f"item id {doc.get('item_id')!r} is not the task's {item.item_id!r}"
        raise DataError(path, message, item=where, field="doc.item_id")
    if doc.get("prompt_sha256") != prompt_digest(item.prompt):
        message = "the prompt is not the one relreason builds for this item (other data?)"
        raise DataError(path, message, item=where, field="doc.prompt_sha256")
    return item
