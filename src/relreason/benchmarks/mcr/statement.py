"""An answer statement of the MCR-style robust reader, and the clash of two of them."""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["REVISION", "Statement", "clash", "contradicts", "rambling"]

REVISION = re.compile(
    r"(?i:\b(?:wait|actually|sorry|correction|en\s+fait|no,|non,))|不对|いや|아니"
)
"""Words that revise an answer ("wait", "actually", "不对"): after them a second letter is
a correction, not a clash."""


class Statement(NamedTuple):
    """One place where the output names a letter (``hedge``: it names several)."""

    position: int
    letter: str
    strong: bool
    contradictory: bool
    hedge: str | None = None


def clash(text: str, statements: list[Statement]) -> str | None:
    """Describe two answers, or return None: the first strong statement and then another
    letter's strong statement with no revision ("wait", "actually") between ("A. The answer is
    <D's text>." gives "A, then D"; so do "A) 10.\n...\nTherefore, the answer is C" and "The
    answer is: C.\n\nThe answer is: A."; invented turns are cut off before this is asked, and
    are read this way when the text before them gives no answer); a leading letter with another
    option's text ("D) 25." where F is 25), whatever follows."""
    lead = next((s for s in statements if s.strong), statements[0])
    if not lead.strong or lead.hedge is not None:
        return None
    if lead.position == 0 and all(s.contradictory for s in statements if s.position == 0):
        return f"contradictory: {lead.letter} followed by another option's text, first"
    for other in statements[statements.index(lead) + 1 :]:
        if other.strong and other.letter != lead.letter:
            revised = REVISION.search(text, 0, other.position) is not None
            return None if revised else f"two answers: {lead.letter}, then {other.letter}"
    return None


def contradicts(named: int | None, letter: str, choices: tuple[str, ...]) -> bool:
    """Whether an option text found after ``letter`` (its index ``named``) belongs to another
    choice."""
    return named is not None and named < len(choices) and choices[named] != letter


def rambling(text: str, strong: list[Statement]) -> Statement | None:
    """Return the leading answer when it is confirmed at once and other letters follow only
    in the same run-on line ("A. The answer is 25. ... The answer is 27. The answer is 30"
    where A is 25): the first answer stands, the rest is rambling; else None."""
    if len(strong) < 3 or strong[0].position != 0 or strong[0].contradictory:
        return None
    lead, confirm = strong[0], strong[1]
    if confirm.letter != lead.letter or confirm.contradictory or confirm.hedge is not None:
        return None
    other = next((s for s in strong[2:] if s.letter != lead.letter), None)
    if other is None or "\n" in text[: other.position]:
        return None
    return lead
