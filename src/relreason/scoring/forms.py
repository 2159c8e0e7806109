"""Answer forms of the MCR-style robust reader (MCR and compose) beyond plain statements.

- :func:`labelled_statements`: "Option C: <text>", "Based on the definition given, A: <text>",
  the option's text after a conclusion ("... したがって、西です。", "..., so it is West.");
- :func:`subject_option`: "It is West.", "It is uncertain." (with an "Uncertain" or "Unsure"
  option: :data:`UNCERTAIN`), "C'est incertain.", "答案不确定。".
"""

from __future__ import annotations

import re

from relreason.scoring.common import match_option_text, normalize_text, normalized_choices
from relreason.scoring.reading import sentence_key

__all__ = ["UNCERTAIN", "abbreviated_option", "is_listing", "labelled_statements", "subject_option"]

_OPTION_LABEL = re.compile(
    r"(?:(?i:option|choice|l'option)\s*|选项|選項|選択肢|선택지|보기)[(\[]?([A-G])[)\]]?"
    r"[ \t]*([:.：])?[ \t]*"
)
_LEAD_LABEL = re.compile(r"[,，、][ \t]*[(\[]?([A-G])[)\]]?[ \t]*[:.)：][ \t]*")
_NEXT_LABEL = re.compile(r"[\s,;]*[(\[]?[A-G][)\]:]")
_CONCLUSION = re.compile(
    r"(?:したがって|従って|よって|だから|つまり|ゆえに|所以|因此|因而|故此|따라서|그러므로|그래서"
    r"|(?i:\b(?:therefore|thus|hence|so|donc|ainsi)\b))[、,，\s]*"
    r"(?:(?i:it\s+is|it's|the\s+answer\s+is|c'est|la\s+réponse\s+est)\s+|是|答案是|답은\s*)?"
)
UNCERTAIN = frozenset(
    {
        "uncertain",
        "unsure",
        "not sure",
        "unknown",
        "undetermined",
        "cannot be determined",
        "incertain",
        "incertaine",
        "indéterminé",
        "不确定",
        "不確定",
        "无法确定",
        "不明",
        "判断できない",
        "불확실",
        "알 수 없음",
    }
)
"""Words for "uncertain": "It is uncertain." reads as the one option written with such a word
("Uncertain", "Unsure", "不确定", ...); with no or several such options it is no answer."""
_SUBJECT = re.compile(
    r"[ \t]*(?:(?i:it\s+is|it's|this\s+is|that\s+is|c'est)[ \t]+|答案|答えは|정답은[ \t]*)"
)


_CAPITALS = re.compile(r"[ \t]*([A-Z]{3,})(?![A-Za-z])")


def abbreviated_option(text: str, choice_texts: tuple[str, ...]) -> int | None:
    """Return the index of the one option whose text begins with the capitals that open
    ``text`` ("INC" for "Incertain"), three or more of them, or, from six capitals on, with all
    of them but the last (a garbled ending: "INCERTY"); None otherwise. Never raises."""
    found = _CAPITALS.match(text)
    if found is None:
        return None
    key = found.group(1).casefold()
    key = key[:-1] if len(key) >= 6 else key
    starts = [i for i, t in enumerate(normalized_choices(choice_texts)) if t.startswith(key)]
    return starts[0] if len(starts) == 1 else None


def subject_option(text: str, choice_texts: tuple[str, ...]) -> int | None:
    """Return the index of the option a short subject statement names ("It is West.",
    "C'est incertain.", "答案不确定。"), or None. A word for "uncertain" (:data:`UNCERTAIN`)
    names the one option written with such a word. Never raises."""
    subject = _SUBJECT.match(text)
    if subject is None:
        return None
    key = sentence_key(text[subject.end() :].lstrip(" :：是"))
    named = match_option_text(key, choice_texts)
    if named is None and normalize_text(key) in UNCERTAIN:
        kinds = [i for i, t in enumerate(normalized_choices(choice_texts)) if t in UNCERTAIN]
        named = kinds[0] if len(kinds) == 1 else None
    return named


def labelled_statements(
    text: str, choices: tuple[str, ...], choice_texts: tuple[str, ...]
) -> list[tuple[int, str, bool]]:
    """Return (position, letter, contradictory) of the answers given as labels: "Option C:
    <text>" (any text; another option's is contradictory),
    "Based on the definition given, A: <text of A>" (the label's own text only), and the
    option's text after a conclusion ("... したがって、西です。", "..., so it is West.").
    Listings of the options ("Answer choices: A) East B) West") are left out. Never raises."""
    found: list[tuple[int, str, bool]] = []
    for m in _OPTION_LABEL.finditer(text):
        letter = m.group(1)
        if letter in choices and not is_listing(text, m.end(), letter, choices, choice_texts):
            rest = text[m.end() :]
            ended = m.group(2) in (None, ".") and rest.startswith("\n")  # "option A.\n2. ..."
            named = None if ended else match_option_text(rest, choice_texts, prefix=True)
            if named is not None or m.group(2) is not None:
                bad = named is not None and named < len(choices) and choices[named] != letter
                found.append((m.start(1), letter, bad))
    for m in _LEAD_LABEL.finditer(text):
        letter = m.group(1)
        named = match_option_text(text[m.end() :], choice_texts, prefix=True)
        own = named is not None and named < len(choices) and choices[named] == letter
        if own and not is_listing(text, m.end(), letter, choices, choice_texts):
            found.append((m.start(1), letter, False))
    conclusions = list(_CONCLUSION.finditer(text))
    if conclusions:
        last = conclusions[-1]
        rest = text[last.end() :]
        named = match_option_text(sentence_key(rest), choice_texts)
        if named is None:
            named = match_option_text(rest, choice_texts, prefix=True)
        if named is not None and named < len(choices):
            found.append((last.end(), choices[named], False))
    return found


def is_listing(
    text: str, end: int, letter: str, choices: tuple[str, ...], choice_texts: tuple[str, ...]
) -> bool:
    """Whether the label of ``letter`` ending at ``end`` is followed by its option's text and
    then another label: a listing of the options ("Answer choices: A) East B) West"). Never
    raises."""
    index = choices.index(letter)
    if index >= len(choice_texts):
        return False
    rest = text[end:]
    own = choice_texts[index].strip()
    if match_option_text(rest, choice_texts, prefix=True) != index:
        return False
    return _NEXT_LABEL.match(rest, len(own)) is not None
