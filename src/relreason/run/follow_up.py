"""The follow-up pass: a second model asked about the items one reading left open (MCR's
``--cleanup-model``, as the paper's official code did), through the same call path (cache,
limits, retries). The reading it completes replaces the record's in the records; nothing else
changes.
"""

from __future__ import annotations

import dataclasses

from relreason.models.base import ModelBackend
from relreason.records.record import AltReading, Record
from relreason.run.cache import ResponseCache
from relreason.run.calls import CallFailed, CallPath
from relreason.run.options import RunOptions
from relreason.types import Extraction, FollowUp, Response, Task


def _reading(record: Record, reader: str) -> tuple[str, Extraction] | None:
    """Return ("primary" | "alt", the reading by ``reader``) of a record, if it has one."""
    if record.reader == reader:
        extraction = Extraction(record.answer, record.status, record.method, record.detail)
        return "primary", extraction
    if record.alt is None or record.alt.reader != reader:
        return None
    return "alt", record.alt.extraction()


def _store(record: Record, where: str, reading: Extraction, reader: str) -> Record:
    """``record`` with its ``where`` reading replaced by ``reading``."""
    if where == "alt":
        return dataclasses.replace(record, alt=AltReading.of(reading, reader))
    return dataclasses.replace(
        record,
        answer=reading.answer,
        status=reading.status,
        correct=reading.correct,
        method=reading.method,
        detail=reading.detail,
    )


async def apply_follow_up(
    task: Task,
    records: dict[int, Record],
    backend: ModelBackend,
    options: RunOptions,
    cache: ResponseCache | None,
) -> list[int]:
    """Ask ``backend`` about every record whose ``task.follow_up.reader`` reading needs it;
    update those readings in ``records``; return the indices changed. A failed request leaves
    the reading open (its detail says why)."""
    follow: FollowUp | None = task.follow_up
    if follow is None:
        return []
    by_index = {item.index: item for item in task.items}
    calls = CallPath(backend, options, cache)
    changed: list[int] = []
    for index, record in sorted(records.items()):
        found = _reading(record, follow.reader)
        output = record.output
        if found is None or not isinstance(output, str) or index not in by_index:
            continue
        where, first = found
        if not follow.needs(first):
            continue
        item = by_index[index]
        request = follow.request(item, output)
        key = calls.key("generate", request.prompt, {"params": repr(request.params)})
        cached = calls.lookup([key])
        if key in cached:
            reply = cached[key]
        else:
            try:
                replies, _ = await calls.send([request], tokens=len(request.prompt) // 4)
                reply = replies[0]
            except CallFailed as failure:
                reply = Response(error=str(failure))
            calls.remember(key, reply)
        records[index] = _store(record, where, follow.read(item, first, reply), follow.reader)
        changed.append(index)
    calls.flush()
    return changed


async def follow_up_with_model(
    task: Task,
    records: dict[int, Record],
    options: RunOptions,
    cache: ResponseCache | None,
) -> list[int]:
    """:func:`apply_follow_up` with the task's own follow-up model, loaded for the pass and
    closed after it (used by ``run`` and ``score``); return the indices changed."""
    from relreason.models.registry import load_backend

    if task.follow_up is None:
        return []
    helper = load_backend(task.follow_up.model)
    try:
        return await apply_follow_up(task, records, helper, options, cache)
    finally:
        await helper.aclose()
