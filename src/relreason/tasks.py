"""Build a benchmark ``Task`` from command-line choices or from a run manifest's description.

This is the one place that knows both benchmarks' entry points, so the runner can rebuild the
task of a run folder (``--resume``) without knowing either benchmark's insides.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from relreason.errors import UsageError
from relreason.types import Task

BENCHMARKS = ("convre", "mcr")


def convre_task(
    task: str,
    setting: int | None,
    knobs: Mapping[str, Any] | None = None,
    *,
    subset: bool = False,
    neutral: bool = False,
    data_dir: Path | str | None = None,
    logprob_fallback: bool = True,
) -> Task:
    """A ConvRe task: paper setting ``setting`` (default 1) with ``knobs`` overriding its values.

    Raises ``UsageError`` for an unknown task, setting or knob value and ``DataError`` for bad data.
    """
    from relreason.benchmarks.convre import build_task, paper_setting

    base = paper_setting(task, setting if setting is not None else 1)
    chosen = dataclasses.replace(base, **dict(knobs)) if knobs else base
    return build_task(
        task,
        chosen,
        subset=subset,
        neutral=neutral,
        data_dir=data_dir,
        logprob_fallback=logprob_fallback,
    )


def mcr_task(
    language: str,
    method: str,
    *,
    mode: str = "robust",
    data_dir: Path | str | None = None,
    exemplars: Path | str | None = None,
) -> Task:
    """An MCR task for one language and method, read with ``mode`` (robust or paper).

    Raises ``UsageError`` for an unknown language, method or mode and ``DataError`` for bad data.
    """
    from relreason.benchmarks.mcr import build_task

    return build_task(language, method, mode=mode, data_dir=data_dir, exemplars=exemplars)


def build_task_from_description(
    description: Mapping[str, Any], data_dir: Path | str | None = None
) -> Task:
    """Rebuild the task a run manifest describes (its ``task.description`` plus ``benchmark``).

    Raises ``UsageError`` when the description names no known benchmark or lacks a field.
    """
    benchmark = description.get("benchmark")
    try:
        if benchmark == "convre":
            knobs = {k: description[k] for k in _CONVRE_KNOBS if k in description}
            return convre_task(
                description["task"],
                None,
                knobs,
                subset=bool(description.get("subset", False)),
                neutral=bool(description.get("neutral", False)),
                data_dir=data_dir,
                logprob_fallback=bool(description.get("logprob_fallback", True)),
            )
        if benchmark == "mcr":
            return mcr_task(
                description["language"],
                description["method"],
                mode=description.get("mode", "robust"),
                data_dir=data_dir,
                exemplars=description.get("exemplars_path"),
            )
    except KeyError as missing:
        raise UsageError(f"the run's task description lacks the field {missing}") from None
    raise UsageError(
        f"unknown benchmark {benchmark!r} in the run's task description; valid: "
        + ", ".join(BENCHMARKS)
    )


_CONVRE_KNOBS = ("prompt", "relation", "n_shot", "example_type", "text_type")
