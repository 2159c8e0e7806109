"""Segmented attention for packed siblings (``relreason.models.hf.tree_attention``), with no
model: the layout's index tensors (property tests) and the attention itself against the
ordinary attention under the equivalent block mask, on random tensors of every shape."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from relreason.models.hf.tree_attention import (
    Segments,
    SegmentsUnsupported,
    flash_available,
    segment_attention_forward,
    segmented_attention,
)

lengths = st.lists(st.integers(1, 9), min_size=1, max_size=6)


@given(st.integers(0, 12), lengths)
def test_the_layout_maps_every_packed_token_once(parent: int, lens: list[int]) -> None:
    seg = Segments.of(parent, lens, "cpu")
    total = sum(lens)
    padded = seg.pad_index.reshape(-1)[seg.valid]
    assert padded.tolist() == list(range(total)), "padded slots read back in packed order"
    assert seg.pad_index.shape == (len(lens), max(lens))
    assert seg.owner.tolist() == [i for i, n in enumerate(lens) for _ in range(n)]
    assert seg.offset.tolist() == [k for n in lens for k in range(n)]
    mask = seg.block_mask()[0, 0]
    assert mask.shape == (total, parent + total)
    assert bool(mask[:, :parent].all()), "every token sees the whole parent"
    assert int(mask[:, parent:].sum()) == sum(n * (n + 1) // 2 for n in lens)


class _Module:
    """Stands in for an attention module: the two attributes the function reads."""

    is_causal = True
    num_key_value_groups = 1


@pytest.mark.skipif(not flash_available("cpu"), reason="this torch has no CPU flash kernel")
@settings(deadline=None, max_examples=40)
@given(
    st.integers(0, 20),
    lengths,
    st.sampled_from([(1, 1), (4, 2), (6, 3), (3, 3)]),
    st.sampled_from([8, 16]),
    st.integers(0, 2**31 - 1),
)
def test_segmented_attention_equals_the_block_masked_attention(
    parent: int, lens: list[int], heads: tuple[int, int], dim: int, seed: int
) -> None:
    q_heads, kv_heads = heads
    gen = torch.Generator().manual_seed(seed)
    total = sum(lens)
    query = torch.randn(1, q_heads, total, dim, generator=gen)
    key = torch.randn(1, kv_heads, parent + total, dim, generator=gen)
    value = torch.randn(1, kv_heads, parent + total, dim, generator=gen)
    seg = Segments.of(parent, lens, "cpu")
    past = (key[:, :, :parent], value[:, :, :parent]) if parent else None
    got = segmented_attention(query, past, key[:, :, parent:], value[:, :, parent:], seg, dim**-0.5)
    want = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=seg.block_mask(), enable_gqa=True
    ).transpose(1, 2)
    assert got.shape == (1, total, q_heads, dim)
    assert torch.allclose(got, want, atol=1e-5), float((got - want).abs().max())


def test_features_it_does_not_reproduce_are_refused() -> None:
    seg = Segments.of(2, [3], "cpu")
    q, kv = torch.randn(1, 2, 3, 8), torch.randn(1, 2, 5, 8)
    kwargs: dict[str, Any] = {"relreason_segments": seg, "softcap": 30.0}
    with pytest.raises(SegmentsUnsupported):
        segment_attention_forward(_Module(), q, kv, kv, None, **kwargs)
    # Without segments it is the ordinary attention.
    out, _ = segment_attention_forward(_Module(), q, kv[:, :, :3], kv[:, :, :3], None)
    want = torch.nn.functional.scaled_dot_product_attention(
        q, kv[:, :, :3], kv[:, :, :3], is_causal=True
    )
    assert torch.allclose(out, want.transpose(1, 2), atol=1e-6)
