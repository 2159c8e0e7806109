"""What every MCR-style benchmark (MCR itself, the generated ``compose``) shares: options
reordered by writing the lettered answer choices again, and tables keyed by language and
method."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, field_validator

from relreason.benchmarks.base import Benchmark, BenchmarkParams
from relreason.declare import Cli, Role
from relreason.errors import UsageError
from relreason.types import EvalItem


class McrReading(BenchmarkParams):
    """How MCR-style answers are read: the reading ``mode`` and its optional clean-up model
    (the parameters MCR and compose share)."""

    mode: Annotated[
        Literal["robust", "paper"],
        Cli(reading=True),
        Field(
            description="robust: a sound reader of explicit answers in five languages; paper: "
            "the official rule (the first capital A-G anywhere in the output)."
        ),
    ] = "robust"
    cleanup_model: Annotated[
        str | None,
        Cli(reading=True),
        Role("cleanup"),
        Field(
            description="Paper reading: ask this model (a model spec) the official clean-up "
            "question where the paper's rule finds no letter or several, as the paper did "
            "(it used openai:gpt-4o-mini-2024-07-18)."
        ),
    ] = None

    @field_validator("mode", mode="before")
    @classmethod
    def _any_case(cls, value: Any) -> Any:
        """``Paper`` or `` robust `` name a mode too."""
        return value.strip().lower() if isinstance(value, str) else value


R = TypeVar("R", bound=McrReading)
"""The parameter model of an MCR-style benchmark."""


class McrStyle(Benchmark[R]):
    """A benchmark whose items are MCR-style lettered multiple-choice questions."""

    own_file: tuple[str, str]
    """The file of one's own a run may name: its key in a task description, its parameter."""

    def reorder(self, item: EvalItem, order: tuple[int, ...]) -> EvalItem:
        """``item`` with its options shown in ``order`` (the answer choices written again)."""
        from relreason.benchmarks.mcr.reorder import reorder_lettered

        return reorder_lettered(item, order)

    def report_cell(self, description: Mapping[str, Any]) -> tuple[Any, Any]:
        """The table cell of a run: its language code and method (MCR: Table 4's cell)."""
        return (description.get("language"), description.get("method"))

    def params_from_description(self, description: Mapping[str, Any]) -> R:
        """The parameters of a manifest's description: language, method, reading and the
        file of one's own (``own_file``)."""
        key, field = self.own_file
        try:
            path = description.get(key)
            return self.params(
                language=description["language"],
                method=description["method"],
                mode=description.get("mode", "robust"),
                cleanup_model=description.get("cleanup_model"),
                **{field: Path(path) if path else None},
            )
        except KeyError as missing:
            raise UsageError(f"the run's task description lacks the field {missing}") from None
