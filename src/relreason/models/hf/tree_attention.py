"""Attention for packed siblings: each sibling sees the shared parent and itself, nothing else.

The prefix tree (``hf.tree_runner``) runs a node's children as one packed row on top of the
parent's key/value cache. A block attention mask gives the right answer but makes every token
attend to every other sibling too (masked work that is still computed: the cost grows with the
square of the packed length). Here the two parts are computed apart, each without waste:

- every packed token against the parent's keys: one dense attention, no mask;
- each sibling against its own keys: the siblings right-padded into a batch, causal;

and merged exactly by their log-sum-exp (softmax over the union of the two key sets). The CPU
flash-attention kernel returns that log-sum-exp; without it (another device or torch) the
pass raises ``SegmentsUnsupported`` and the caller runs it with the block mask instead
(``Segments.block_mask``).

Used through transformers' attention interface under the name ``ATTENTION_NAME``, switched on
only for the duration of one forward pass (``segment_attention``); every other call falls
through to the model's usual attention.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import repeat_kv, sdpa_attention_forward
from transformers.masking_utils import AttentionMaskInterface

ATTENTION_NAME = "relreason_segments"
SEGMENTS_KWARG = "relreason_segments"
# Attention features this computation does not reproduce; with any of them set, the block mask.
_UNSUPPORTED = ("softcap", "sliding_window", "s_aux", "position_bias")
_FLASH: Any = getattr(torch.ops.aten, "_scaled_dot_product_flash_attention_for_cpu", None)


def flash_available(device: Any) -> bool:
    """Whether segmented attention can run on ``device`` (the CPU flash kernel is present)."""
    return _FLASH is not None and torch.device(device).type == "cpu"


class SegmentsUnsupported(RuntimeError):
    """This model's attention (or device) is not one the segmented computation reproduces."""


@dataclass
class Segments:
    """The layout of one packed pass: ``parent_len`` cached positions, then siblings of
    ``lens`` tokens each, back to back; index tensors to move between packed and padded."""

    parent_len: int
    lens: list[int]
    pad_index: torch.Tensor  # (siblings, longest): packed position of each padded slot
    valid: torch.Tensor  # (siblings * longest,): padded slots holding a real token
    owner: torch.Tensor  # (packed,): the sibling each packed token belongs to
    offset: torch.Tensor  # (packed,): each packed token's place within its sibling
    calls: int = 0  # attention calls that used this layout (one per layer if the model obeys)

    @classmethod
    def of(cls, parent_len: int, lens: list[int], device: Any) -> Segments:
        """The layout of siblings of ``lens`` tokens packed after ``parent_len`` positions."""
        longest, total = max(lens), sum(lens)
        starts = torch.tensor([0, *lens[:-1]]).cumsum(0)
        steps = torch.arange(longest)
        inside = steps[None, :] < torch.tensor(lens)[:, None]
        index = (starts[:, None] + steps[None, :]).clamp(max=total - 1)
        valid = inside.reshape(-1).nonzero().squeeze(1)
        owner = torch.repeat_interleave(torch.arange(len(lens)), torch.tensor(lens))
        offset = torch.cat([torch.arange(n) for n in lens])
        return cls(parent_len, lens, index.to(device), valid.to(device), owner, offset)

    def block_mask(self, dtype: torch.dtype | None = None) -> torch.Tensor:
        """The equivalent (1, 1, packed, parent + packed) mask: bool, or additive in ``dtype``."""
        owner, offset = self.owner, self.offset
        own = (owner[:, None] == owner[None, :]) & (offset[None, :] <= offset[:, None])
        mask = torch.cat([torch.ones(len(owner), self.parent_len, dtype=torch.bool), own], dim=1)
        if dtype is not None:
            floor = torch.finfo(dtype).min
            return torch.zeros(mask.shape, dtype=dtype).masked_fill(~mask, floor)[None, None]
        return mask[None, None]


def segment_attention_forward(
    module: Any,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    dropout: float = 0.0,
    scaling: float | None = None,
    **kwargs: Any,
) -> tuple[torch.Tensor, None]:
    """transformers attention function: segmented attention when the pass carries
    ``Segments``, else the ordinary sdpa attention. Raises ``SegmentsUnsupported`` for
    attention features it does not reproduce (soft-capping, sliding windows, sinks, biases)."""
    segments = kwargs.get(SEGMENTS_KWARG)
    if segments is None:
        return sdpa_attention_forward(
            module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, **kwargs
        )
    plain = (
        flash_available(query.device)
        and query.shape[0] == 1
        and dropout == 0.0
        and getattr(module, "is_causal", True)
        and all(kwargs.get(k) is None for k in _UNSUPPORTED)
    )
    if not plain:
        raise SegmentsUnsupported(type(module).__name__)
    segments.calls += 1
    scale = scaling if scaling is not None else query.shape[-1] ** -0.5
    parent = segments.parent_len
    past = (key[:, :, :parent], value[:, :, :parent]) if parent else None
    own_kv = key[:, :, parent:], value[:, :, parent:]
    return segmented_attention(query, past, *own_kv, segments, scale), None


def segmented_attention(
    query: torch.Tensor,
    past: tuple[torch.Tensor, torch.Tensor] | None,
    key: torch.Tensor,
    value: torch.Tensor,
    segments: Segments,
    scale: float,
) -> torch.Tensor:
    """Attention of packed siblings (see the module doc): ``query`` (1, heads, packed, dim);
    ``past`` the parent's (key, value) or None, ``key``/``value`` the packed tokens' own, each
    (1, kv_heads, tokens, dim). Returns (1, packed, heads, dim). CPU flash kernel only."""
    _, heads, packed, dim = query.shape
    kv_heads = key.shape[1]
    groups = heads // kv_heads
    index, valid = segments.pad_index, segments.valid
    # Own part: siblings right-padded into a batch, causal; heads share keys by repetition.
    # Tensors are indexed token-first ((tokens, heads, dim) views) so that gathers are the only
    # copies; the kernel takes strided inputs and lays its output out token-first too.
    padded_q = query[0].transpose(0, 1)[index].transpose(1, 2)  # siblings, heads, longest, dim
    padded_k = repeat_kv(key[0].transpose(0, 1)[index].transpose(1, 2), groups)
    padded_v = repeat_kv(value[0].transpose(0, 1)[index].transpose(1, 2), groups)
    own, own_lse = _flash(padded_q, padded_k, padded_v, True, scale)
    own = own.transpose(1, 2).reshape(-1, heads, dim)[valid]  # packed, heads, dim
    own_lse = own_lse.transpose(1, 2).reshape(-1, heads)[valid]
    if past is None:
        return own.unsqueeze(0)
    # Shared part: no mask, so the query heads of one key/value head go as one longer query.
    grouped_q = query.reshape(1, kv_heads, groups * packed, dim)
    shared, shared_lse = _flash(grouped_q, past[0], past[1], False, scale)
    shared = shared.reshape(heads, packed, dim).transpose(0, 1)
    shared_lse = shared_lse.reshape(heads, packed).transpose(0, 1)
    total = torch.logaddexp(shared_lse, own_lse)
    out = own * torch.exp(own_lse - total).unsqueeze(-1)
    out.addcmul_(shared, torch.exp(shared_lse - total).unsqueeze(-1))
    return out.to(query.dtype).unsqueeze(0)  # the log-sum-exps are float32: back to bf16/fp16


def _flash(
    query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, causal: bool, scale: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """CPU flash attention: the output and the log-sum-exp of each query's scores."""
    out, lse = _FLASH(query, key, value, 0.0, causal, scale=scale)
    return out, lse


def _no_mask(*args: Any, **kwargs: Any) -> None:
    """Mask builder for ``ATTENTION_NAME``: the segments are the mask (see Segments)."""
    return None


AttentionInterface.register(ATTENTION_NAME, segment_attention_forward)
AttentionMaskInterface.register(ATTENTION_NAME, _no_mask)


@contextmanager
def segment_attention(config: Any) -> Iterator[None]:
    """Switch ``config``'s attention to the segmented one for the block, then back."""
    before = config._attn_implementation
    config._attn_implementation = ATTENTION_NAME
    try:
        yield
    finally:
        config._attn_implementation = before
