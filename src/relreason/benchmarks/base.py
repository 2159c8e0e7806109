"""What a benchmark is to the rest of relreason: one object with a typed parameter model.

The command line, sweeps, resume, download and report reach a benchmark only through this
interface (and the registry in :mod:`relreason.benchmarks`), never through its insides.
"""

from __future__ import annotations

import csv
import functools
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from relreason.data.spec import DataFiles
from relreason.types import EvalItem, Task

if TYPE_CHECKING:
    from relreason.analysis.sections import ReportSection


class BenchmarkParams(BaseModel):
    """Base of a benchmark's parameter model: frozen, unknown fields rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid")


P = TypeVar("P", bound=BenchmarkParams)
"""A benchmark's parameter model."""


@dataclass(frozen=True)
class PaperFigure:
    """One published accuracy: a paper model's figure for one cell (task x setting), in 0..1."""

    benchmark: str
    model: str
    task: str
    setting: str
    accuracy: float


class Benchmark(ABC, Generic[P]):
    """A benchmark: its parameters, tasks, sweep grid, run names, data files and paper figures.

    ``params_model`` is the one declaration of its parameters: each field (type, default,
    bounds, description, and a ``relreason.declare.Cli`` marker where the command line needs
    more) is a command-line option of ``prompts``/``score``/``run NAME``, a key of a sweep's run
    entry and a keyword of ``relreason.evaluate``; a run folder stores the values passed and
    ``--resume`` validates them back.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    params_model: type[P]
    files: ClassVar[DataFiles | None] = None
    reference_table: ClassVar[str | None] = None
    """A CSV file in the benchmark's package with the paper's figures (see ``paper_figures``)."""
    drill_label: ClassVar[str | None] = None
    """The item label the HTML report's drill-down panel filters this benchmark's items on."""

    @abstractmethod
    def build_task(self, params: P, data_dir: Path | None = None) -> Task:
        """Return the task ``params`` name; ``UsageError``/``DataError`` for bad values or data."""

    @abstractmethod
    def grid(self) -> dict[str, list[Any]]:
        """Return the default values a sweep spans for each axis it does not set."""

    def grid_for(self, given: Mapping[str, Any]) -> dict[str, list[Any]]:
        """The axes a sweep entry that sets ``given`` spans besides them (default:
        :meth:`grid`)."""
        return self.grid()

    @abstractmethod
    def run_name(self, params: P) -> str:
        """Return the canonical name of a run of ``params`` (a sweep's cell folder name)."""

    def params_from_description(self, description: Mapping[str, Any]) -> P:
        """Return the parameters of a run folder written before the description stored them
        (``params``, read back by ``params_model``): rebuilt from the description's fields.
        Only benchmarks with such older folders need it; the default refuses."""
        from relreason.errors import UsageError

        raise UsageError(f"the run's {self.name} task description does not record its params")

    def recorded_params(self, params: P, description: Mapping[str, Any]) -> P:
        """Return the parameters a run folder's ``description`` recorded, completed with what
        an older version filled in without recording it (e.g. ConvRe's default family); the
        default changes nothing."""
        return params

    def for_model(self, params: P, spec: str, api: str = "chat") -> P:
        """Return ``params`` with what depends on the model filled in (e.g. the official
        reading rule of the model's family); the default changes nothing."""
        return params

    def params(self, **values: Any) -> P:
        """Return validated parameters (``UsageError`` naming the bad field)."""
        from pydantic import ValidationError

        from relreason.errors import UsageError

        try:
            return self.params_model(**values)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise UsageError(f"{self.name}: {where}: {first['msg']}") from None

    def params_from_cli(self, **values: Any) -> P:
        """Return the parameters the command-line option values stand for (an option left
        unset, ``None``, takes the declared default)."""
        from relreason.declare import plain

        return self.params(**{k: plain(v) for k, v in values.items() if v is not None})

    def report_cell(self, description: Mapping[str, Any]) -> tuple[Any, Any]:
        """Return the (task, setting) a run is tabulated under (its paper table's row/column)."""
        return (None, None)

    def figures_at(self, task: Any, setting: Any) -> dict[str, float]:
        """Return paper model -> published accuracy for the paper's cell (``task``,
        ``setting``: a run's ``report_cell``), compared as text (empty when the paper has no
        figure there): the one place runs meet the papers' figures."""
        if task is None or setting is None:
            return {}
        cell = (str(task), str(setting))
        return {f.model: f.accuracy for f in self.paper_figures() if (f.task, f.setting) == cell}

    def paper_figures(self) -> list[PaperFigure]:
        """Return the paper's published figures (empty when the benchmark has none)."""
        if self.reference_table is None:
            return []
        package = type(self).__module__.rpartition(".")[0]
        text = package_text(package, self.reference_table)
        return self.parse_reference(list(csv.DictReader(text.splitlines())))

    def parse_reference(self, rows: list[dict[str, str]]) -> list[PaperFigure]:
        """Turn the reference CSV's rows into figures (each benchmark knows its table's shape)."""
        return []

    def reorder(self, item: EvalItem, order: tuple[int, ...]) -> EvalItem:
        """Return ``item`` with its options shown in ``order`` (``order[j]`` is the index of the
        option shown in position ``j``): prompt, gold and choice texts change, the gold
        following its option. Used by ``--permute``; ``UsageError`` when the benchmark cannot
        reorder its options (the default)."""
        from relreason.errors import UsageError

        raise UsageError(f"benchmark {self.name} cannot show its options in another order")

    def setting_text(self, setting: Any) -> Any:
        """Return how the report's runs table shows a run's setting (``report_cell``'s second
        value); the default shows it as it is."""
        return setting

    def settings_legend(self, settings: Sequence[Any]) -> str:
        """Return a sentence naming ``settings`` (the runs' ``report_cell`` settings) for the
        note of the report's runs table; the default says nothing."""
        return ""

    def report_sections(self) -> Sequence[ReportSection]:
        """Return the report's sections on this benchmark's runs, in the order shown (see
        :mod:`relreason.analysis.sections`); the default is none."""
        return ()

    def item_texts(
        self, description: Mapping[str, Any], data_dir: Path | None = None
    ) -> dict[str, dict[int, str]]:
        """Return the texts the report adds to a run's items besides the prompt (column name
        -> item index -> text; e.g. MCR's ``question``), rebuilt from the data files;
        ``DataError``/``OSError`` when they cannot be read. The default adds none."""
        return {}

    def listing(self) -> dict[str, Any]:
        """Return what ``relreason list`` shows of this benchmark (JSON-ready)."""
        return {"title": self.title, "grid": self.grid()}


@functools.lru_cache(maxsize=64)
def package_text(package: str, name: str) -> str:
    """Return the text of the file ``name`` shipped in ``package`` (read once per process)."""
    return resources.files(package).joinpath(name).read_text("utf-8")
