"""Read an lm-evaluation-harness samples file (``lm_eval --log_samples``) of a task relreason
exported back into an :class:`ImportedRun`.

Each line is one document's sample: ``doc`` (the document relreason wrote: it names the cell and
the item), ``arguments`` (what was sent: context and continuation, or context and generation
options) and ``resps`` (log-likelihood and greedy flag per choice, or the generated text).
Values may be strings (lm-eval writes them so); both the ``{"gen_args_N": {"arg_0": ...}}`` and
the plain list form of ``arguments`` are read.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from relreason.bridges.cells import task_from_key
from relreason.bridges.docs import doc_item
from relreason.bridges.imported import Answer, ImportedRun
from relreason.errors import DataError, RelreasonError
from relreason.types import EvalItem, Response, Task

HARNESS = "lm-eval"


def _arguments(sample: Mapping[str, Any], path: str, where: str) -> list[list[Any]]:
    """The per-request arguments, as lists (``[context, continuation or options]``)."""
    raw = sample.get("arguments")
    if isinstance(raw, Mapping):
        keys = sorted(raw, key=lambda k: int(str(k).rpartition("_")[2] or 0))
        raw = [[v for _, v in sorted(dict(raw[k]).items())] for k in keys]
    if not isinstance(raw, list) or not all(isinstance(a, list | tuple) for a in raw):
        raise DataError(path, "expected the requests' arguments", item=where, field="arguments")
    return [list(a) for a in raw]


def _number(value: Any, path: str, where: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or math.isnan(number) or number > 0:
        message = f"expected a log-likelihood (a number, 0 or less), got {value!r}"
        raise DataError(path, message, item=where, field="resps")
    return number


def _first(value: Any) -> Any:
    """The first repeat of one request's response (``[[x]]`` -> ``x``, ``[x]`` -> ``x``)."""
    while isinstance(value, list) and value and isinstance(value[0], list):
        value = value[0]
    return value


def _choice_answer(
    item: EvalItem,
    task: Task,
    sample: Mapping[str, Any],
    args: list[list[Any]],
    path: str,
    where: str,
) -> Answer:
    continuations = task.continuations(item)
    by_text = {text: letter for letter, text in continuations.items()}
    resps = sample.get("resps")
    if not isinstance(resps, list) or len(resps) != len(args):
        raise DataError(path, "expected one response per choice", item=where, field="resps")
    scores: dict[str, float] = {}
    contexts = set()
    for request, resp in zip(args, resps, strict=True):
        if len(request) < 2 or request[1] not in by_text:
            message = f"continuation {request[1:2]!r} is none of {sorted(by_text)}"
            raise DataError(path, message, item=where, field="arguments")
        pair = _first(resp)
        value = pair[0] if isinstance(pair, list) and pair else pair
        scores[by_text[request[1]]] = _number(value, path, where)
        contexts.add(str(request[0]))
    if set(scores) != set(continuations):
        raise DataError(path, "not every choice was scored", item=where, field="arguments")
    sent = next(iter(contexts)) if len(contexts) == 1 else None
    return Answer(
        Response(choice_logprobs={k: scores[k] for k in continuations}),
        sent=None if sent == item.prompt else sent,
    )


def _generated_answer(
    item: EvalItem, sample: Mapping[str, Any], args: list[list[Any]], path: str, where: str
) -> Answer:
    text = _first(sample.get("resps"))
    if isinstance(text, list):
        text = text[0] if text else None
    if not isinstance(text, str):
        raise DataError(path, "expected the generated text", item=where, field="resps")
    sent = str(args[0][0]) if args and args[0] else None
    return Answer(Response(text=text), sent=None if sent == item.prompt else sent)


def _parse(line: str, path: str, where: str) -> dict[str, Any]:
    try:
        sample = json.loads(line)
    except (ValueError, RecursionError) as error:
        raise DataError(path, f"not valid JSON ({str(error)[:120]})", item=where) from None
    if not isinstance(sample, dict):
        raise DataError(path, "expected a JSON object (an lm-eval sample)", item=where)
    doc = sample.get("doc")
    if not isinstance(doc, dict) or not isinstance(doc.get("relreason_cell"), str):
        raise DataError(
            path,
            "not a sample of a task relreason exported (its doc names no relreason_cell); "
            "export tasks with `relreason export-tasks lm-eval`",
            item=where,
            field="doc",
        )
    return sample


def _model_name(path: Path) -> str:
    """The model lm-eval's results file beside the samples names (``model_name``), else ''."""
    date_id = path.stem.rpartition("_")[2]
    results = path.with_name(f"results_{date_id}.json")
    try:
        data = json.loads(results.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return ""
    if not isinstance(data, dict):
        return ""
    name = data.get("model_name") or (data.get("config") or {}).get("model_args") or ""
    return str(name)


def read_lm_eval_samples(
    path: Path, *, data_dir: Path | None = None, model: str | None = None
) -> ImportedRun:
    """Read the lm-eval samples file ``path`` into an :class:`ImportedRun`.

    Raises ``DataError`` naming the file, the line and the field for a malformed line, a
    sample of a task relreason did not export, samples of two cells or two kinds, an item
    given twice, a prompt that is not relreason's for its item, or a generation run whose every
    response is empty (what lm-eval records for a failed request).
    """
    name = str(path)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise DataError(name, "file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(name, f"cannot read the file ({error})") from None
    task: Task | None = None
    key = kind = None
    answers: dict[int, Answer] = {}
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        sample = _parse(line, name, where)
        doc = sample["doc"]
        if task is None:
            key = doc["relreason_cell"]
            try:
                task = task_from_key(key, data_dir)
            except DataError:
                raise
            except RelreasonError as error:
                raise DataError(name, str(error), item=where, field="doc.relreason_cell") from None
        elif doc["relreason_cell"] != key:
            raise DataError(
                name, "a sample of another cell", item=where, field="doc.relreason_cell"
            )
        item = doc_item(task, doc, name, where)
        args = _arguments(sample, name, where)
        this: Literal["generate", "logprob"] = (
            "generate" if len(args) == 1 and isinstance(args[0][-1], dict) else "logprob"
        )
        if kind is not None and this != kind:
            raise DataError(name, "a sample of another task kind", item=where, field="arguments")
        kind = this
        if item.index in answers:
            raise DataError(name, f"item {item.index} appears twice", item=where, field="doc.index")
        answers[item.index] = (
            _generated_answer(item, sample, args, name, where)
            if this == "generate"
            else _choice_answer(item, task, sample, args, name, where)
        )
    if task is None or kind is None:
        raise DataError(name, "holds no samples")
    if kind == "generate" and not any((a.response.text or "").strip() for a in answers.values()):
        raise DataError(
            name,
            f"every sample failed ({len(answers)} of {len(answers)}), so the run is no result: "
            "each response is empty, which is what lm-eval records for a request that failed "
            "(the error is in lm-eval's own log)",
        )
    source = {
        "harness": HARNESS,
        "file": str(path.resolve()),
        "sha256": hashlib.sha256(raw).hexdigest(),
    }
    spec = model or f"{HARNESS}:{_model_name(path) or 'unknown'}"
    return ImportedRun(task, answers, kind, spec, source, data_dir)
