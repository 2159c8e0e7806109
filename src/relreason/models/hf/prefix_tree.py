"""The prefix tree of a task's token sequences (pure Python, no model): a radix tree whose
nodes are runs of tokens shared by every row below them, with the log-probabilities to read
attached to the node holding their position. ``relreason.models.hf.tree_runner`` runs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from relreason.models.hf.choices import Row

MIN_SHARED = 16  # shorter shared runs are folded into their children (see merge_small)


@dataclass
class Read:
    """One log-probability to read: the logits at ``pos`` scored against token ``target``."""

    pos: int
    target: int
    slot: int


@dataclass
class Node:
    """A run of tokens starting at absolute position ``start``, shared by all rows below it."""

    start: int
    tokens: list[int] = field(default_factory=list)
    reads: list[Read] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)

    @property
    def end(self) -> int:
        """Absolute position just past the node's last token."""
        return self.start + len(self.tokens)


@dataclass
class TreeStats:
    """Counters: tokens in the rows vs tokens run through the model, passes, positions read."""

    row_tokens: int = 0
    computed_tokens: int = 0
    forward_passes: int = 0
    read_positions: int = 0
    memo_hits: int = 0


def _lcp_from(a: Sequence[int], b: Sequence[int], start: int) -> int:
    """Length of the common prefix of ``a`` and ``b``, given that ``start`` tokens agree."""
    n = min(len(a), len(b))
    i = start
    while i < n and a[i] == b[i]:
        i += 1
    return i


def build_tree(seqs: Sequence[Sequence[int]], reads: Sequence[Sequence[Read]]) -> Node:
    """Return the radix tree of ``seqs``; each read goes to the node holding its position.

    The root holds the longest prefix common to every sequence (possibly empty); a child
    starts where its sequences first differ from their siblings'. ``reads[i]`` are sequence
    ``i``'s reads, with ``0 <= pos < len(seqs[i])``.
    """
    root = Node(0)
    if not seqs:
        return root
    order = sorted(range(len(seqs)), key=lambda i: list(seqs[i]))
    stack: list[tuple[Node, int, int]] = [(root, 0, len(order))]
    while stack:
        node, lo, hi = stack.pop()
        first, last = seqs[order[lo]], seqs[order[hi - 1]]
        end = _lcp_from(first, last, node.start)  # sorted: the group's LCP is first vs last
        node.tokens = list(first[node.start : end])
        for k in range(lo, hi):
            node.reads.extend(r for r in reads[order[k]] if node.start <= r.pos < end)
        k = lo
        while k < hi and len(seqs[order[k]]) == end:
            k += 1
        while k < hi:
            token, g = seqs[order[k]][end], k
            while g < hi and seqs[order[g]][end] == token:
                g += 1
            child = Node(end)
            node.children.append(child)
            stack.append((child, k, g))
            k = g
    return root


def merge_small(root: Node, min_tokens: int = MIN_SHARED) -> Node:
    """Fold every non-root node shorter than ``min_tokens`` that has children and no reads
    into its children (each then starts with its tokens): sharing a few tokens costs more in
    extra, smaller forward passes than it saves. Returns ``root``, changed in place."""
    stack = [root]
    while stack:
        node = stack.pop()
        kids: list[Node] = []
        todo = list(node.children)
        while todo:
            c = todo.pop()
            if c.children and not c.reads and len(c.tokens) < min_tokens:
                for g in c.children:
                    g.tokens, g.start = c.tokens + g.tokens, c.start
                todo.extend(c.children)
            else:
                kids.append(c)
        node.children = kids[::-1]
        stack.extend(kids)
    return root


def rows_to_reads(rows: Sequence[Row]) -> tuple[list[list[Read]], list[tuple[int, str]]]:
    """Each row's reads and the (row index, label) that each accumulator slot sums.

    A continuation of ``k`` tokens is read off the row's last ``k`` positions, as lm-eval does.
    Raises ValueError if a continuation is longer than its row.
    """
    reads: list[list[Read]] = []
    slots: list[tuple[int, str]] = []
    for j, row in enumerate(rows):
        n = len(row.tokens)
        mine: list[Read] = []
        for label, ids in row.targets.items():
            if not ids or len(ids) > n:
                raise ValueError(f"continuation of {len(ids)} tokens on a row of {n}")
            slot = len(slots)
            slots.append((j, label))
            mine.extend(Read(n - len(ids) + t, tok, slot) for t, tok in enumerate(ids))
        reads.append(mine)
    return reads, slots
