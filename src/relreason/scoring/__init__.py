"""Reading answers: the rules both benchmarks share (``scoring.common``). Each benchmark's own
readers live in its package (``relreason.benchmarks.convre.scoring``, ``...mcr.scoring``).
Public face: ``pre_score``, ``status_for``, ``score_choice_logprobs``, ``failed_extraction``,
``fallback_letter``."""

from relreason.scoring.common import (
    failed_extraction,
    fallback_letter,
    pre_score,
    score_choice_logprobs,
    status_for,
)

__all__ = [
    "failed_extraction",
    "fallback_letter",
    "pre_score",
    "score_choice_logprobs",
    "status_for",
]
