"""Prefix-tree log-likelihood scoring for causal transformers models.

The rows of a whole task (see ``hf.choices.Row``) are put into a radix tree of their token
sequences: each node is a run of tokens shared by every row below it. The tree is run
depth-first: a node's key/value cache is computed once, on top of its parent's, and kept only
while its subtree runs; siblings go through the model together (right-padded, so no attention
mask is needed: a causal token never attends to the padding after it), or, for sdpa/eager
attention, packed into one row whose attention keeps each sibling to the parent and itself
(``tree_attention``; a block mask where that does not apply). The output layer
(``lm_head``) and the log-softmax are computed only at the positions whose log-probabilities are
read, not at every position. The cache of the tree's trunk (the tokens every row shares) is kept
between calls, so that consecutive calls on one task share it too.

Results equal the one-row-at-a-time computation up to float rounding (about 1e-5 in float32).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from transformers import DynamicCache

from relreason.models.hf.choices import (
    KV,
    _cache_kwarg,
    _kv_of,
    common_prefix_len,
)
from relreason.models.hf.lean_llama import LeanLlama
from relreason.models.hf.prefix_tree import (
    Node,
    TreeStats,
)
from relreason.models.hf.tree_attention import (
    SEGMENTS_KWARG,
    Segments,
    SegmentsUnsupported,
    flash_available,
    segment_attention,
)

PACK_TOKENS = 1024  # block-masked siblings per pass, in tokens (its attention is quadratic)
SEGMENT_TOKENS = 2048  # segmented siblings per pass, in tokens (linear; measured best here)
# Config attributes that change logits after the output layer; with any of them set the model
# is run whole (its logits kept at every position) instead of body + output layer.
_LOGIT_TRANSFORMS = ("final_logit_softcapping", "logit_scale", "logits_scaling")


def _own(t: torch.Tensor, parent_len: int, a: int, b: int) -> torch.Tensor:
    """A packed node's own cache: the parent's positions, then its tokens' (columns a:b)."""
    return torch.cat([t[:, :, :parent_len], t[:, :, a:b]], dim=-2)


class TreeRunner:
    """Runs a prefix tree through a causal LM and sums the log-probabilities it reads.

    ``head_only`` computes the output layer at the read positions only (else at every
    position, as lm-eval does; kept to measure what it saves). ``packed`` runs siblings as one
    row (sdpa/eager attention only), so the parent's cache is not copied per sibling and nothing
    is padded: with segmented attention (``tree_attention``; ``segmented``) when the model's
    attention allows, else with a block attention mask; not packed: right-padded rows
    (``pad_id``), at most ``batch_size`` per pass. For float32 Llama models on the CPU every
    pass goes through ``lean_llama.LeanLlama`` (``lean``) rather than transformers' forward.
    """

    def __init__(
        self,
        model: Any,
        batch_size: int,
        pad_id: int = 0,
        head_only: bool = True,
        packed: bool = True,
    ):
        self.model = model
        self.batch_size = max(1, batch_size)
        self.pad_id = pad_id
        self.stats = TreeStats()
        config = model.config
        split = all(getattr(config, a, None) in (None, 1, 1.0) for a in _LOGIT_TRANSFORMS)
        head = model.get_output_embeddings() if split else None
        prefix = getattr(model, "base_model_prefix", "")
        body = getattr(model, prefix, None) if prefix else None
        self.split = bool(split and head is not None and body is not None and body is not model)
        self.body: Any = body if self.split else model
        self.head: Any = head if self.split else None
        self.head_only = head_only and self.split
        self.cache_name = _cache_kwarg(self.body)
        attention = getattr(config, "_attn_implementation", None)
        kinds = {"sdpa": "bool", "eager": "float"}
        self.mask_kind: str | None = kinds.get(str(attention)) if packed else None
        self.segmented = self.mask_kind is not None
        lean_ok = self.segmented and self.head_only and flash_available(model.device)
        self.lean = LeanLlama.for_model(self.body) if lean_ok else None
        self.trunk: tuple[list[int], KV] = ([], [])

    def clear(self) -> None:
        """Forget the stored trunk cache (returns nothing)."""
        self.trunk = ([], [])

    def run(
        self, root: Node, n_slots: int, on_pass: Callable[[list[int], int], None] | None = None
    ) -> list[float]:
        """Run the tree rooted at ``root``; return the summed log-probability of every slot.

        ``on_pass``, when given, is called after each forward pass with the slots it read (a
        slot once per token read) and the number of tokens it ran."""
        acc = [0.0] * n_slots
        stored_tokens, stored_kv = self.trunk
        m = common_prefix_len(stored_tokens, root.tokens)
        if root.reads:
            m = min(m, min(r.pos for r in root.reads))
        past = [(k[..., :m, :], v[..., :m, :]) for k, v in stored_kv] if m > 0 else []
        trunk = Node(m, root.tokens[m:], root.reads, root.children)
        stack: list[tuple[KV, int, list[Node]]] = [(past, m, [trunk])]
        with torch.inference_mode():
            while stack:
                parent_kv, parent_len, chunk = stack.pop()
                if chunk[0] is trunk and not trunk.tokens:
                    kvs: list[KV | None] = [past]
                else:
                    kvs = self._chunk(parent_kv, parent_len, chunk, acc, keep_all=chunk[0] is trunk)
                    if on_pass is not None:
                        slots = [r.slot for n in chunk for r in n.reads]
                        on_pass(slots, sum(len(n.tokens) for n in chunk))
                if chunk[0] is trunk and root.tokens:
                    kv = kvs[0]
                    assert kv is not None
                    self.trunk = (list(root.tokens), kv)
                todo = [(kv, node) for kv, node in zip(kvs, chunk, strict=True) if node.children]
                for kv, node in reversed(todo):
                    assert kv is not None
                    groups = self._groups(node.children)
                    stack.extend((kv, node.end, g) for g in reversed(groups))
        return acc

    def _chunk(
        self, parent_kv: KV, parent_len: int, nodes: list[Node], acc: list[float], keep_all: bool
    ) -> list[KV | None]:
        """Run sibling ``nodes`` on top of ``parent_kv``; add their reads into ``acc``.

        Returns each node's own key/value cache (batch 1) when it has children or
        ``keep_all``, else None.
        """
        if self.lean is not None:
            return self._chunk_lean(parent_kv, parent_len, nodes, acc, keep_all)
        out, places = self._forward(parent_kv, parent_len, nodes)
        packed = len(places) > 1 and places[1][0] == 0  # every node in row 0
        self.stats.forward_passes += 1
        self.stats.computed_tokens += sum(len(n.tokens) for n in nodes)
        rows, cols, targets, slots = [], [], [], []
        for (row, first), n in zip(places, nodes, strict=True):
            for r in n.reads:
                rows.append(row)
                cols.append(first + r.pos - n.start)
                targets.append(r.target)
                slots.append(r.slot)
        if rows:
            self.stats.read_positions += len(rows)
            picked = self._logprobs(out, rows, cols, targets)
            for slot, value in zip(slots, picked, strict=True):
                acc[slot] += value
        kv_all = _kv_of(out, self.cache_name)
        result: list[KV | None] = []
        for (row, first), n in zip(places, nodes, strict=True):
            if not (n.children or keep_all):
                result.append(None)
            elif len(nodes) == 1:
                result.append(kv_all)
            elif packed:
                a, b = parent_len + first, parent_len + first + len(n.tokens)
                result.append(
                    [(_own(k, parent_len, a, b), _own(v, parent_len, a, b)) for k, v in kv_all]
                )
            else:
                own = [
                    (k[row : row + 1, :, : n.end], v[row : row + 1, :, : n.end]) for k, v in kv_all
                ]
                result.append([(k.clone(), v.clone()) for k, v in own])
        return result

    def _chunk_lean(
        self, parent_kv: KV, parent_len: int, nodes: list[Node], acc: list[float], keep_all: bool
    ) -> list[KV | None]:
        """``_chunk`` through ``LeanLlama``: the output layer runs once per distinct read
        position; each node's cache is the parent's followed by its own columns."""
        assert self.lean is not None
        device = self.model.device
        lens = [len(n.tokens) for n in nodes]
        segments = Segments.of(parent_len, lens, device)
        firsts = [0, *torch.tensor(lens).cumsum(0).tolist()[:-1]]
        reads = [
            (first + r.pos - n.start, r)
            for first, n in zip(firsts, nodes, strict=True)
            for r in n.reads
        ]
        columns = sorted({col for col, _ in reads})
        where = {col: k for k, col in enumerate(columns)}
        ids = torch.tensor([t for n in nodes for t in n.tokens], device=device)
        positions = (parent_len + segments.offset).to(device)
        hidden, new = self.lean.forward(
            ids, positions, parent_kv, segments, torch.tensor(columns, dtype=torch.long)
        )
        self.stats.forward_passes += 1
        self.stats.computed_tokens += sum(lens)
        if reads:
            self.stats.read_positions += len(reads)
            logprobs = torch.log_softmax(self.head(hidden).float(), dim=-1)
            rows = torch.tensor([where[col] for col, _ in reads])
            targets = torch.tensor([r.target for _, r in reads])
            for (_, r), value in zip(reads, logprobs[rows, targets].tolist(), strict=True):
                acc[r.slot] += value
        result: list[KV | None] = []
        for first, n in zip(firsts, nodes, strict=True):
            if not (n.children or keep_all):
                result.append(None)
                continue
            end = first + len(n.tokens)
            own = [(k[:, :, first:end], v[:, :, first:end]) for k, v in new]
            if parent_kv:
                own = [
                    (torch.cat([pk, k], dim=-2), torch.cat([pv, v], dim=-2))
                    for (pk, pv), (k, v) in zip(parent_kv, own, strict=True)
                ]
            result.append([(k.contiguous(), v.contiguous()) for k, v in own])
        return result

    def _forward(
        self, parent_kv: KV, parent_len: int, nodes: list[Node]
    ) -> tuple[Any, list[tuple[int, int]]]:
        """Run ``nodes`` on top of ``parent_kv``: the output and, per node, the (row, column)
        of its first token. Packed: one row holding every node, a block mask keeping each to
        itself and the parent. Else one right-padded row per node, the parent cache repeated."""
        device = self.model.device
        lens = [len(n.tokens) for n in nodes]
        name = self.cache_name
        if self.mask_kind is not None and len(nodes) > 1:
            segments = Segments.of(parent_len, lens, device)
            packed: dict[str, Any] = {
                "input_ids": torch.tensor([[t for n in nodes for t in n.tokens]], device=device),
                "position_ids": (parent_len + segments.offset)[None, :].to(device),
                "use_cache": True,
            }
            out = None
            if self.segmented:
                try:
                    with segment_attention(self.body.config):
                        out = self.body(
                            **packed, **{name: self._cache(parent_kv)}, **{SEGMENTS_KWARG: segments}
                        )
                except SegmentsUnsupported:
                    self.segmented = False  # this model: the block mask from now on
                layers = getattr(self.body.config, "num_hidden_layers", None)
                if out is not None and segments.calls != layers:
                    # Some layer attended without the segments (its own attention code, not
                    # transformers' interface): that pass is wrong; the block mask instead.
                    out, self.segmented = None, False
            if out is None:
                dtype = self.model.dtype if self.mask_kind == "float" else None
                mask = segments.block_mask(dtype).to(device)
                out = self.body(**packed, attention_mask=mask, **{name: self._cache(parent_kv)})
            firsts = torch.tensor([0, *lens[:-1]]).cumsum(0).tolist()
            return out, [(0, f) for f in firsts]
        batch, width = len(nodes), max(lens)
        ids = torch.full((batch, width), self.pad_id, dtype=torch.long)
        for i, n in enumerate(nodes):
            ids[i, : len(n.tokens)] = torch.tensor(n.tokens, dtype=torch.long)
        positions = torch.arange(parent_len, parent_len + width)[None, :].expand(batch, width)
        expanded = [
            (k.expand(batch, -1, -1, -1), v.expand(batch, -1, -1, -1)) for k, v in parent_kv
        ]
        out = self.body(
            input_ids=ids.to(device),
            position_ids=positions.to(device),
            use_cache=True,
            **{name: self._cache(expanded)},
        )
        return out, [(i, 0) for i in range(batch)]

    @staticmethod
    def _cache(kv: KV) -> DynamicCache:
        """A fresh cache holding ``kv`` (the model's updates never reach ``kv`` itself)."""
        return DynamicCache(list(kv)) if kv else DynamicCache()

    def _groups(self, children: list[Node]) -> list[list[Node]]:
        """Siblings, longest first, in groups: segmented, of at most ``SEGMENT_TOKENS`` tokens;
        block-masked, of ``batch_size`` nodes and at most ``PACK_TOKENS`` tokens; padded, of
        ``batch_size`` nodes (a node longer than the limit is a group of its own)."""
        groups: list[list[Node]] = []
        size = 0
        packed = self.mask_kind is not None
        linear = packed and (self.segmented or self.lean is not None)
        limit = SEGMENT_TOKENS if linear else PACK_TOKENS
        for c in sorted(children, key=lambda c: -len(c.tokens)):
            full = groups and (
                (len(groups[-1]) >= self.batch_size and not linear)
                or (packed and size + len(c.tokens) > limit)
            )
            if not groups or full:
                groups.append([])
                size = 0
            groups[-1].append(c)
            size += len(c.tokens)
        return groups

    def _logprobs(
        self, out: Any, rows: list[int], cols: list[int], targets: list[int]
    ) -> list[float]:
        """Log-probabilities of ``targets`` at (row, col) of the pass's output."""
        r = torch.tensor(rows, device=self.model.device)
        c = torch.tensor(cols, device=self.model.device)
        t = torch.tensor(targets, device=self.model.device)
        if not self.split:
            logits = out.logits[r, c]
        elif self.head_only:
            logits = self.head(out.last_hidden_state[r, c])
        else:
            logits = self.head(out.last_hidden_state)[r, c]
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        return [float(x) for x in logprobs[torch.arange(len(rows)), t].tolist()]
