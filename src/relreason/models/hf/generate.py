"""Free-text generation for local transformers models: batched, greedy, with top log-probs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from transformers import GenerationConfig, StoppingCriteria

from relreason.models.base import cut_at_stop
from relreason.types import GenerationParams

LOGPROB_POSITIONS = 5
"""How many first generated positions get a ``top_logprobs`` entry."""
__all__ = ["LOGPROB_POSITIONS", "Generated", "cut_at_stop", "generate_batch"]


@dataclass(frozen=True)
class Generated:
    """One generated continuation: text, top log-probs of its first tokens, token counts."""

    text: str
    top_logprobs: tuple[dict[str, float], ...] | None
    prompt_tokens: int
    completion_tokens: int


def _config(params: GenerationParams, eos_ids: list[int], pad_id: int) -> GenerationConfig:
    sample = params.temperature > 0
    return GenerationConfig(  # type: ignore[no-untyped-call]
        max_new_tokens=params.max_new_tokens,
        do_sample=sample,
        temperature=params.temperature if sample else None,
        top_p=None,
        top_k=None,
        num_beams=1,
        eos_token_id=eos_ids,
        pad_token_id=pad_id,
        stop_strings=list(params.stop) or None,
        return_dict_in_generate=True,
        output_logits=params.top_logprobs > 0,
    )


def _top(
    tokenizer: Any, logits: Sequence[torch.Tensor], row: int, n: int, k: int
) -> tuple[dict[str, float], ...]:
    """Top-``k`` token text -> log-prob for the first ``n`` positions of one row."""
    result = []
    for step in logits[:n]:
        logprobs = torch.log_softmax(step[row].float(), dim=-1)
        values, ids = torch.topk(logprobs, min(k, logprobs.shape[-1]))
        entry: dict[str, float] = {}
        for value, tid in zip(values.tolist(), ids.tolist(), strict=True):
            entry.setdefault(tokenizer.decode([tid]), float(value))
        result.append(entry)
    return tuple(result)


class _StepReporter(StoppingCriteria):
    """Stops nothing: after each generation step reports the rows that just ended (an end of
    sequence token) and the tokens of the step (the prompts' with the first) to ``report``;
    ``finish`` reports the rows still open when the batch ends (stop strings, length)."""

    def __init__(
        self, report: Callable[[int, int], None], prompts: Sequence[list[int]], eos_ids: list[int]
    ) -> None:
        self.report = report
        self.open = [True] * len(prompts)
        self.pending_prompt = sum(len(p) for p in prompts)
        self.eos = torch.tensor(eos_ids or [-1])

    def __call__(
        self, input_ids: torch.Tensor, scores: torch.Tensor, **kwargs: Any
    ) -> torch.Tensor:
        ended = torch.isin(input_ids[:, -1].cpu(), self.eos).tolist()
        running = sum(self.open)
        finished = 0
        for row, end in enumerate(ended):
            if end and self.open[row]:
                self.open[row] = False
                finished += 1
        self.report(finished, running + self.pending_prompt)
        self.pending_prompt = 0
        return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)

    def finish(self) -> None:
        """Report the rows that ended otherwise than by an end of sequence token."""
        self.report(sum(self.open), self.pending_prompt)
        self.open = [False] * len(self.open)


def generate_batch(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[list[int]],
    params: GenerationParams,
    *,
    encoder_decoder: bool,
    eos_ids: list[int],
    pad_id: int,
    on_step: Callable[[int, int], None] | None = None,
) -> list[Generated]:
    """Generate for a batch of tokenized prompts sharing ``params``; one result per prompt.

    Causal prompts are left-padded; encoder inputs right-padded (both with attention masks).
    Temperature 0 means greedy decoding; above 0, sampling seeded with ``params.seed`` (or 0).
    ``on_step(rows ended, tokens)`` is called after every step (progress within the batch;
    every row is reported once, the last ones when the batch ends).
    Raises whatever transformers raises for a failing batch.
    """
    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(prompts), width), dtype=torch.long)
    for i, p in enumerate(prompts):
        cols = slice(0, len(p)) if encoder_decoder else slice(width - len(p), width)
        ids[i, cols] = torch.tensor(p, dtype=torch.long)
        mask[i, cols] = 1
    if params.temperature > 0:
        torch.manual_seed(params.seed if params.seed is not None else 0)
    reporter = None if on_step is None else _StepReporter(on_step, prompts, eos_ids)
    with torch.inference_mode():
        out = model.generate(
            input_ids=ids.to(model.device),
            attention_mask=mask.to(model.device),
            generation_config=_config(params, eos_ids, pad_id),
            tokenizer=tokenizer,
            stopping_criteria=None if reporter is None else [reporter],
        )
    if reporter is not None:
        reporter.finish()
    new = out.sequences[:, 1:] if encoder_decoder else out.sequences[:, width:]
    results = []
    for i, p in enumerate(prompts):
        tokens = new[i].tolist()
        ended = next((j for j, t in enumerate(tokens) if t in eos_ids), None)
        if ended is not None:
            produced, kept = ended + 1, tokens[:ended]
        else:  # finished rows (a stop string) are padded after their last token
            produced = len(tokens)
            while produced > 0 and tokens[produced - 1] == pad_id:
                produced -= 1
            kept = tokens[:produced]
        text = tokenizer.decode(kept, skip_special_tokens=True)
        top = None
        if params.top_logprobs > 0 and out.logits is not None:
            n = min(LOGPROB_POSITIONS, max(produced, 1))
            top = _top(tokenizer, out.logits, i, n, params.top_logprobs)
        results.append(Generated(cut_at_stop(text, params.stop), top, len(p), produced))
    return results
