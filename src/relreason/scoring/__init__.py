"""Answer scoring for both benchmarks: pure functions from an item and a response to an
``Extraction``; no model is ever needed."""

from relreason.scoring.common import (
    failed_extraction,
    pre_score,
    score_choice_logprobs,
    status_for,
)
from relreason.scoring.convre import extract_convre, score_convre
from relreason.scoring.mcr import (
    ZSC_SUFFIX,
    extract_paper,
    extract_robust,
    paper_letters,
    score_mcr,
    zsc_second_stage,
)

__all__ = [
    "ZSC_SUFFIX",
    "extract_convre",
    "extract_paper",
    "extract_robust",
    "failed_extraction",
    "paper_letters",
    "pre_score",
    "score_choice_logprobs",
    "score_convre",
    "score_mcr",
    "status_for",
    "zsc_second_stage",
]
