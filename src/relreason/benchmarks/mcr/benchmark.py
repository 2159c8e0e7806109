"""The MCR ``Benchmark``: parameters, tasks, sweep grid, run names, files, paper Table 4."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from relreason.benchmarks.base import PaperFigure
from relreason.benchmarks.mcr.cleanup import (
    with_cleanup,
)
from relreason.benchmarks.mcr.data import CATEGORIES, LANGUAGES, METHODS, MODES
from relreason.benchmarks.mcr.files import FILES
from relreason.benchmarks.mcr.style import McrReading, McrStyle
from relreason.types import Task

if TYPE_CHECKING:
    from relreason.analysis.sections import ReportSection

PAPER_METHODS = {"ZS": "zs", "5-shot": "fs", "ZSC": "zsc"}
"""Table 4's method names -> relreason's."""


class McrParams(McrReading):
    """An MCR task: a language (code or long name), a method, optional exemplars (a file of
    your own for the few-shot methods), and how answers are read (``McrReading``)."""

    language: Annotated[str, Field(description="en zh fr ja ko (or english, chinese, ...).")]
    method: Annotated[str, Field(description="zs | zsc | fs | fs-english | fs-multilingual")]
    exemplars: Annotated[
        Path | None,
        Field(description="Your own exemplar file (same keys as the official one)."),
    ] = None


class Mcr(McrStyle[McrParams]):
    """MCR (multilingual compositional relations): five languages, zero-/few-shot, zero-shot CoT."""

    name = "mcr"
    title = "MCR: multilingual compositional relations (en zh fr ja ko; zs, zsc, few-shot)"
    params_model = McrParams
    own_file = ("exemplars_path", "exemplars")
    files = FILES
    reference_table = "paper_table4.csv"
    drill_label = "categories"

    def build_task(self, params: McrParams, data_dir: Path | None = None) -> Task:
        """Return the MCR task of ``params`` (see ``relreason.benchmarks.mcr.prompts``)."""
        from relreason.benchmarks.mcr.prompts import build_task

        task = build_task(
            params.language,
            params.method,
            mode=params.mode,
            data_dir=data_dir,
            exemplars=params.exemplars,
        )
        return with_cleanup(task, params.cleanup_model)

    def grid(self) -> dict[str, list[Any]]:
        """The five languages and the paper's three methods (Table 4)."""
        return {"language": list(LANGUAGES), "method": ["zs", "fs", "zsc"]}

    def run_name(self, params: McrParams) -> str:
        """``mcr-<language>-<method>``."""
        return f"mcr-{params.language}-{params.method}"

    def parse_reference(self, rows: list[dict[str, str]]) -> list[PaperFigure]:
        """Table 4: one row per (model, method) with a percentage per language."""
        figures = []
        for row in rows:
            method = PAPER_METHODS.get(row["method"], row["method"])
            for language in ("EN", "FR", "JA", "KO", "ZH"):
                if row.get(language):
                    accuracy = float(row[language]) / 100
                    figures.append(
                        PaperFigure("mcr", row["model"], language.lower(), method, accuracy)
                    )
        return figures

    def report_sections(self) -> Sequence[ReportSection]:
        """Tables 4-6, per category, by relations and by options (``report.py``)."""
        from relreason.benchmarks.mcr.report import SECTIONS

        return SECTIONS

    def item_texts(
        self, description: Mapping[str, Any], data_dir: Path | None = None
    ) -> dict[str, dict[int, str]]:
        """Each item's ``question`` (without the prompt around it): the relations are counted
        from it (paper Figure 3)."""
        from relreason.benchmarks.mcr.data import load_questions

        questions = load_questions(description["language"], data_dir)
        return {"question": {q.index: q.question for q in questions}}

    def listing(self) -> dict[str, Any]:
        """Languages, methods, categories and reading modes."""
        return {
            "title": self.title,
            "languages": dict(LANGUAGES),
            "methods": list(METHODS),
            "categories": list(CATEGORIES),
            "modes": list(MODES),
        }


BENCHMARK = Mcr()
