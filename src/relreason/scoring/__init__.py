"""Reading answers: the rules both benchmarks share (``scoring.common``). Each benchmark's own
readers live in its package (``relreason.benchmarks.convre.scoring``, ``...mcr.scoring``)."""

from relreason.scoring.common import (
    failed_extraction,
    pre_score,
    score_choice_logprobs,
    status_for,
)

__all__ = ["failed_extraction", "pre_score", "score_choice_logprobs", "status_for"]
