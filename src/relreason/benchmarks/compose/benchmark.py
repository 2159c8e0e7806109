"""The compose ``Benchmark``: generated, solver-verified questions, prompted and read as MCR."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relreason.benchmarks.base import BenchmarkParams
from relreason.benchmarks.compose import options
from relreason.benchmarks.mcr.cleanup import with_cleanup
from relreason.benchmarks.mcr.data import LANGUAGES, METHODS, MODES
from relreason.benchmarks.mcr.style import McrStyle
from relreason.errors import UsageError
from relreason.types import Task

if TYPE_CHECKING:
    from relreason.analysis.sections import ReportSection


class ComposeParams(BenchmarkParams):
    """A compose task: a language (code or long name; default: the file's, or ``en``), a method
    (MCR's), a generated file (default: the bundled set of the language) and the reading
    ``mode`` (robust or paper, as MCR, with its optional clean-up model)."""

    language: str | None = None
    method: str = "zs"
    file: Path | None = None
    mode: str = "robust"
    cleanup_model: str | None = None


class Compose(McrStyle):
    """Generated relation questions (kinship, position, order, quantity, identity,
    containment: MCR's six categories; 2-6 hops; five languages)."""

    name = "compose"
    title = (
        "compose: generated, solver-verified relation questions (MCR's six categories: kinship, "
        "position, order, quantity, identity, containment; bundled, no download)"
    )
    params_model = ComposeParams
    task_options = staticmethod(options.task_options)
    reading_options = staticmethod(options.reading_options)

    def build_task(self, params: BenchmarkParams, data_dir: Path | None = None) -> Task:
        """Return the compose task of ``params`` (``data_dir`` is not used: the data is bundled
        or named by ``file``)."""
        from relreason.benchmarks.compose.prompts import build_task

        p = _compose(params)
        task = build_task(p.language, p.method, file=p.file, mode=p.mode)
        return with_cleanup(task, p.cleanup_model)

    def grid(self) -> dict[str, list[Any]]:
        """The five languages and MCR's three paper methods."""
        return {"language": list(LANGUAGES), "method": ["zs", "fs", "zsc"]}

    def run_name(self, params: BenchmarkParams) -> str:
        """``compose-<language>-<method>``; for a file of your own ``compose[-<language>]-
        <method>-<file stem>`` (the language when given)."""
        p = _compose(params)
        if p.file is None:
            return f"compose-{p.language or 'en'}-{p.method}"
        language = f"-{p.language}" if p.language else ""
        return f"compose{language}-{p.method}-{p.file.stem}"

    def params_from_description(self, description: Mapping[str, Any]) -> BenchmarkParams:
        """The parameters of a manifest's compose description."""
        try:
            file = description.get("file")
            return self.params(
                language=description["language"],
                method=description["method"],
                mode=description.get("mode", "robust"),
                file=Path(file) if file else None,
                cleanup_model=description.get("cleanup_model"),
            )
        except KeyError as missing:
            raise UsageError(f"the run's task description lacks the field {missing}") from None

    def report_sections(self) -> Sequence[ReportSection]:
        """Accuracy by domain, hops, options and language (``report.py``)."""
        from relreason.benchmarks.compose.report import SECTIONS

        return SECTIONS

    def listing(self) -> dict[str, Any]:
        """Languages, methods, domains and reading modes."""
        from relreason.generate.compose import DOMAINS

        return {
            "title": self.title,
            "languages": dict(LANGUAGES),
            "methods": list(METHODS),
            "domains": list(DOMAINS),
            "modes": list(MODES),
        }


def _compose(params: BenchmarkParams) -> ComposeParams:
    if not isinstance(params, ComposeParams):
        raise TypeError(f"expected ComposeParams, got {type(params).__name__}")
    return params


BENCHMARK = Compose()
