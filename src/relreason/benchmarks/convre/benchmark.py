"""The ConvRe ``Benchmark``: parameters, tasks, sweep grid, run names, files, paper Table 9."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from relreason.benchmarks.base import Benchmark, BenchmarkParams, PaperFigure
from relreason.benchmarks.convre.files import FILES
from relreason.benchmarks.convre.official import FAMILIES, infer_family
from relreason.benchmarks.convre.readers import (
    chosen_family,
    convre_scorer,
    parse_reader,
    reading_note,
)
from relreason.benchmarks.convre.settings import KNOBS, SETTING_IDS, TASKS, paper_setting
from relreason.declare import Cli
from relreason.errors import UsageError
from relreason.types import EvalItem, Task

if TYPE_CHECKING:
    from relreason.analysis.sections import ReportSection


class ConvReParams(BenchmarkParams):
    """A ConvRe task: paper ``setting`` (default 1), knobs overriding its values, the subset
    and the neutral "relation R" variant, and how answers are read (strict mode fails a run or
    score that leaves answers unread; every record is also read by the other reader). Each
    field is the one declaration of its option (command line, sweep files, ``evaluate``)."""

    task: Annotated[Literal["re2text", "text2re"], Field(description="ConvRe task.")]
    setting: Annotated[
        int | None,
        Field(
            ge=1,
            le=12,
            description="Paper prompt setting 1-12 (the knobs below override its values; "
            "default 1).",
        ),
    ] = None
    subset: Annotated[
        bool, Cli(flags=("--subset",)), Field(description="The paper's 328-triple subset.")
    ] = False
    neutral: Annotated[
        bool,
        Cli(flags=("--neutral",)),
        Field(description="Neutral relation name 'R' (paper Appendix G)."),
    ] = False
    prompt: Annotated[
        str | None,
        Field(
            description="Knob: normal | hint | hint+cot (a hint about converse relations; "
            "+cot: and chain of thought)."
        ),
    ] = None
    relation: Annotated[
        str | None,
        Field(
            description="Knob: normal | converse (the relation as usual, or defined the other way)."
        ),
    ] = None
    n_shot: Annotated[
        int | None,
        Field(ge=0, le=10, description="Knob: worked examples before the question (0: zero-shot)."),
    ] = None
    example_type: Annotated[
        str | None,
        Field(description="Knob: hard | regular (the text variant of the few-shot examples)."),
    ] = None
    text_type: Annotated[
        str | None,
        Field(
            description="Knob: hard | regular (the paraphrased or the unaltered test text; which "
            "one is hard differs by task, see the table above)."
        ),
    ] = None
    mode: Annotated[
        Literal["auto", "strict"],
        Cli(reading=True),
        Field(
            description="auto: an answer that cannot be read counts as wrong and is reported "
            "apart; strict: such answers are listed and the command exits 1."
        ),
    ] = "auto"
    logprob_fallback: Annotated[
        bool,
        Cli(reading=True),
        Field(description="Read unclear answers from first-token log-probs (Appendix F)."),
    ] = True
    reader: Annotated[
        str,
        Cli(reading=True),
        Field(
            description="How answers are read: sound (default), official (the official "
            "evaluator's rule for the model's family) or official:FAMILY (gpt-chat, gpt-text, "
            "claude, llama2, qwen, internlm, flan-t5). Every record is also read by the other "
            "one."
        ),
    ] = "sound"
    family: Annotated[
        str | None,
        Cli(reading=True),
        Field(
            description="The model family whose official rule reads answers (gpt-chat, "
            "gpt-text, claude, llama2, qwen, internlm, flan-t5): inferred from the model's "
            "name where it says (qwen, llama-2, flan-t5, internlm, claude, openai:); needed "
            "with --reader official where it does not (a responses file, hf: or smollm2 "
            "models)."
        ),
    ] = None
    family_from: Annotated[
        Literal["given", "inferred"] | None,
        Cli(hidden=True),
        Field(description="How the family was chosen (filled in by ``for_model``)."),
    ] = None

    def knobs(self) -> dict[str, Any]:
        """Return the knobs set explicitly (they override the setting's values)."""
        return {k: getattr(self, k) for k in KNOBS if getattr(self, k) is not None}


class ConvRe(Benchmark[ConvReParams]):
    """ConvRe (Qi et al., EMNLP 2023): converse relations, tasks re2text and text2re."""

    name = "convre"
    title = "ConvRe: converse relations (re2text, text2re; 12 paper settings; 17 relations)"
    params_model = ConvReParams
    files = FILES
    reference_table = "paper_table9.csv"
    drill_label = "relation"

    def build_task(self, params: ConvReParams, data_dir: Path | None = None) -> Task:
        """Return the ConvRe task of ``params`` (see ``relreason.benchmarks.convre.prompts``)."""
        from relreason.benchmarks.convre.prompts import build_task

        base = paper_setting(params.task, params.setting if params.setting is not None else 1)
        knobs = params.knobs()
        chosen = dataclasses.replace(base, **knobs) if knobs else base
        task = build_task(
            params.task,
            chosen,
            subset=params.subset,
            neutral=params.neutral,
            data_dir=data_dir,
            logprob_fallback=params.logprob_fallback,
        )
        sound = convre_scorer("sound", cot=chosen.cot, logprob_fallback=params.logprob_fallback)
        kind, family, how = chosen_family(params.reader, params.family, params.family_from)
        official = convre_scorer("official", cot=chosen.cot, family=family)
        official_name = f"official:{family}"
        description = dict(task.description)
        if kind == "official":
            description["reader"] = official_name
        description["reading"] = reading_note(kind, family, how)
        return dataclasses.replace(
            task,
            strict=params.mode == "strict",
            description=description,
            scorer=official if kind == "official" else sound,
            reader=official_name if kind == "official" else "sound",
            alt_scorer=sound if kind == "official" else official,
            alt_reader="sound" if kind == "official" else official_name,
        )

    def recorded_params(self, params: ConvReParams, description: Mapping[str, Any]) -> ConvReParams:
        """A folder run with ``--reader official`` and no family before the family was
        required recorded the rule it read with (``reader``: ``official:gpt-chat``): resumed,
        it reads with that rule again."""
        recorded = str(description.get("reader") or "")
        family = recorded.partition(":")[2]
        unnamed = parse_reader(params.reader) == ("official", None)
        if unnamed and params.family is None and family in FAMILIES:
            return params.model_copy(update={"family": family})
        return params

    def for_model(self, params: ConvReParams, spec: str, api: str = "chat") -> ConvReParams:
        """Fill in the official family from the model spec when it is clear (``anthropic:``
        -> claude, flan-t5, llama-2, qwen, internlm names, ``--api completions`` -> gpt-text)."""
        if params.family is not None:
            return params
        inferred = infer_family(spec, api=api)
        if inferred is None:
            return params
        return params.model_copy(update={"family": inferred, "family_from": "inferred"})

    def grid(self) -> dict[str, list[Any]]:
        """Both tasks, the 12 paper settings, the full set, normal relation names."""
        return {
            "task": list(TASKS),
            "setting": list(SETTING_IDS),
            "subset": [False],
            "neutral": [False],
        }

    def run_name(self, params: ConvReParams) -> str:
        """``convre-<task>-s<NN>`` (or ``-custom-<knobs>``), ``-subset``, ``-neutral``."""
        if params.knobs():
            base = paper_setting(params.task, params.setting or 1)
            slug = dataclasses.replace(base, **params.knobs()).slug()
            name = f"convre-{params.task}-custom-{slug}"
        else:
            name = f"convre-{params.task}-s{int(params.setting or 1):02d}"
        return name + ("-subset" if params.subset else "") + ("-neutral" if params.neutral else "")

    def params_from_description(self, description: Mapping[str, Any]) -> ConvReParams:
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
        from relreason.benchmarks.convre.analysis import settings_legend

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


BENCHMARK = ConvRe()
