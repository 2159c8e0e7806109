"""What every MCR-style benchmark (MCR itself, the generated ``compose``) shares: options
reordered by writing the lettered answer choices again, and tables keyed by language and
method."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from relreason.benchmarks.base import Benchmark
from relreason.types import EvalItem


class McrStyle(Benchmark):
    """A benchmark whose items are MCR-style lettered multiple-choice questions."""

    def reorder(self, item: EvalItem, order: tuple[int, ...]) -> EvalItem:
        """``item`` with its options shown in ``order`` (the answer choices written again)."""
        from relreason.benchmarks.mcr.reorder import reorder_lettered

        return reorder_lettered(item, order)

    def report_cell(self, description: Mapping[str, Any]) -> tuple[Any, Any]:
        """The table cell of a run: its language code and method (MCR: Table 4's cell)."""
        return (description.get("language"), description.get("method"))
