"""Read model outputs a user already has (JSON lines) and score them against a task.

Each line: ``{"index": i, "output": "...", "logprobs": ...}``, optionally ``second_output``
(MCR zero-shot CoT's answer-extraction reply, read as a run reads it). ``logprobs`` (optional)
is the first generated token's top alternatives, either a mapping ``token -> logprob`` or a
list of such mappings (one per generated position); ``top_logprobs`` is accepted too, so a run
folder's ``records.jsonl`` can be scored again as it is (any other key is refused, naming it).
``choice_logprobs`` (optional) maps a letter to the log-likelihood of that choice, as
``--scoring logprob`` runs record.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relreason.errors import DataError
from relreason.records.record import RECORD_FIELDS, Record, make_record
from relreason.types import Response, Task
from relreason.untrusted import clean_response

ACCEPTED_KEYS = frozenset(
    {"index", "output", "second_output", "logprobs", "top_logprobs", "choice_logprobs"}
) | frozenset(RECORD_FIELDS)
"""The keys a responses line may hold: its own, and every field of a run's record (so that
``records.jsonl`` is scored as it is). Anything else is a misnamed key, never ignored."""


def _check_logprob_map(value: Any, path: str, item: str, field: str) -> dict[str, float]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str)
        and (v is None or (isinstance(v, int | float) and not isinstance(v, bool)))
        for k, v in value.items()
    ):
        raise DataError(path, "expected a mapping of token to number", item=item, field=field)
    # null: a choice outside the top-k (as run records write -inf)
    return {k: -math.inf if v is None else float(v) for k, v in value.items()}


def _parse_line(line: str, path: str, lineno: int, n_items: int) -> tuple[int, Replies]:
    item = f"line {lineno}"
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        message = f"not valid JSON ({error.msg}, column {error.colno})"
        raise DataError(path, message, item=item) from None
    except ValueError as error:  # e.g. an integer of thousands of digits
        raise DataError(path, f"not valid JSON ({str(error)[:120]})", item=item) from None
    except RecursionError:
        raise DataError(path, "JSON nested too deeply", item=item) from None
    if not isinstance(data, dict):
        raise DataError(path, "expected a JSON object", item=item)
    unknown = [key for key in data if key not in ACCEPTED_KEYS]
    if unknown:
        raise DataError(
            path,
            f"unknown key {unknown[0]!r}; a line holds index, output, second_output, logprobs "
            "(or top_logprobs), choice_logprobs, or is a run's record",
            item=item,
            field=unknown[0],
        )
    index = data.get("index")
    if not isinstance(index, int) or isinstance(index, bool):
        raise DataError(path, "expected an integer item index", item=item, field="index")
    if not 0 <= index < n_items:
        raise DataError(
            path, f"index {index} is outside 0..{n_items - 1}", item=item, field="index"
        )
    output = data.get("output")
    if output is not None and not isinstance(output, str):
        raise DataError(path, "expected a string or null", item=item, field="output")
    second = data.get("second_output")
    if second is not None and not isinstance(second, str):
        raise DataError(path, "expected a string or null", item=item, field="second_output")
    top: tuple[dict[str, float], ...] | None = None
    raw = data.get("logprobs", data.get("top_logprobs"))
    if raw is not None:
        positions = raw if isinstance(raw, list) else [raw]
        top = tuple(_check_logprob_map(p, path, item, "logprobs") for p in positions)
    choices = data.get("choice_logprobs")
    choice_logprobs = (
        None if choices is None else _check_logprob_map(choices, path, item, "choice_logprobs")
    )
    if choice_logprobs and not all(math.isfinite(v) or v < 0 for v in choice_logprobs.values()):
        raise DataError(path, "log-likelihoods must be numbers", item=item, field="choice_logprobs")
    first = clean_response(Response(text=output, top_logprobs=top, choice_logprobs=choice_logprobs))
    return index, Replies(first, None if second is None else clean_response(Response(text=second)))


@dataclass(frozen=True)
class Replies:
    """What a responses line holds: the first reply, and the second (MCR zero-shot CoT's
    answer-extraction reply, ``second_output``) when there was one."""

    first: Response
    second: Response | None = None


def read_responses(path: Path, n_items: int) -> dict[int, Replies]:
    """Read a responses file into ``index -> Replies``.

    Raises ``DataError`` naming the file, the line and the field for a malformed line, an index
    out of range, or an index given twice.
    """
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(name, "file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(name, f"cannot read the file ({error})") from None
    responses: dict[int, Replies] = {}
    # split on "\n" only: outputs may hold U+2028, U+2029, U+0085 or form feeds inside strings
    for lineno, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        index, response = _parse_line(line, name, lineno, n_items)
        if index in responses:
            raise DataError(
                name, f"index {index} appears twice", item=f"line {lineno}", field="index"
            )
        responses[index] = response
    return responses


def score_responses(task: Task, responses: Mapping[int, Replies]) -> list[Record]:
    """Read each given response against its item; one record per response, by index (the same
    record a run writes, through :func:`relreason.records.make_record`).

    As in a run, a task with a second stage (MCR zero-shot CoT, robust mode) reads the second
    reply when the line holds one, and its second rule reads the first reply."""
    records = []
    for index in sorted(responses):
        item = task.items[index]
        replies = responses[index]
        first, second = replies.first, replies.second
        scored = second if task.second_stage is not None and second is not None else first
        extraction = task.scorer(item, scored)
        alt = task.alt_scorer(item, first) if task.alt_scorer is not None else None
        records.append(
            make_record(
                item,
                extraction,
                [first, second],
                scored=scored,
                reader=task.reader,
                alt=alt,
                alt_reader=task.alt_reader,
            )
        )
    return records
