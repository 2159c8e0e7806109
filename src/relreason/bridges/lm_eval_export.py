"""Write lm-evaluation-harness task files for relreason cells.

For each cell: ``<cell>.jsonl`` (one document per item, :mod:`relreason.bridges.docs`) and two
task YAMLs. ``relreason_<cell>_mc`` is a ``multiple_choice`` task: lm-eval scores the
log-likelihood of each continuation relreason's ``--scoring logprob`` scores (``" A"``,
``" B"``, ...: ``doc_to_choice`` holds them whole and ``target_delimiter`` is empty) after the
prompt, and ``acc`` is the share of items whose gold has the highest. ``relreason_<cell>_gen`` is
a ``generate_until`` task with relreason's generation rules (greedy, no stop string but the end
of sequence, the cell's own ``max_new_tokens``), whose ``acc`` is relreason's reader (the
task's own, ``acc_alt`` the second rule) through ``relreason_reader.py``, written beside it.
Cells whose answer needs a second request (MCR zero-shot CoT, robust reading) get no ``_gen``
task: lm-eval asks once per item.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from relreason.bridges.cells import Cell
from relreason.bridges.docs import task_docs
from relreason.files import atomic_write_text
from relreason.types import Task

READER_MODULE = "relreason_reader"
"""The Python file beside the YAMLs that lm-eval loads ``process_results`` from."""


@dataclass(frozen=True)
class ExportedCell:
    """What was written for one cell: its data file and the lm-eval task names."""

    cell: str
    data_file: Path
    tasks: tuple[str, ...]
    skipped: str | None = None


class _FunctionTag(str):
    """A YAML ``!function module.name`` value (lm-eval loads it from the YAML's folder)."""


def _function_tag(dumper: yaml.SafeDumper, value: _FunctionTag) -> yaml.Node:
    return dumper.represent_scalar("!function", str(value))


class _Dumper(yaml.SafeDumper):
    """A safe dumper that also writes :class:`_FunctionTag` values."""


_Dumper.add_representer(_FunctionTag, _function_tag)


def task_name(cell: str, kind: str) -> str:
    """The lm-eval task name of a cell's variant: ``relreason_convre_re2text_s09_mc``."""
    return "relreason_" + re.sub(r"[^A-Za-z0-9]+", "_", cell).strip("_") + "_" + kind


def _base(name: str, data_file: Path, cell: str) -> dict[str, Any]:
    return {
        "task": name,
        "tag": ["relreason"],
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(data_file)}},
        "test_split": "test",
        "doc_to_text": "prompt",
        "num_fewshot": 0,
        "metadata": {"version": 1.0, "relreason_cell": cell},
    }


def mc_config(cell: str, data_file: Path) -> dict[str, Any]:
    """The ``multiple_choice`` task of a cell (log-likelihood of relreason's continuations)."""
    config = _base(task_name(cell, "mc"), data_file, cell)
    config.update(
        output_type="multiple_choice",
        doc_to_choice="continuations",
        doc_to_target="gold_index",
        target_delimiter="",
        metric_list=[{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
    )
    return config


def gen_config(cell: str, data_file: Path, task: Task) -> dict[str, Any]:
    """The ``generate_until`` task of a cell: relreason's generation rules and reader."""
    config = _base(task_name(cell, "gen"), data_file, cell)
    config.update(
        output_type="generate_until",
        doc_to_target="gold",
        generation_kwargs={
            "until": [],
            "max_gen_toks": task.max_new_tokens,
            "do_sample": False,
            "temperature": 0.0,
        },
        process_results=_FunctionTag(f"{READER_MODULE}.process_results"),
        metric_list=[
            {"metric": name, "aggregation": "mean", "higher_is_better": True}
            for name in ("acc", "acc_alt")
        ],
    )
    return config


def _reader_source(data_dir: Path | None) -> str:
    shown = json.dumps(str(data_dir.resolve())) if data_dir is not None else "None"
    return (
        '"""relreason\'s reader for the generate_until tasks of `relreason export-tasks '
        'lm-eval` (written by it)."""\n\n'
        "from relreason.bridges.lm_eval_reader import make_process_results\n\n"
        f"DATA_DIR = {shown}\n"
        '"""Where the official data was when the tasks were written (None: the default)."""\n\n'
        "process_results = make_process_results(DATA_DIR)\n"
    )


def _yaml(config: dict[str, Any]) -> str:
    return yaml.dump(config, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def export_lm_eval(
    cells: list[Cell], out_dir: Path, data_dir: Path | None = None
) -> list[ExportedCell]:
    """Write the lm-eval tasks of ``cells`` into ``out_dir``; return what was written.

    Every task is built before anything is written (a bad cell or missing data writes
    nothing); each file is written atomically. Raises ``UsageError``/``DataError`` as building
    the tasks does, ``UsageError`` for a folder that cannot be written.
    """
    out_dir = Path(out_dir).resolve()
    files: dict[Path, str] = {}
    written: list[ExportedCell] = []
    for cell in cells:
        task = cell.task(data_dir)
        name = cell.name
        data_file = out_dir / f"{name}.jsonl"
        docs = task_docs(task)
        files[data_file] = "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs)
        names = [task_name(name, "mc")]
        files[out_dir / f"{names[0]}.yaml"] = _yaml(mc_config(name, data_file))
        skipped = None
        if task.second_stage is None:
            names.append(task_name(name, "gen"))
            files[out_dir / f"{names[1]}.yaml"] = _yaml(gen_config(name, data_file, task))
        else:
            skipped = "no generate_until task: the reading asks a second question (mode=paper)"
        written.append(ExportedCell(name, data_file, tuple(names), skipped))
    files[out_dir / f"{READER_MODULE}.py"] = _reader_source(data_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        from relreason.errors import UsageError

        raise UsageError(f"cannot create {out_dir}: {error.strerror or error}") from None
    for path, text in files.items():
        atomic_write_text(path, text)
    return written
