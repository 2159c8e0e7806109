"""One item's record: the typed value every run and every ``score`` writes, one JSON line each.

``make_record`` is the one function that makes a record (used by the runner and by ``score``
alike). ``Record.from_json`` reads lines written by any version (missing fields take their
defaults) and checks every field's type with pydantic (a number written as text is read as the
number), so analyses read typed fields; ``check_record`` says what is wrong with a line as a
``DataError`` (file, line, field). The format's version is the manifest's ``format_version``
(:data:`FORMAT_VERSION`); a folder without one was written by version 1, whose records hold the
same fields.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Annotated, Any

from pydantic import Field, TypeAdapter, ValidationError

from relreason.errors import DataError
from relreason.types import EvalItem, Extraction, Response, Status

FORMAT_VERSION = 2
"""The run-folder format: 1 = relreason 0.1 (no version field), 2 = typed records and manifest."""

VOLATILE_RECORD_FIELDS = ("latency_s", "attempts", "cached")
"""Record fields that legitimately differ between two runs of the same configuration."""

_PLAIN = (str, int, float, bool, type(None))

Count = Annotated[int, Field(ge=0)]
"""A count (an index, tokens, attempts): a whole number, never negative."""
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
LogProb = Annotated[float, Field(allow_inf_nan=False)]
"""A log-probability as a record holds it: finite (-inf is written as null)."""


@dataclass(frozen=True)
class AltReading:
    """A record's second reading (``Record.alt``): the same output read by the task's second
    rule ``reader``, as a record holds its own reading (``correct`` is its status's)."""

    reader: str | None = None
    answer: str | None = None
    status: Status = "failed"
    method: str = "none"
    detail: str | None = None

    @property
    def correct(self) -> bool:
        """Whether the second rule read the gold answer."""
        return self.status == "correct"

    @classmethod
    def of(cls, extraction: Extraction, reader: str | None) -> AltReading:
        """The second reading ``extraction``, by the rule ``reader``."""
        e = extraction
        return cls(reader, e.answer, e.status, e.method, e.detail)

    def extraction(self) -> Extraction:
        """The reading as the rule gave it."""
        return Extraction(self.answer, self.status, self.method, self.detail)

    def to_json(self) -> dict[str, Any]:
        """The JSON object a record line holds (``correct`` written out, as every version did)."""
        return {
            "reader": self.reader,
            "answer": self.answer,
            "status": self.status,
            "correct": self.correct,
            "method": self.method,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class Record:
    """What became of one item: its reading (answer, status, method) and what the model said.

    ``output``/``second_output``: the text of the first and (MCR zero-shot CoT) second request.
    ``choice_logprobs``: letter -> log-likelihood (log-prob scoring). ``top_logprobs``: the first
    generated token's alternatives. ``error``: the last error of a failed request.
    ``reader``: the rule that gave ``answer``/``status``; ``alt``: the same output read by the
    task's second rule (:class:`AltReading`).
    ``prompt``/``second_prompt``: the exact text sent in the first and second request (None
    for outputs scored with ``score``, which sent nothing). ``served_model``: the resolved
    model and ``system_fingerprint`` the API reported. ``sent_as``: what the model was given
    for ``prompt`` when not the bare text (chat messages, or the chat-templated text).
    ``note``: what relreason changed in the responses before reading them (invalid code points
    replaced), or None.
    """

    index: Count
    item_id: str
    gold: str
    answer: str | None = None
    status: Status = "failed"
    correct: bool = False
    method: str = "none"
    detail: str | None = None
    output: str | None = None
    second_output: str | None = None
    choice_logprobs: dict[str, LogProb | None] | None = None
    top_logprobs: dict[str, LogProb | None] | None = None
    usage: dict[str, Count] = field(
        default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0}
    )
    latency_s: Seconds = 0.0
    attempts: Count = 0
    cached: bool = False
    error: str | None = None
    labels: dict[str, Any] = field(default_factory=dict)
    reader: str | None = None
    alt: AltReading | None = None
    prompt: str | None = None
    second_prompt: str | None = None
    sent_as: Any = None
    served_model: str | None = None
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the record as a JSON-ready dict, fields in :data:`RECORD_FIELDS` order (the
        order of the class's fields, which is the order of every ``records.jsonl`` line)."""
        data = {name: getattr(self, name) for name in RECORD_FIELDS}
        if self.alt is not None:
            data["alt"] = self.alt.to_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Record:
        """Rebuild a record from a JSON object of any format version (unknown keys ignored).

        Raises ``pydantic.ValidationError`` naming the field for a value of the wrong type or
        out of range (text that is not a string, token counts that are not counts, a NaN or
        infinite number); :func:`check_record` says it as a ``DataError``.
        """
        known = {k: data[k] for k in RECORD_FIELDS if k in data}
        if "item_id" not in known and "index" in known:
            known["item_id"] = str(known["index"])
        known.setdefault("gold", "")
        if known.get("usage") is None:
            known.pop("usage", None)
        if known.get("labels") is None:
            known.pop("labels", None)
        return _RECORD.validate_python(known)


RECORD_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Record))
"""The fields of a record in the order a ``records.jsonl`` line holds them (:class:`Record`'s)."""
_RECORD = TypeAdapter(Record)


def record_from_line(line: bytes) -> Record | None:
    """The record a JSON line holds when it is a whole, well-typed record (parsed and checked in
    one pass, quicker than ``json.loads``), else None (read it with :func:`check_record`)."""
    try:
        return _RECORD.validate_json(line)
    except ValidationError:
        return None


def check_record(data: Any, file: str, line: int) -> Record:
    """Return the record a JSON value read from line ``line`` of ``file`` holds.

    Raises ``DataError`` naming the file, the line and the first bad field (with what was
    expected) when the value is not a record of any format version.
    """
    if not isinstance(data, Mapping):
        raise DataError(file, "expected a JSON object (a record)", item=f"line {line}")
    try:
        return Record.from_json(data)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or None
        message = f"{first['msg']}; delete the line to have the item asked again"
        raise DataError(file, message, item=f"line {line}", field=where) from None


def json_labels(labels: Mapping[str, Any]) -> dict[str, Any]:
    """Labels as JSON-ready values (fast path for plain values and lists of them)."""
    out: dict[str, Any] = {}
    for key, value in labels.items():
        if isinstance(value, _PLAIN):
            out[key] = value
        elif isinstance(value, list | tuple) and all(isinstance(v, _PLAIN) for v in value):
            out[key] = list(value)
        else:
            out[key] = json.loads(json.dumps(value, default=str))
    return out


def finite_or_null(values: Mapping[str, float]) -> dict[str, float | None]:
    """Log-probabilities for a JSON record: -inf (a choice outside the top-k) becomes null."""
    return {k: (v if math.isfinite(v) else None) for k, v in values.items()}


def make_record(
    item: EvalItem,
    extraction: Extraction | None,
    responses: Sequence[Response | None],
    *,
    scored: Response | None = None,
    attempts: int = 0,
    cached: bool = False,
    error: str | None = None,
    reader: str | None = None,
    alt: Extraction | None = None,
    alt_reader: str | None = None,
    prompts: Sequence[str | None] = (),
    sent_as: Any = None,
) -> Record:
    """Return the record of one item (``Record.to_json`` is its JSON line's object).

    ``extraction`` is the reading (None when the item failed: then ``error`` says why).
    ``responses`` are the first and optional second response (either may be None); ``scored``
    is the one that was read (its choice and first-token log-probabilities are kept);
    ``prompts`` the texts sent in the first and second request; ``alt`` is the second reading of
    the same response by the rule ``alt_reader``.
    """
    first = responses[0] if responses else None
    second = responses[1] if len(responses) > 1 else None
    present = [r for r in (first, second) if r is not None]
    reading = extraction or Extraction(None, "failed", "none")
    failed = extraction is None
    return Record(
        index=item.index,
        item_id=item.item_id,
        gold=item.gold,
        answer=reading.answer,
        status=reading.status,
        correct=reading.correct,
        method=reading.method,
        detail=reading.detail,
        output=first.text if first is not None else None,
        second_output=second.text if second is not None else None,
        choice_logprobs=(
            finite_or_null(scored.choice_logprobs)
            if not failed and scored is not None and scored.choice_logprobs is not None
            else None
        ),
        top_logprobs=(
            finite_or_null(scored.top_logprobs[0])
            if not failed and scored is not None and scored.top_logprobs
            else None
        ),
        usage={
            "prompt_tokens": sum(r.usage.prompt_tokens for r in present),
            "completion_tokens": sum(r.usage.completion_tokens for r in present),
        },
        latency_s=round(sum(r.latency_s for r in present), 4),
        attempts=attempts,
        cached=cached and bool(present),
        error=(error or "no response") if failed else None,
        labels=json_labels(item.labels),
        reader=reader,
        alt=None if failed or alt is None else AltReading.of(alt, alt_reader),
        prompt=prompts[0] if prompts else None,
        second_prompt=prompts[1] if len(prompts) > 1 else None,
        sent_as=sent_as,
        served_model=next((r.served_model for r in present if r.served_model), None),
        note="; ".join(r.note for r in present if r.note) or None,
    )
