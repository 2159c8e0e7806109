"""A lean forward pass for prefix-tree scoring of Llama models, over the model's own modules.

The prefix tree (``hf.tree_runner``) runs packed siblings on top of a parent's key/value cache
and reads a few positions. transformers' forward computes the same thing with more work than
that needs; this one, written for that use only:

- attends with ``tree_attention`` directly (the parent's keys are never copied into a cache);
- in the last layer, computes the key/value projections at every position (children need
  them) but the rest of the layer (query, attention, output projection, MLP) only at the
  positions read;
- normalises with one fused ``rms_norm`` and applies the MLP's activation in place.

Every weight, the rotary embedding and the projections are the model's own modules, so the
results equal transformers' forward up to float rounding (tests compare them). Only models whose
layers are exactly Llama's are taken (``LeanLlama.for_model``); others use transformers' forward.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.nn import functional

from relreason.models.hf.tree_attention import Segments, segmented_attention

KV = list[tuple[torch.Tensor, torch.Tensor]]
_LLAMA_PARTS = ("LlamaModel", "LlamaDecoderLayer", "LlamaAttention", "LlamaMLP", "LlamaRMSNorm")


class LeanLlama:
    """Packed forward passes over a ``LlamaModel`` body (see the module doc)."""

    def __init__(self, body: Any):
        self.body = body
        self.layers = list(body.layers[: body.config.num_hidden_layers])
        first = self.layers[0].self_attn
        self.heads = body.config.num_attention_heads
        self.kv_heads = body.config.num_key_value_heads
        self.head_dim = first.head_dim
        self.scale = float(first.scaling)

    @classmethod
    def for_model(cls, body: Any) -> LeanLlama | None:
        """A ``LeanLlama`` for ``body`` if its parts are exactly Llama's (silu MLP, RMS norms,
        no sliding window, no dropout) in float32, else None (in half precision transformers'
        norm rounds in steps the fused one does not repeat)."""
        config = getattr(body, "config", None)
        layers = getattr(body, "layers", None)
        if config is None or not layers or type(body).__name__ != "LlamaModel":
            return None
        layer = layers[0]
        parts = [body, layer, layer.self_attn, layer.mlp, layer.input_layernorm, body.norm]
        names = [type(p).__name__ for p in parts]
        if names != [*_LLAMA_PARTS, "LlamaRMSNorm"]:
            return None
        if getattr(config, "hidden_act", None) != "silu" or body.training:
            return None
        if body.dtype != torch.float32:  # half precision: transformers' own rounding steps
            return None
        if getattr(config, "sliding_window", None) or getattr(config, "attention_dropout", 0.0):
            return None
        return cls(body)

    def forward(
        self,
        ids: torch.Tensor,
        positions: torch.Tensor,
        parent: KV,
        segments: Segments,
        reads: torch.Tensor,
    ) -> tuple[torch.Tensor, KV]:
        """Run the packed tokens ``ids`` (at ``positions``) on top of ``parent``'s cache.

        Returns the final normalised hidden states at the packed positions ``reads`` (one row
        each, in that order) and each layer's new (key, value), shaped (1, kv_heads, tokens,
        head_dim) like the parent's.
        """
        hidden = self.body.embed_tokens(ids)  # tokens, hidden
        cos, sin = self.body.rotary_emb(hidden[None], positions[None])
        half = cos.shape[-1] // 2
        cos, sin = cos[:, None], sin[:, None]  # 1, 1, tokens, dim: broadcast over heads
        sin = torch.cat([-sin[..., :half], sin[..., half:]], dim=-1)  # rotate_half's sign
        new: KV = []
        last = len(self.layers) - 1
        for i, layer in enumerate(self.layers):
            attn = layer.self_attn
            normed = _rms(layer.input_layernorm, hidden)
            key = _heads(attn.k_proj(normed), self.kv_heads, self.head_dim)
            value = _heads(attn.v_proj(normed), self.kv_heads, self.head_dim)
            key = _rotate(key, cos, sin)
            new.append((key, value))
            past = parent[i] if parent else None
            if i == last and len(reads) == 0:
                return hidden[:0], new
            if i == last:  # the rest of the last layer only where read
                hidden, normed = hidden[reads], normed[reads]
                query = _heads(attn.q_proj(normed), self.heads, self.head_dim)
                query = _rotate(query, cos[:, :, reads], sin[:, :, reads])
                out = _read_attention(query, past, key, value, segments, reads, self.scale)
            else:
                query = _heads(attn.q_proj(normed), self.heads, self.head_dim)
                query = _rotate(query, cos, sin)
                out = segmented_attention(query, past, key, value, segments, self.scale)
            hidden = hidden + attn.o_proj(out.reshape(hidden.shape[0], -1))
            normed = _rms(layer.post_attention_layernorm, hidden)
            mlp = layer.mlp
            gate = functional.silu(mlp.gate_proj(normed), inplace=True)
            hidden += mlp.down_proj(gate.mul_(mlp.up_proj(normed)))
        return _rms(self.body.norm, hidden), new


def _rms(norm: Any, hidden: torch.Tensor) -> torch.Tensor:
    """Llama's RMS norm (the module's weight and epsilon) as one fused kernel."""
    return functional.rms_norm(hidden, (hidden.shape[-1],), norm.weight, norm.variance_epsilon)


def _heads(projected: torch.Tensor, heads: int, dim: int) -> torch.Tensor:
    """(tokens, heads * dim) -> (1, heads, tokens, dim), as transformers lays them out."""
    return projected.view(1, -1, heads, dim).transpose(1, 2)


def _rotate(x: torch.Tensor, cos: torch.Tensor, signed_sin: torch.Tensor) -> torch.Tensor:
    """Rotary position embedding of ``x`` (1, heads, tokens, dim), as Llama applies it:
    ``x * cos + rotate_half(x) * sin``, where ``signed_sin`` carries rotate_half's minus sign
    on its first half (so no rotated copy of ``x`` is made)."""
    half = x.shape[-1] // 2
    out = x * cos
    out[..., :half].addcmul_(x[..., half:], signed_sin[..., :half])
    out[..., half:].addcmul_(x[..., :half], signed_sin[..., half:])
    return out


def _read_attention(
    query: torch.Tensor,
    past: tuple[torch.Tensor, torch.Tensor] | None,
    key: torch.Tensor,
    value: torch.Tensor,
    segments: Segments,
    reads: torch.Tensor,
    scale: float,
) -> torch.Tensor:
    """Attention of the read positions' queries (1, heads, reads, dim): each sees the parent
    and its own sibling's keys up to itself. Returns (1, reads, heads, dim)."""
    owner, offset = segments.owner.to(reads.device), segments.offset.to(reads.device)
    own = (owner[reads][:, None] == owner[None, :]) & (offset[None, :] <= offset[reads][:, None])
    if past is not None:
        key = torch.cat([past[0], key], dim=-2)
        value = torch.cat([past[1], value], dim=-2)
        shared = torch.ones(len(reads), past[0].shape[-2], dtype=torch.bool, device=own.device)
        own = torch.cat([shared, own], dim=1)
    out = functional.scaled_dot_product_attention(
        query, key, value, attn_mask=own[None, None], scale=scale, enable_gqa=True
    )
    return out.transpose(1, 2)
