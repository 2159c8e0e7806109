"""The compose ``Benchmark``: generated, solver-verified questions, prompted and read as MCR."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from relreason.benchmarks.mcr.cleanup import with_cleanup
from relreason.benchmarks.mcr.data import LANGUAGES, METHODS, MODES
from relreason.benchmarks.mcr.style import McrReading, McrStyle
from relreason.types import Task

if TYPE_CHECKING:
    from relreason.analysis.sections import ReportSection

DOMAINS: tuple[str, ...] = ("kinship", "position", "order", "quantity", "identity", "containment")
"""``relreason.generate.compose.DOMAINS``, written out: the listing builds the command line's
help, and importing any of ``generate/`` imports all of it (tests/test_startup_imports.py)."""


class ComposeParams(McrReading):
    """A compose task: a language (code or long name), a method (MCR's), a generated file, and
    how answers are read (as MCR: ``McrReading``)."""

    language: Annotated[
        str | None,
        Field(
            description="en zh fr ja ko (default: the file's language, or en for the bundled set)."
        ),
    ] = None
    method: Annotated[
        str,
        Field(
            description="zs | zsc | fs | fs-english | fs-multilingual (exemplars are generated)."
        ),
    ] = "zs"
    file: Annotated[
        Path | None,
        Field(description="A file from 'relreason generate compose' (default: the bundled set)."),
    ] = None


class Compose(McrStyle[ComposeParams]):
    """Generated relation questions (kinship, position, order, quantity, identity,
    containment: MCR's six categories; 2-6 hops; five languages)."""

    name = "compose"
    title = (
        "compose: generated, solver-verified relation questions (MCR's six categories: kinship, "
        "position, order, quantity, identity, containment; bundled, no download)"
    )
    params_model = ComposeParams
    own_file = ("file", "file")

    def build_task(self, params: ComposeParams, data_dir: Path | None = None) -> Task:
        """Return the compose task of ``params`` (``data_dir`` is not used: the data is bundled
        or named by ``file``)."""
        from relreason.benchmarks.compose.prompts import build_task

        task = build_task(params.language, params.method, file=params.file, mode=params.mode)
        return with_cleanup(task, params.cleanup_model)

    def grid(self) -> dict[str, list[Any]]:
        """The five languages and MCR's three paper methods."""
        return {"language": list(LANGUAGES), "method": ["zs", "fs", "zsc"]}

    def grid_for(self, given: Mapping[str, Any]) -> dict[str, list[Any]]:
        """With a ``file`` of your own, no language axis: the file's own language (a file of
        several languages is refused, naming them), never the five bundled ones' names."""
        grid = self.grid()
        if given.get("file") is not None:
            grid.pop("language")
        return grid

    def run_name(self, params: ComposeParams) -> str:
        """``compose-<language>-<method>``; for a file of your own ``compose[-<language>]-
        <method>-<file stem>`` (the language when given)."""
        if params.file is None:
            return f"compose-{params.language or 'en'}-{params.method}"
        language = f"-{params.language}" if params.language else ""
        return f"compose{language}-{params.method}-{params.file.stem}"

    def report_sections(self) -> Sequence[ReportSection]:
        """Accuracy by domain, hops, options and language (``report.py``)."""
        from relreason.benchmarks.compose.report import SECTIONS

        return SECTIONS

    def listing(self) -> dict[str, Any]:
        """Languages, methods, domains and reading modes."""
        return {
            "title": self.title,
            "languages": dict(LANGUAGES),
            "methods": list(METHODS),
            "domains": list(DOMAINS),
            "modes": list(MODES),
        }


BENCHMARK = Compose()
