"""The ConvRe ``Benchmark``: parameters, tasks, sweep grid, run names, files, paper Table 9."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relreason.benchmarks.base import Benchmark, BenchmarkParams, PaperFigure
from relreason.benchmarks.convre import options
from relreason.benchmarks.convre.files import FILES
from relreason.benchmarks.convre.official import FAMILIES, infer_family
from relreason.benchmarks.convre.readers import DEFAULT_FAMILY, convre_scorer, parse_reader
from relreason.benchmarks.convre.settings import KNOBS, SETTING_IDS, TASKS, paper_setting
from relreason.errors import UsageError
from relreason.types import EvalItem, Task

if TYPE_CHECKING:
    from relreason.analysis.sections import ReportSection


class ConvReParams(BenchmarkParams):
    """A ConvRe task: paper ``setting`` (default 1), ``knobs`` overriding its values, the subset
    and the neutral "relation R" variant; ``mode`` and ``logprob_fallback`` say how answers are
    read (strict mode fails a run or score that leaves answers unread); ``reader`` is ``sound``
    (default), ``official`` or ``official:FAMILY``, and every record is also read by the other
    one; ``family`` is the official rule's model family when the reader does not name one
    (inferred from the model by ``for_model``; default ``gpt-chat``)."""

    task: str
    setting: int | None = None
    subset: bool = False
    neutral: bool = False
    prompt: str | None = None
    relation: str | None = None
    n_shot: int | None = None
    example_type: str | None = None
    text_type: str | None = None
    mode: str = "auto"
    logprob_fallback: bool = True
    reader: str = "sound"
    family: str | None = None

    def knobs(self) -> dict[str, Any]:
        """Return the knobs set explicitly (they override the setting's values)."""
        return {k: getattr(self, k) for k in KNOBS if getattr(self, k) is not None}


class ConvRe(Benchmark):
    """ConvRe (Qi et al., EMNLP 2023): converse relations, tasks re2text and text2re."""

    name = "convre"
    title = "ConvRe: converse relations (re2text, text2re; 12 paper settings; 17 relations)"
    params_model = ConvReParams
    files = FILES
    reference_table = "paper_table9.csv"
    drill_label = "relation"
    task_options = staticmethod(options.task_options)
    reading_options = staticmethod(options.reading_options)

    def build_task(self, params: BenchmarkParams, data_dir: Path | None = None) -> Task:
        """Return the ConvRe task of ``params`` (see ``relreason.benchmarks.convre.prompts``)."""
        from relreason.benchmarks.convre.prompts import build_task

        p = _convre(params)
        if p.mode not in ("auto", "strict"):
            raise UsageError(f"unknown ConvRe mode {p.mode!r}; valid: auto, strict")
        base = paper_setting(p.task, p.setting if p.setting is not None else 1)
        knobs = p.knobs()
        chosen = dataclasses.replace(base, **knobs) if knobs else base
        task = build_task(
            p.task,
            chosen,
            subset=p.subset,
            neutral=p.neutral,
            data_dir=data_dir,
            logprob_fallback=p.logprob_fallback,
        )
        sound = convre_scorer("sound", cot=chosen.cot, logprob_fallback=p.logprob_fallback)
        kind, named = parse_reader(p.reader)
        family = named or p.family or DEFAULT_FAMILY
        official = convre_scorer("official", cot=chosen.cot, family=family)
        official_name = f"official:{family}"
        description = dict(task.description)
        if kind == "official":
            description["reader"] = official_name
        return dataclasses.replace(
            task,
            strict=p.mode == "strict",
            description=description,
            scorer=official if kind == "official" else sound,
            reader=official_name if kind == "official" else "sound",
            alt_scorer=sound if kind == "official" else official,
            alt_reader="sound" if kind == "official" else official_name,
        )

    def for_model(self, params: BenchmarkParams, spec: str, api: str = "chat") -> BenchmarkParams:
        """Fill in the official family from the model spec when it is clear (``anthropic:``
        -> claude, flan-t5, llama-2, qwen, internlm names, ``--api completions`` -> gpt-text)."""
        p = _convre(params)
        if p.family is not None:
            return p
        inferred = infer_family(spec, api=api)
        return p if inferred is None else p.model_copy(update={"family": inferred})

    def grid(self) -> dict[str, list[Any]]:
        """Both tasks, the 12 paper settings, the full set, normal relation names."""
        return {
            "task": list(TASKS),
            "setting": list(SETTING_IDS),
            "subset": [False],
            "neutral": [False],
        }

    def run_name(self, params: BenchmarkParams) -> str:
        """``convre-<task>-s<NN>`` (or ``-custom-<knobs>``), ``-subset``, ``-neutral``."""
        p = _convre(params)
        if p.knobs():
            base = paper_setting(p.task, p.setting or 1)
            slug = dataclasses.replace(base, **p.knobs()).slug()
            name = f"convre-{p.task}-custom-{slug}"
        else:
            name = f"convre-{p.task}-s{int(p.setting or 1):02d}"
        return name + ("-subset" if p.subset else "") + ("-neutral" if p.neutral else "")

    def params_from_description(self, description: Mapping[str, Any]) -> BenchmarkParams:
        """The parameters of a manifest's ConvRe description (its knobs given explicitly)."""
        try:
            knobs = {k: description[k] for k in KNOBS if k in description}
            return self.params(
                reader=description.get("reader", "sound"),
                task=description["task"],
                subset=bool(description.get("subset", False)),
                neutral=bool(description.get("neutral", False)),
                logprob_fallback=bool(description.get("logprob_fallback", True)),
                **knobs,
            )
        except KeyError as missing:
            raise UsageError(f"the run's task description lacks the field {missing}") from None

    def reorder(self, item: EvalItem, order: tuple[int, ...]) -> EvalItem:
        """``item`` with its two answers swapped as ``order`` says (A/B texts)."""
        from relreason.benchmarks.convre.reorder import reorder_ab

        return reorder_ab(item, order)

    def report_cell(self, description: Mapping[str, Any]) -> tuple[Any, Any]:
        """Table 9's cell: the task and the paper setting id."""
        return (description.get("task"), description.get("setting_id"))

    def parse_reference(self, rows: list[dict[str, str]]) -> list[PaperFigure]:
        """Table 9: one row per (task, model, prompt id) with the accuracy in 0..1."""
        return [
            PaperFigure(
                "convre", r["model"], r["task"], str(int(r["prompt"])), float(r["accuracy"])
            )
            for r in rows
            if r["accuracy"]
        ]

    def setting_text(self, setting: Any) -> Any:
        """A paper setting as the paper writes it: ``4#``."""
        return (
            f"{int(setting)}#"
            if isinstance(setting, int | float) and setting == setting
            else setting
        )

    def settings_legend(self, settings: Sequence[Any]) -> str:
        """The paper's names of the settings run (its Tables 2-3)."""
        from relreason.analysis.convre import settings_legend

        return settings_legend(settings)

    def report_sections(self) -> Sequence[ReportSection]:
        """Table 9, contrasts, per relation and source, Tables 6-8, scaling (``report.py``)."""
        from relreason.benchmarks.convre.report import SECTIONS

        return SECTIONS

    def listing(self) -> dict[str, Any]:
        """The tasks, the 12 settings with every knob, and the reading modes."""
        settings = {
            task: {str(i): dataclasses.asdict(paper_setting(task, i)) for i in SETTING_IDS}
            for task in TASKS
        }
        return {
            "title": self.title,
            "tasks": list(TASKS),
            "settings": settings,
            "modes": ["auto", "strict"],
            "readers": ["sound", "official", *(f"official:{f}" for f in FAMILIES)],
        }


def _convre(params: BenchmarkParams) -> ConvReParams:
    if not isinstance(params, ConvReParams):
        raise TypeError(f"expected ConvReParams, got {type(params).__name__}")
    return params


BENCHMARK = ConvRe()
