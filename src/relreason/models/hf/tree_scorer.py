"""Scoring rows through a prefix tree, a task at a time: ``PrefixTreeScorer`` builds the tree
of the rows it is given (``prefix_tree``), runs it (``hf.tree_runner.TreeRunner``) and keeps
prepared results until the runner asks for them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from relreason.models.hf.choices import PrefixStats, Row
from relreason.models.hf.prefix_tree import (
    Read,
    TreeStats,
    build_tree,
    merge_small,
    rows_to_reads,
)
from relreason.models.hf.tree_runner import TreeRunner


class PrefixTreeScorer:
    """Scores ``Row``s through a prefix tree; ``prepare`` scores a whole task ahead of time.

    ``prepare(rows)`` runs all of a task's rows as one tree and keeps each result until a
    later ``score`` asks for that row (then it is dropped); rows not prepared are run as a tree
    of their own (still reusing the trunk cache of the previous call). ``prefix_stats``, when
    given, also counts row tokens served from a cache (reused) vs run (computed).
    """

    def __init__(
        self,
        model: Any,
        batch_size: int,
        pad_id: int = 0,
        head_only: bool = True,
        prefix_stats: PrefixStats | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ):
        self.runner = TreeRunner(model, batch_size, pad_id, head_only)
        self.prefix_stats = prefix_stats
        self.on_progress = on_progress  # (requests whose every row is scored, tokens run)
        # (row tokens, continuation ids) -> [log-probability, rows still to be served]
        self.memo: dict[tuple[tuple[int, ...], tuple[int, ...]], list[float]] = {}

    @property
    def stats(self) -> TreeStats:
        """The runner's counters."""
        return self.runner.stats

    def clear(self) -> None:
        """Drop prepared results and the trunk cache (returns nothing)."""
        self.memo.clear()
        self.runner.clear()

    def _run(self, rows: Sequence[Row]) -> list[dict[str, float]]:
        reads, slots = rows_to_reads(rows)
        root = merge_small(build_tree([r.tokens for r in rows], reads))
        row_tokens = sum(len(r.tokens) for r in rows)
        self.stats.row_tokens += row_tokens
        before = self.stats.computed_tokens
        acc = self.runner.run(root, len(slots), self._tracker(rows, reads, slots))
        if self.prefix_stats is not None:
            computed = self.stats.computed_tokens - before
            self.prefix_stats.computed_tokens += computed
            self.prefix_stats.reused_tokens += max(row_tokens - computed, 0)
        results: list[dict[str, float]] = [{} for _ in rows]
        for (j, label), value in zip(slots, acc, strict=True):
            results[j][label] = value
        return results

    def _tracker(
        self, rows: Sequence[Row], reads: list[list[Read]], slots: list[tuple[int, str]]
    ) -> Callable[[list[int], int], None] | None:
        """A pass listener that reports each request (row owner) once its last read is done."""
        report = self.on_progress
        if report is None:
            return None
        left_per_slot = Counter(r.slot for mine in reads for r in mine)
        owner_of = [rows[j].owner for j, _ in slots]
        left_per_owner = Counter(owner_of[slot] for slot in left_per_slot)

        def on_pass(read_slots: list[int], tokens: int) -> None:
            finished = 0
            for slot in read_slots:
                left_per_slot[slot] -= 1
                if left_per_slot[slot] == 0:
                    left_per_owner[owner_of[slot]] -= 1
                    finished += left_per_owner[owner_of[slot]] == 0
            report(finished, tokens)

        return on_pass

    def prepare(self, rows: Sequence[Row]) -> None:
        """Score ``rows`` now (one tree) and keep the results for later ``score`` calls."""
        for row, result in zip(rows, self._run(rows), strict=True):
            key = tuple(row.tokens)
            for label, value in result.items():
                entry = self.memo.setdefault((key, tuple(row.targets[label])), [value, 0])
                entry[1] += 1  # a duplicate request is served twice

    def _take(self, key: tuple[tuple[int, ...], tuple[int, ...]]) -> float:
        entry = self.memo[key]
        entry[1] -= 1
        if entry[1] <= 0:
            del self.memo[key]
        return entry[0]

    def score(self, rows: Sequence[Row]) -> list[dict[str, float]]:
        """Return, per row, label -> summed log-probability of its continuation tokens."""
        results: list[dict[str, float] | None] = []
        missing: list[int] = []
        for j, row in enumerate(rows):
            key = tuple(row.tokens)
            keys = {label: (key, tuple(ids)) for label, ids in row.targets.items()}
            if all(k in self.memo for k in keys.values()):
                results.append({label: self._take(k) for label, k in keys.items()})
                self.stats.memo_hits += 1
            else:
                results.append(None)
                missing.append(j)
        if missing:
            fresh = self._run([rows[j] for j in missing])
            for j, result in zip(missing, fresh, strict=True):
                results[j] = result
        return [r if r is not None else {} for r in results]
