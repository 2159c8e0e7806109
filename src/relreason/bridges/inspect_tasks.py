"""relreason's cells as inspect_ai tasks: the items (relreason's prompts, byte for byte, as the
user message), relreason's generation length, greedy decoding on every provider (see
:func:`greedy`), and a scorer that reads each completion with the cell's reader (the sound
reader by default), keeping the second rule's reading (ConvRe: the official rule) in the
score's metadata.

Needs ``inspect-ai`` (extra ``[inspect]``). Registered with inspect_ai through the entry point
group ``inspect_ai`` (module :mod:`relreason.inspect`), so ``inspect eval relreason/convre -T
task=re2text -T setting=9`` finds the task by name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task as InspectTask
from inspect_ai import task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from relreason.bridges.cells import Cell, cell_key
from relreason.bridges.docs import item_doc
from relreason.errors import UsageError
from relreason.records.record import AltReading
from relreason.types import Response
from relreason.types import Task as RelreasonTask


def reading_metadata(rtask: RelreasonTask, doc: dict[str, Any], text: str) -> Score:
    """The score of ``text`` for the item ``doc`` names: the task's reader decides
    correct/incorrect; status, method, detail and the second rule's reading go in metadata."""
    item = rtask.items[int(doc["index"])]
    response = Response(text=text)
    reading = rtask.scorer(item, response)
    alt = rtask.alt_scorer(item, response) if rtask.alt_scorer is not None else None
    metadata: dict[str, Any] = {
        "reader": rtask.reader,
        "status": reading.status,
        "method": reading.method,
        "detail": reading.detail,
        "alt": None if alt is None else AltReading.of(alt, rtask.alt_reader).to_json(),
    }
    return Score(
        value=CORRECT if reading.correct else INCORRECT,
        answer=reading.answer,
        explanation=f"{rtask.reader} reader: {reading.status} ({reading.method})",
        metadata=metadata,
    )


def greedy(api: str) -> dict[str, Any]:
    """The generation settings that make the provider ``api`` decode greedily, as relreason's
    runs do: temperature 0, except on inspect's ``hf`` provider, which samples unless given
    ``-M do_sample=false`` and refuses a temperature of 0 then: the one most likely token
    (``top_k=1``) there."""
    return {"top_k": 1} if api == "hf" else {"temperature": 0.0}


@solver  # type: ignore[untyped-decorator,unused-ignore]
def greedy_generate() -> Solver:
    """Generate with the model's greedy settings (:func:`greedy`)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        """Generate one completion."""
        return await generate(state, **greedy(state.model.api))

    return solve


@scorer(metrics=[accuracy(), stderr()])  # type: ignore[untyped-decorator,unused-ignore]
def relreason_reader(rtask: RelreasonTask) -> Any:
    """Read each completion with ``rtask``'s reader (see :func:`reading_metadata`)."""

    async def score(state: TaskState, target: Target) -> Score:
        """Score one sample's completion."""
        return reading_metadata(rtask, dict(state.metadata), state.output.completion)

    return score


def inspect_task(cell: Cell, data_dir: str | None = None) -> InspectTask:
    """Return ``cell`` as an inspect_ai task (``UsageError`` for a cell whose reading asks a
    second question: MCR zero-shot CoT in robust mode; use ``mode=paper``)."""
    rtask = cell.task(Path(data_dir) if data_dir else None)
    if rtask.second_stage is not None:
        raise UsageError(
            f"{cell.name}: the robust reading asks a second question, which this task does not;"
            " use mode=paper"
        )
    key = cell_key(rtask)
    samples = [
        Sample(
            input=item.prompt,
            target=item.gold,
            id=item.index,
            metadata=item_doc(rtask, item, key),
        )
        for item in rtask.items
    ]
    return InspectTask(
        dataset=MemoryDataset(samples, name=cell.name),
        solver=greedy_generate(),
        scorer=relreason_reader(rtask),
        config=GenerateConfig(max_tokens=rtask.max_new_tokens),
        name=cell.name,
        metadata={"relreason_cell": key},
    )


def _cell(benchmark: str, **values: Any) -> Cell:
    from relreason import benchmarks

    bench = benchmarks.get(benchmark)
    return Cell(bench, bench.params(**{k: v for k, v in values.items() if v is not None}))


@task  # type: ignore[untyped-decorator,unused-ignore]
def convre(
    task: str = "re2text",
    setting: int = 1,
    subset: bool = False,
    reader: str = "sound",
    data_dir: str | None = None,
    family: str | None = None,
) -> InspectTask:
    """ConvRe, one task (re2text, text2re) under one paper setting (1-12); ``reader=official``
    needs the model's ``family`` (or ``reader=official:FAMILY``)."""
    cell = _cell("convre", task=task, setting=setting, subset=subset, reader=reader, family=family)
    return inspect_task(cell, data_dir)


@task  # type: ignore[untyped-decorator,unused-ignore]
def mcr(
    language: str = "en", method: str = "zs", mode: str = "robust", data_dir: str | None = None
) -> InspectTask:
    """MCR, one language and method (zs, fs; zsc with mode=paper)."""
    return inspect_task(_cell("mcr", language=language, method=method, mode=mode), data_dir)


@task  # type: ignore[untyped-decorator,unused-ignore]
def compose(
    language: str = "en", method: str = "zs", file: str | None = None, mode: str = "robust"
) -> InspectTask:
    """compose (the bundled generated set of a language, or a file of your own)."""
    cell = _cell("compose", language=language, method=method, file=file, mode=mode)
    return inspect_task(cell)
