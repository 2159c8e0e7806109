"""Choice scoring for local transformers models: lm-eval-style log-likelihoods, fast.

A *row* is one forward pass's input plus the continuations read off its last positions. When
every continuation of a prompt is a single token (the usual ``" A"``/``" B"``), one row serves all
of the prompt's choices; otherwise each (prompt, continuation) pair is its own row. Rows are
sorted by length, run in batches, and the batch's longest common token prefix is computed once
(its key/value cache kept between calls, so that the items of one setting share it) and only the
suffixes are run, left-padded, with explicit attention masks and position ids.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from transformers import DynamicCache

KV = list[tuple[torch.Tensor, torch.Tensor]]


@dataclass
class Row:
    """One forward-pass row.

    ``tokens``: the causal model's input, or the encoder input of a seq2seq model.
    ``targets``: continuation label -> its token ids; for a causal model they are read off the
    last ``len(ids)`` positions of ``tokens``; for seq2seq they are the decoder labels.
    ``owner``: index of the request the row belongs to.
    """

    owner: int
    tokens: list[int]
    targets: dict[str, list[int]]


@dataclass
class PrefixStats:
    """Counters of the prefix cache: prompt tokens served from it vs computed."""

    reused_tokens: int = 0
    computed_tokens: int = 0
    suffix_tokens: int = 0


def common_prefix_len(a: Sequence[int], b: Sequence[int]) -> int:
    """Return the length of the longest common prefix of two token sequences."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def split_pair(
    context_ids: list[int], whole_ids: list[int], max_length: int
) -> tuple[list[int], list[int]]:
    """Return (row input, continuation ids) for one causal context/continuation pair.

    As lm-eval does: the continuation is ``whole_ids[len(context_ids):]`` (whole = tokens of
    context + continuation), and the input is ``(context + continuation)[:-1]`` cut from the
    left to ``max_length`` tokens. Raises ValueError when the continuation has no tokens.
    """
    cont = whole_ids[len(context_ids) :]
    if not cont:
        raise ValueError("the continuation adds no token to the prompt")
    if len(cont) > max_length:
        raise ValueError(f"the continuation has {len(cont)} tokens, over max_length {max_length}")
    tokens = (context_ids + cont)[:-1]
    return tokens[-max_length:], cont


def causal_rows(
    owner: int, context_ids: list[int], pairs: Mapping[str, list[int]], max_length: int
) -> list[Row]:
    """Return the rows scoring one prompt's continuations (``pairs``: label -> whole ids).

    One row for all labels when each continuation is one token after the same context,
    else one row per label. Raises ValueError for an empty or too long continuation.
    """
    split = {label: split_pair(context_ids, whole, max_length) for label, whole in pairs.items()}
    if all(len(cont) == 1 for _, cont in split.values()):
        tokens = next(iter(split.values()))[0]
        return [Row(owner, tokens, {label: cont for label, (_, cont) in split.items()})]
    return [Row(owner, tokens, {label: cont}) for label, (tokens, cont) in split.items()]


def _forward_params(model: Any) -> set[str]:
    return set(inspect.signature(model.forward).parameters)


def _cache_kwarg(model: Any) -> str:
    """The forward keyword for the KV cache: ``cache`` (transformers >= 5.x) or the older name."""
    return "cache" if "cache" in _forward_params(model) else "past_key_values"


def _kv_of(output: Any, name: str) -> KV:
    cache = getattr(output, name)
    return [(layer[0], layer[1]) for layer in cache]


class PrefixCache:
    """The key/value cache of the last prefix run, reused for any later prefix sharing tokens."""

    def __init__(self) -> None:
        self.tokens: list[int] = []
        self.kv: KV = []
        self.stats = PrefixStats()

    def clear(self) -> None:
        """Forget the stored prefix (returns nothing)."""
        self.tokens, self.kv = [], []

    def extend(self, model: Any, tokens: list[int], keep: int = 1) -> tuple[KV, torch.Tensor]:
        """Return the KV cache (batch 1) of ``tokens`` and the logits of their last ``keep``
        positions ([1, keep, V]), running only the tokens past the stored common prefix."""
        m = min(common_prefix_len(self.tokens, tokens), len(tokens) - keep)
        kv = [(k[..., :m, :], v[..., :m, :]) for k, v in self.kv] if m > 0 else []
        name = _cache_kwarg(model)
        extra: dict[str, Any] = {name: DynamicCache(kv) if kv else DynamicCache()}
        if "logits_to_keep" in _forward_params(model):
            extra["logits_to_keep"] = keep
        out = model(
            input_ids=torch.tensor([tokens[m:]], device=model.device),
            position_ids=torch.arange(m, len(tokens), device=model.device)[None, :],
            use_cache=True,
            **extra,
        )
        self.stats.reused_tokens += m
        self.stats.computed_tokens += len(tokens) - m
        self.tokens, self.kv = list(tokens), _kv_of(out, name)
        return self.kv, out.logits[:, -keep:, :]

    def kv_for(self, model: Any, tokens: list[int]) -> KV:
        """Return the KV cache (batch 1) of ``tokens``, computing only what is not stored."""
        if tokens == self.tokens:
            self.stats.reused_tokens += len(tokens)
            return self.kv
        return self.extend(model, tokens)[0]


@dataclass
class CausalScorer:
    """Scores rows with a causal LM; ``prefix`` is None when prefix reuse is off."""

    model: Any
    pad_id: int
    prefix: PrefixCache | None = None
    _params: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._params = _forward_params(self.model)

    def score(self, rows: Sequence[Row]) -> list[dict[str, float]]:
        """Return, per row, label -> summed log-probability of its continuation tokens."""
        if self.prefix is None:
            logits = self._suffix_logits(rows, 0, [])
            return [_read_targets(logits[i], r.targets) for i, r in enumerate(rows)]
        if len(rows) == 1:
            # One row: run it on top of the stored prefix, and keep it as the new prefix.
            keep = max(map(len, rows[0].targets.values()))
            _, logits = self.prefix.extend(self.model, rows[0].tokens, keep)
            return [_read_targets(torch.log_softmax(logits[0].float(), dim=-1), rows[0].targets)]
        # Every row keeps at least the positions its targets are read from.
        first = rows[0].tokens
        shared = min(len(r.tokens) - max(map(len, r.targets.values())) for r in rows)
        for r in rows[1:]:
            shared = min(shared, common_prefix_len(first, r.tokens))
        kv = self.prefix.kv_for(self.model, first[:shared]) if shared > 0 else []
        self.prefix.stats.suffix_tokens += sum(len(r.tokens) - shared for r in rows)
        logits = self._suffix_logits(rows, shared, kv)
        return [_read_targets(logits[i], r.targets) for i, r in enumerate(rows)]

    def _suffix_logits(self, rows: Sequence[Row], shared: int, kv: KV) -> torch.Tensor:
        """Log-softmax over the last ``keep`` positions of each row: [B, keep, V]."""
        device = self.model.device
        suffixes = [r.tokens[shared:] for r in rows]
        width = max(len(s) for s in suffixes)
        keep = max(len(ids) for r in rows for ids in r.targets.values())
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), shared + width), dtype=torch.long)
        mask[:, :shared] = 1
        for i, s in enumerate(suffixes):
            ids[i, width - len(s) :] = torch.tensor(s, dtype=torch.long)
            mask[i, shared + width - len(s) :] = 1
        positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, shared:]
        kwargs: dict[str, Any] = {}
        if kv:
            batch = len(rows)
            expanded = [(k.expand(batch, -1, -1, -1), v.expand(batch, -1, -1, -1)) for k, v in kv]
            kwargs[_cache_kwarg(self.model)] = DynamicCache(expanded)
        if "logits_to_keep" in self._params:
            kwargs["logits_to_keep"] = keep
        out = self.model(
            input_ids=ids.to(device),
            attention_mask=mask.to(device),
            position_ids=positions.to(device),
            use_cache=bool(kv),
            **kwargs,
        )
        return torch.log_softmax(out.logits[:, -keep:, :].float(), dim=-1)


def _read_targets(logprobs: torch.Tensor, targets: Mapping[str, list[int]]) -> dict[str, float]:
    """Sum each target's token log-probs read off the last ``len(ids)`` rows of ``logprobs``."""
    keep = logprobs.shape[0]
    result: dict[str, float] = {}
    for label, ids in targets.items():
        start = keep - len(ids)
        picked = logprobs[torch.arange(start, keep), torch.tensor(ids)]
        result[label] = float(picked.sum())
    return result


@dataclass
class Seq2SeqScorer:
    """Scores rows with an encoder-decoder model: encoder input = context, labels = continuation."""

    model: Any
    pad_id: int

    def score(self, rows: Sequence[Row]) -> list[dict[str, float]]:
        """Return, per row, label -> summed log-probability of its (single) continuation."""
        device = self.model.device
        width = max(len(r.tokens) for r in rows)
        labels_list = [next(iter(r.targets.values())) for r in rows]
        lab_width = max(len(lab) for lab in labels_list)
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        labels = torch.full((len(rows), lab_width), -100, dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, : len(r.tokens)] = torch.tensor(r.tokens, dtype=torch.long)
            mask[i, : len(r.tokens)] = 1
            labels[i, : len(labels_list[i])] = torch.tensor(labels_list[i], dtype=torch.long)
        out = self.model(
            input_ids=ids.to(device), attention_mask=mask.to(device), labels=labels.to(device)
        )
        logprobs = torch.log_softmax(out.logits.float(), dim=-1)
        result = []
        for i, r in enumerate(rows):
            label = next(iter(r.targets))
            n = len(labels_list[i])
            picked = logprobs[i, torch.arange(n), torch.tensor(labels_list[i])]
            result.append({label: float(picked.sum())})
        return result


def run_rows(
    scorer: CausalScorer | Seq2SeqScorer, rows: Sequence[Row], batch_size: int
) -> list[dict[str, float]]:
    """Score ``rows`` in batches of ``batch_size``; results in the rows' order.

    Rows are sorted by token order with the prefix cache (rows sharing a prefix meet in a
    batch), else by length (least padding), as lm-eval does.
    """
    if isinstance(scorer, CausalScorer) and scorer.prefix is not None:
        # Token order puts rows sharing the longest prefixes into the same batch.
        order = sorted(range(len(rows)), key=lambda i: rows[i].tokens)
    else:
        order = sorted(range(len(rows)), key=lambda i: -len(rows[i].tokens))
    results: list[dict[str, float]] = [{} for _ in rows]
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            for i, scores in zip(chunk, scorer.score([rows[i] for i in chunk]), strict=True):
                results[i] = scores
    return results
