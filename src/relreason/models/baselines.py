"""Baseline "models" that need no weights: seeded random, always-first and oracle.

They answer with a bare letter, so the whole pipeline (prompts, runner, scoring, run folders)
can be exercised and a chance level measured without any model library installed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from relreason.errors import UsageError
from relreason.models.base import ModelBackend
from relreason.models.options import ModelOptions
from relreason.types import ChoiceRequest, GenerationRequest, Response

BASELINES = ("random", "first", "oracle")


def _seeded_index(seed: int, prompt: str, n: int) -> int:
    """A deterministic pseudo-random index in range(n) from the seed and the prompt."""
    digest = hashlib.sha256(f"{seed}\x00{prompt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % n


def baseline_pick(
    kind: str, prompt: str, choices: Sequence[str], *, seed: int = 0, reference: str | None = None
) -> str:
    """The letter the ``kind`` baseline answers for ``prompt`` (the one rule runs use)."""
    if not choices:
        raise UsageError(f"the '{kind}' baseline needs the item's choice letters")
    if kind == "first":
        return choices[0]
    if kind == "oracle":
        if reference is None:
            raise UsageError("the 'oracle' baseline needs the gold letter")
        return reference
    return choices[_seeded_index(seed, prompt, len(choices))]


class BaselineBackend(ModelBackend):
    """Answers without a model.

    ``random``: a seeded choice per prompt (the same prompt and seed always give the same letter,
    so runs are reproducible and cacheable). ``first``: always the first choice. ``oracle``:
    the reference (gold) letter the runner passes along — an upper bound that checks scoring.
    """

    batch_size = 64

    def __init__(self, kind: str, *, seed: int = 0) -> None:
        if kind not in BASELINES:
            raise UsageError(f"unknown baseline '{kind}'; valid: {', '.join(BASELINES)}")
        self.kind = kind
        self.seed = seed
        self.spec = kind if kind != "random" or seed == 0 else f"random:{seed}"

    def describe(self) -> Mapping[str, Any]:
        """Return the baseline's kind and seed."""
        return {"backend": "baseline", "kind": self.kind, "seed": self.seed}

    def _pick(self, prompt: str, choices: Sequence[str], reference: str | None) -> str:
        return baseline_pick(self.kind, prompt, choices, seed=self.seed, reference=reference)

    async def generate(self, requests: Sequence[GenerationRequest]) -> list[Response]:
        """Answer each request with one bare letter."""
        return [Response(text=self._pick(r.prompt, r.choices, r.reference)) for r in requests]

    async def score_choices(self, requests: Sequence[ChoiceRequest]) -> list[Response]:
        """Give the picked letter log-likelihood 0 and every other -100 (JSON has no -inf)."""
        out = []
        for r in requests:
            letters = list(r.continuations)
            picked = self._pick(r.prompt, letters, r.reference)
            scores = {letter: (0.0 if letter == picked else -100.0) for letter in letters}
            out.append(Response(choice_logprobs=scores))
        return out


def build(name: str, spec: str, options: ModelOptions) -> BaselineBackend:
    """Registry factory: ``random[:SEED]``, ``first`` or ``oracle``."""
    kind = spec.partition(":")[0]
    seed = int(name) if name else options.seed
    return BaselineBackend(kind, seed=seed)
