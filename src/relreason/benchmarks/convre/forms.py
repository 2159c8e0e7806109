"""Answer forms of the ConvRe sound reader beyond letters.

- :func:`first_line_option`: a first line that is one choice's text, also repeated until cut
  ("(x, r, ?), (x, r, ?), (x, r,"); a triple with ``y`` written for the ``?`` is no choice's
  text;
- :func:`thought_choice`: the choice whose text a chain-of-thought ``thought`` concludes with
  ("... the answer is (leopold v, parent of, ?)").
"""

from __future__ import annotations

import re
from typing import Any

from relreason.scoring.common import match_option_text, normalize_text, normalized_choices

__all__ = ["first_line_option", "thought_choice"]

_SEPARATORS = " ,;"
_CONCLUSION = re.compile(r"(?i:\bthe\s+(?:correct\s+|final\s+)?answer\s+is)\s*:?\s*")


def first_line_option(line: str, choice_texts: tuple[str, ...]) -> int | None:
    """Return the index of the one choice whose text ``line`` is: exactly, or repeated
    (separated by commas, semicolons or spaces, the last copy possibly cut off); None when no
    choice or several fit. Never raises."""
    key = normalize_text(line[:4096])
    if not key:
        return None
    found = {
        index
        for index, option in enumerate(normalized_choices(choice_texts))
        if _repeats(key, option)
    }
    return found.pop() if len(found) == 1 else None


def thought_choice(obj: dict[Any, Any], choice_texts: tuple[str, ...]) -> int | None:
    """Return the index of the choice whose text the object's ``thought`` (key case-insensitive)
    concludes with ("... the answer is <text>"), or None. Never raises."""
    for key, value in obj.items():
        if isinstance(key, str) and key.strip().lower() == "thought" and isinstance(value, str):
            ends = [m.end() for m in _CONCLUSION.finditer(value)]
            if ends:
                return match_option_text(value[ends[-1] :], choice_texts, prefix=True)
    return None


def _repeats(key: str, option: str) -> bool:
    """Whether ``key`` is ``option`` once or more, separated by :data:`_SEPARATORS`, the last
    copy possibly cut off."""
    if not option or not key.startswith(option):
        return False
    rest = key[len(option) :]
    while rest:
        rest = rest.lstrip(_SEPARATORS)
        if not rest.startswith(option):
            break
        rest = rest[len(option) :]
    return not rest or option.startswith(rest)
