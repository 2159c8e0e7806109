"""Which items a run covers (all, the first ``--limit``, or a seeded ``--sample`` stratified by
the task's first label) and the fingerprints that tell whether two runs asked the same things.

The items fingerprint covers each item's index, prompt, gold answer and option order (letters
and texts), so changed data files, prompts or option shuffles are seen at resume. The reader is
named by its function's module and name.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from relreason.types import EvalItem, Task

from .options import RunOptions


def _label_key(item: EvalItem, label: str | None) -> str:
    if label is None:
        return ""
    value = item.labels.get(label)
    return json.dumps(value, sort_keys=True, default=str)


def stratified_sample(task: Task, n: int, seed: int) -> tuple[EvalItem, ...]:
    """Return ``n`` items of ``task`` (all when it has fewer), drawn with ``seed`` so that each
    value of the task's first ``group_by`` label keeps its share (largest remainders), in
    index order. The same task, ``n`` and ``seed`` always give the same items."""
    items = task.items
    if n >= len(items):
        return items
    label = task.group_by[0] if task.group_by else None
    strata: dict[str, list[EvalItem]] = defaultdict(list)
    for item in items:
        strata[_label_key(item, label)].append(item)
    keys = sorted(strata)
    quotas = {k: n * len(strata[k]) / len(items) for k in keys}
    counts = {k: int(quotas[k]) for k in keys}
    by_remainder = sorted(keys, key=lambda k: (-(quotas[k] - counts[k]), k))
    for k in by_remainder[: n - sum(counts.values())]:
        counts[k] += 1
    rng = random.Random(seed)
    chosen: list[EvalItem] = []
    for k in keys:
        chosen.extend(rng.sample(strata[k], counts[k]))
    return tuple(sorted(chosen, key=lambda item: item.index))


def select_items(task: Task, options: RunOptions) -> tuple[EvalItem, ...]:
    """The items a run covers: ``--sample`` (seeded with the run's seed) else ``--limit``;
    under ``--epochs`` they count the items before their repeats, each chosen in every epoch.

    A ``--sample`` or ``--limit`` larger than the task is said (a warning on stderr with the
    number the run actually uses), never silently taken as "all"."""
    epochs = task.description.get("epochs")
    if isinstance(epochs, int) and epochs > 1 and (options.sample or options.limit):
        firsts = tuple(item for item in task.items if item.labels.get("epoch") == 0)
        chosen = {
            item.labels.get("epoch_base")
            for item in _select(dataclasses.replace(task, items=firsts), options)
        }
        return tuple(item for item in task.items if item.labels.get("epoch_base") in chosen)
    return _select(task, options)


def _select(task: Task, options: RunOptions) -> tuple[EvalItem, ...]:
    from relreason.run.warnings import warn

    items = task.items
    for flag, asked in (("--sample", options.sample), ("--limit", options.limit)):
        if asked is not None and asked > len(items):
            warn(f"{flag} {asked} is more than the {len(items)} items: running all {len(items)}")
    if options.sample is not None:
        items = stratified_sample(task, options.sample, options.seed)
    if options.limit is not None:
        items = items[: options.limit]
    return items


def selection_text(task: Task, options: RunOptions) -> dict[str, Any]:
    """How the items were chosen, for the manifest and summary."""
    return {
        "limit": options.limit,
        "sample": options.sample,
        "seed": options.seed,
        "n_task": len(task.items),
    }


def _digest(payload: Any) -> str:
    text = json.dumps(
        payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def items_fingerprint(items: Iterable[EvalItem]) -> str:
    """The SHA-256 of every item's index, prompt, gold and option order."""
    return _digest(
        [[i.index, i.prompt, i.gold, list(i.choices), list(i.choice_texts)] for i in items]
    )


def reader_name(task: Task) -> str:
    """The task's reader as a run folder records it: the rule's declared name (``Task.reader``:
    ``sound``, ``official:gpt-chat``, ``robust``, ``paper``) and the options it was given (a
    ``functools.partial``'s keywords), e.g. ``paper (few_shot=True, mode='paper')``. Not where
    its function lives: moving a function to another module changes no run folder."""
    options = getattr(task.scorer, "keywords", None) or {}
    if not options:
        return task.reader
    shown = ", ".join(f"{key}={value!r}" for key, value in sorted(options.items()))
    return f"{task.reader} ({shown})"


_OLD_READER = re.compile(r"^(?P<rule>.+): [A-Za-z_][\w.]*$")
"""The form relreason 0.2 recorded: ``RULE: module.qualname`` (no options)."""


def readers_match(recorded: object, now: str) -> bool:
    """Whether a folder's recorded reader is the reader ``now`` (:func:`reader_name`). A reader
    recorded in the older ``RULE: module.qualname`` form, which held no options, matches by its
    rule's name alone, so those folders still resume."""
    if recorded == now or not isinstance(recorded, str):
        return recorded == now
    old = _OLD_READER.match(recorded)
    return old is not None and old["rule"] == now.partition(" (")[0]


def servers_of(description: Mapping[str, Any]) -> list[str]:
    """The server addresses in a backend's ``describe()`` (empty for local models)."""
    found: list[str] = []
    for key in ("base_urls", "base_url"):
        value = description.get(key)
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, list | tuple):
            found.extend(str(v) for v in value)
    return sorted(found)
