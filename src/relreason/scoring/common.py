"""Scoring rules shared by both benchmarks: statuses, failed requests, choice log-likelihoods.

Every scorer first calls :func:`pre_score` (a failed request, then choice log-likelihoods) and
only then reads ``response.text``. Helpers for reading text (Unicode normalisation, comparing an
output with an option's text, first-token log-probabilities) live here too.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache

from relreason.types import EvalItem, Extraction, Response, Status

__all__ = [
    "FALLBACK_MARGIN",
    "cut_option_text",
    "failed_extraction",
    "fallback_letter",
    "first_token_letter",
    "is_cjk",
    "match_option_text",
    "normalize_output",
    "normalize_text",
    "normalized_choices",
    "number_option",
    "pre_score",
    "score_choice_logprobs",
    "status_for",
]

_SPACES = re.compile(r"\s+")
_NUMBER_ANSWER = re.compile(r"\s*(\d+(?:[.,]\d+)?)(?!\d)[ \t]*(?:[^\W\d]+[ \t]*){0,3}[.。]?[ \t]*$")
_NUMBER_OPTION = re.compile(r"(\d+(?:[.,]\d+)?)(?!\d)\s*([^\W\d]{0,8})")
_FINAL_PUNCT = ".,;:!?。．，、；：！？\"'`*"
_TOKEN_PREFIXES = ("Ġ", "▁")

FALLBACK_MARGIN = 0.5
"""How far (in natural-log units) the likelier letter must lead the other among the first
token's top alternatives for the log-probability fallback to answer: 0.5 means at least
e**0.5 (about 1.65) times likelier. Both letters must be among the alternatives."""


def status_for(answer: str | None, gold: str, *, empty: bool) -> Status:
    """Return the status of a read answer.

    ``"correct"`` or ``"wrong"`` when a letter was read; otherwise ``"no_answer"`` when the output
    was empty (``empty=True``) and ``"unparseable"`` when there was output but no answer in it.
    Never raises.
    """
    if answer is None:
        return "no_answer" if empty else "unparseable"
    return "correct" if answer == gold else "wrong"


def failed_extraction(response: Response) -> Extraction:
    """Return the extraction of a request that failed for good: status ``"failed"``, the error as
    ``detail``, method ``"none"``. Never raises."""
    return Extraction(None, "failed", "none", detail=response.error or "request failed")


def score_choice_logprobs(item: EvalItem, response: Response) -> Extraction:
    """Return the choice with the highest log-likelihood in ``response.choice_logprobs``.

    Only the item's own letters with a finite (non-NaN) value take part. Ties are broken by the
    item's choice order (the earliest letter wins) and the tie is noted in ``detail``. With no
    usable value the extraction is ``"unparseable"``. Method ``"choice_logprob"``; never raises.
    """
    scores = response.choice_logprobs or {}
    usable = {
        letter: float(scores[letter])
        for letter in item.choices
        if letter in scores and not math.isnan(float(scores[letter]))
    }
    if not usable:
        detail: str | None = f"no usable log-likelihood for choices {', '.join(item.choices)}"
        return Extraction(None, "unparseable", "choice_logprob", detail=detail)
    best = max(usable.values())
    winners = [letter for letter in item.choices if usable.get(letter) == best]
    answer = winners[0]
    detail = None
    if len(winners) > 1:
        detail = f"tie at {best:.6g} between {', '.join(winners)}; took {answer} (choice order)"
    return Extraction(answer, status_for(answer, item.gold, empty=False), "choice_logprob", detail)


def pre_score(item: EvalItem, response: Response) -> Extraction | None:
    """Return the extraction decided before any text is read, or None.

    A failed request gives ``"failed"``; a choice-scoring response is read with
    :func:`score_choice_logprobs`; an empty or whitespace-only (or absent) text gives
    ``"no_answer"``. None means the text must be read. Never raises.
    """
    if response.error is not None:
        return failed_extraction(response)
    if response.choice_logprobs is not None:
        return score_choice_logprobs(item, response)
    if response.text is None or not response.text.strip():
        detail = "no output text" if response.text is None else "empty output"
        return Extraction(None, "no_answer", "none", detail=detail)
    return None


def normalize_output(text: str) -> str:
    """Return ``text`` in Unicode NFKC form (full-width letters and brackets become ASCII).

    ASCII text is returned unchanged without work. Never raises.
    """
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def normalize_text(text: str) -> str:
    """Return a comparison key for an option text or an output: NFKC, case-folded, runs of
    white space made one space, surrounding white space and final punctuation removed."""
    key = _SPACES.sub(" ", normalize_output(text).casefold()).strip()
    return key.rstrip(_FINAL_PUNCT).strip()


@lru_cache(maxsize=8192)
def normalized_choices(choice_texts: tuple[str, ...]) -> tuple[str, ...]:
    """Return :func:`normalize_text` of each choice text (cached: items repeat their choices)."""
    return tuple(normalize_text(text) for text in choice_texts)


def match_option_text(
    text: str, choice_texts: tuple[str, ...], *, prefix: bool = False
) -> int | None:
    """Return the index of the choice whose text ``text`` is, or None.

    Comparison is on :func:`normalize_text` keys. With ``prefix=True`` the text may also go on
    after the option text (e.g. an explanation); the longest matching option wins, so "North"
    does not shadow "Northeast". An empty key or a tie between equal option texts gives None.
    Only the head of a long text is normalised (a few times the longest option), which keeps
    reading long outputs fast. Never raises.
    """
    keys = normalized_choices(choice_texts)
    longest = max((len(option) for option in keys), default=0)
    limit = 4 * longest + 64
    key = normalize_text(text[:limit])
    if not key:
        return None
    complete = len(text) <= limit or len(key) > longest
    if complete:
        exact = [i for i, option in enumerate(keys) if option and option == key]
    else:  # a long text whose head is short (white space runs): compare in full
        full = normalize_text(text)
        exact = [i for i, option in enumerate(keys) if option and option == full]
    if exact:
        return exact[0] if len(exact) == 1 else None
    if not prefix:
        return None
    found = [i for i, option in enumerate(keys) if option and _starts_with_word(key, option)]
    if not found:
        return None
    longest = max(len(keys[i]) for i in found)
    best = [i for i in found if len(keys[i]) == longest]
    return best[0] if len(best) == 1 else None


def cut_option_text(text: str, choice_texts: tuple[str, ...]) -> int | None:
    """Return the index of the one choice whose text the first line of ``text`` begins and
    stops short of at a word boundary ("Ni l'un" of "Ni l'un ni l'autre": an option's text cut
    off; in Chinese, Japanese and Korean, whose words have no spaces, anywhere: "불확" of
    "불확실한"), or None. A line that is some option's whole text, shorter than two (CJK) or
    three characters, or the beginning of several options' texts gives None. Never raises."""
    line = normalize_text(text.split("\n", 1)[0][:256])
    keys = normalized_choices(choice_texts)
    cjk = all(is_cjk(ch) for ch in line)
    if len(line) < (2 if cjk else 3) or line in keys:
        return None
    found = [
        i
        for i, option in enumerate(keys)
        if len(option) > len(line)
        and option.startswith(line)
        and (cjk or not option[len(line)].isalnum())
    ]
    return found[0] if len(found) == 1 else None


def is_cjk(ch: str) -> bool:
    """Whether ``ch`` is a Chinese, Japanese or Korean letter (their words have no spaces)."""
    return "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af"


def number_option(text: str, choice_texts: tuple[str, ...]) -> int | None:
    """Return the index of the one choice that the first line of ``text`` names by its number:
    a number with at most three words after it ("8 hours.", "12 years old", "10") against
    options that are that number with at most a short unit ("8", "12歳", "180块"); None when
    the line is no such number, or no option or several have it. Never raises."""
    line = _NUMBER_ANSWER.fullmatch(normalize_output(text.split("\n", 1)[0][:120]))
    if line is None:
        return None
    found = [
        i
        for i, option in enumerate(normalized_choices(choice_texts))
        if (number := _NUMBER_OPTION.fullmatch(option)) and number.group(1) == line.group(1)
    ]
    return found[0] if len(found) == 1 else None


def _starts_with_word(key: str, option: str) -> bool:
    """Whether ``key`` begins with ``option`` followed by the end or a non-word character."""
    if not key.startswith(option):
        return False
    rest = key[len(option) :]
    if rest[:2] in ("'s", "’s") and not rest[2:3].isalnum():
        return False  # "Angie's boyfriend" is not the option "Angie"
    return not rest or not (rest[0].isalnum() or rest[0] == "_")


def first_token_letter(
    top_logprobs: tuple[Mapping[str, float], ...] | None, letters: tuple[str, ...]
) -> tuple[str | None, str]:
    """Return the likelier letter among the first generated token's top alternatives.

    A token counts for a letter when it is that letter with optional surrounding white space or a
    tokenizer space marker (" A", "A", "ĠA", "▁A"); the best form of each letter is kept. Returns
    (letter or None, a detail naming the values); None when no letter is present or the best
    values tie. Never raises.
    """
    if not top_logprobs:
        return None, "no first-token log-probabilities"
    best = _letter_logprobs(top_logprobs[0], letters)
    if not best:
        return None, f"none of {', '.join(letters)} among the first token's top alternatives"
    shown = ", ".join(f"{letter}={best[letter]:.4g}" for letter in letters if letter in best)
    top = max(best.values())
    winners = [letter for letter in letters if best.get(letter) == top]
    if len(winners) > 1:
        return None, f"first-token log-probabilities tie ({shown})"
    return winners[0], f"first-token log-probabilities {shown}"


def _letter_logprobs(top: Mapping[str, float], letters: tuple[str, ...]) -> dict[str, float]:
    """The best value of each letter's token forms (" A", "A", "ĠA", "▁A") among ``top``."""
    best: dict[str, float] = {}
    for token, value in top.items():
        bare = token.strip()
        for marker in _TOKEN_PREFIXES:
            bare = bare.removeprefix(marker)
        if bare in letters and not math.isnan(value):
            best[bare] = max(value, best.get(bare, -math.inf))
    return best


def fallback_letter(
    top_logprobs: tuple[Mapping[str, float], ...] | None,
    letters: tuple[str, ...],
    margin: float = FALLBACK_MARGIN,
) -> tuple[str | None, str]:
    """Return the letter the log-probability fallback (ConvRe paper, Appendix F) reads.

    Every one of ``letters`` must be among the first generated token's top alternatives (in
    any token form :func:`first_token_letter` accepts) and the likeliest must lead the next by
    at least ``margin`` (:data:`FALLBACK_MARGIN`); otherwise the answer is None: an output that
    only repeats the prompt with a letter 4th-ranked and the other absent stays unreadable.
    Returns (letter or None, a detail naming the values). Never raises.
    """
    if not top_logprobs:
        return None, "no first-token log-probabilities"
    best = _letter_logprobs(top_logprobs[0], letters)
    shown = ", ".join(f"{letter}={best[letter]:.4g}" for letter in letters if letter in best)
    missing = [letter for letter in letters if letter not in best]
    if missing:
        found = f" ({shown})" if shown else ""
        return None, (
            f"{', '.join(missing)} not among the first token's top alternatives{found}:"
            " no log-probability fallback"
        )
    ranked = sorted(best.values(), reverse=True)
    if ranked[0] - ranked[1] < margin:
        return None, f"first-token log-probabilities within {margin:g} ({shown}): no answer"
    winner = next(letter for letter in letters if best[letter] == ranked[0])
    return winner, f"first-token log-probabilities {shown} (lead >= {margin:g})"
