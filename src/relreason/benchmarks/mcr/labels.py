"""Option labels in MCR-style outputs ("(C)", "C)", "C." at a line's start): the option text
after a label, bare cue lines, and the ways a run of labels lists the options back instead of
answering."""

from __future__ import annotations

import itertools
import re

from relreason.scoring.common import (
    cut_option_text,
    is_cjk,
    match_option_text,
    normalize_text,
    normalized_choices,
    number_option,
)
from relreason.scoring.forms import is_listing

__all__ = [
    "LABEL",
    "another_candidate",
    "article_option",
    "bare_cues",
    "ending_option",
    "inflected_option",
    "label_letter",
    "label_run",
    "labels_only",
    "letter_after",
    "listed",
    "lists_on",
    "named_after",
    "only_cues",
    "option_after",
]

_LATIN = r"A-Za-z0-9\u00C0-\u024F"
_ARTICLE = re.compile(r"[ \t]*(?i:l['’][ \t]*|(?:le|la|les)[ \t]+)")
_OR = re.compile(r"[ \t]*(?:[,/、]|\b(?i:or|ou)\b|或|か|또는)[ \t]*")
_LABELS_FIRST = re.compile(r"\s*\(?([A-G])\)[ \t]*\(?([A-G])\)")
_SENTENCE = re.compile(r"[。.!?！？\n]")
_CLAUSE = re.compile(r"[、,，]")
_KANA_ENDING = re.compile(r"[\u3041-\u3096]$")  # a hiragana ending: 含む, 大きい
_KANA = re.compile(r"[\u3041-\u3096]")
_LONE_LETTER = re.compile(r"[ \t]*[(\[]?([A-G])[)\]]?[ \t]*[.]?[ \t]*(?:\n|$)")
LABEL = re.compile(
    rf"(?=[(A-G \t*])(?:(?<![{_LATIN}])(?:\(([A-G])\)|([A-G])\))"
    rf"|^[ \t*]*([A-G])[ \t]*[.:](?![{_LATIN}]))",
    re.MULTILINE,
)
"""A label: ``(C)`` or ``C)`` anywhere, ``C.``/``C:`` at a line's start (group 3)."""


def label_letter(label: re.Match[str]) -> str:
    """Return the letter of a :data:`LABEL` match."""
    return label.group(1) or label.group(2) or label.group(3)


def listed(
    text: str,
    labels: list[tuple[int, str, int]],
    choices: tuple[str, ...],
    choice_texts: tuple[str, ...],
) -> set[int]:
    """Indices of labels (start, letter, end) that list the options back ("A) East B) West
    ..."): a label whose own option text is all that stands before the next label, and that
    next label."""
    keys = normalized_choices(choice_texts)
    found: set[int] = set()
    for i in range(len(labels) - 1):
        _, letter, end = labels[i]
        index = choices.index(letter)
        if labels[i + 1][1] != chr(ord(letter) + 1):
            continue  # a listing goes on in order: "D) <D's text> A)" is none
        key = keys[index] if index < len(keys) else ""
        gap = text[end : labels[i + 1][0]]
        if key and len(gap) <= 4 * len(key) + 16 and normalize_text(gap) == key:
            found.update((i, i + 1))
    return found


def bare_cues(text: str) -> set[int]:
    """Starts of the labels that stand alone at a line's start ("B:" with nothing after it)
    when there are two or more of them: cues of invented turns, not answers."""
    bare = [
        m.start()
        for m in LABEL.finditer(text)
        if m.group(3) is not None and not text[m.end() :].split("\n", 1)[0].strip()
    ]
    return set(bare) if len(bare) >= 2 else set()


_BARE_LABEL_LINE = re.compile(r"[ \t*:]*\(?([A-G])[):][ \t]*")  # "C." answers
_CUT_LISTING = re.compile(r"[\s:]*\(?([A-G])\)[ \t]*([^\n()]+?)[ \t]+\(?([A-G])[).]\s*")
_BARE_LINE = re.compile(r"^[ \t*]*[A-G][ \t]*:[ \t]*$", re.MULTILINE)


def only_cues(text: str) -> bool:
    """Whether ``text`` is two or more bare cue lines and nothing else (" A: \nA:"; " A.\nA:"
    answers A)."""
    return len(_BARE_LINE.findall(text)) >= 2 and not _BARE_LINE.sub("", text).strip()


def label_run(text: str, choices: tuple[str, ...]) -> list[int] | None:
    """Return where the labels of ``text`` start when they are the letters from the first
    choice on, in order, three or more, each once ("A) 妹 B) 妻 C) 姉 D) 孫", whatever their
    texts; letters beyond the item's choices count too; bare cue lines, :func:`bare_cues`, are
    passed over); else None. When every answer
    statement stands at one of them, the output lists the labels back: no answer."""
    cues = bare_cues(text)  # " D: \nA: \nA: 相同\nB: 相同\nC: 不确定" lists A-C
    labels = [m for m in LABEL.finditer(text) if m.start() not in cues]
    letters = "".join(label_letter(m) for m in labels)
    if len(letters) < 3 or not "ABCDEFG".startswith(letters) or letters[0] != choices[0]:
        return None
    if _repeated(text, labels):
        return None
    return [m.start() for m in labels]


def _repeated(text: str, labels: list[re.Match[str]]) -> bool:
    """Whether every label after the first repeats the first one's sentence (of three words
    or more), perhaps cut off: "A. Lisa is very fond of Lily.\nB: Lisa is very fond of
    Lily.\nC: Lisa is" is one answer and a line repeated, not the options listed."""
    lines = [text[m.end() :].split("\n", 1)[0].strip() for m in labels]
    first = lines[0]
    return len(first.split()) >= 3 and all(line and first.startswith(line) for line in lines[1:])


def named_after(text: str, end: int, choice_texts: tuple[str, ...]) -> int | None:
    """Return the option whose text follows a letter at ``end`` after ")" or ":", or None."""
    rest = text[end : end + 1]
    if rest not in (")", "]", ":"):
        return None
    return match_option_text(text[end + 1 :].lstrip(" :"), choice_texts, prefix=True)


def lists_on(
    text: str, end: int, letter: str, choices: tuple[str, ...], choice_texts: tuple[str, ...]
) -> bool:
    """Whether the letter ending at ``end`` is the first label of a listing of the options."""
    if letter not in choices or text[end : end + 1] not in (")", "]", ":"):
        return False
    return is_listing(
        text,
        end + 1 + (len(text[end + 1 :]) - len(text[end + 1 :].lstrip())),
        letter,
        choices,
        choice_texts,
    )


def article_option(text: str, choice_texts: tuple[str, ...]) -> int | None:
    """Return the option whose text follows a French definite article at the start of
    ``text`` ("L'épouse" for the option "Épouse"), or None."""
    article = _ARTICLE.match(text)
    if article is None:
        return None
    return match_option_text(text[article.end() :], choice_texts, prefix=True)


def inflected_option(text: str, choice_texts: tuple[str, ...]) -> int | None:
    """Return the one option written in Japanese with a hiragana ending (a verb or adjective:
    "中に含む") whose stem opens ``text`` with another ending ("中に含んでいます"), or None."""
    line = normalize_text(text.split("\n", 1)[0][:256])
    found = [
        i
        for i, option in enumerate(normalized_choices(choice_texts))
        if len(option) >= 3
        and _KANA_ENDING.search(option)
        and line.startswith(option[:-1])
        and _KANA.match(line, len(option) - 1)
        and not line.startswith(option)
    ]
    return found[0] if len(found) == 1 else None


def ending_option(sentence: str, choice_texts: tuple[str, ...]) -> int | None:
    """Return the option whose whole text ends a Chinese, Japanese or Korean ``sentence`` that
    goes on before it ("남편과 아버지와 딸" ends with "아버지와 딸"), the longest such text, or
    None (also for a sentence in other scripts: their words end sentences too often)."""
    key = normalize_text(sentence[:256])
    if not any(is_cjk(ch) for ch in key):
        return None
    keys = normalized_choices(choice_texts)
    ends = [i for i, o in enumerate(keys) if 2 <= len(o) < len(key) and key.endswith(o)]
    longest = max((len(keys[i]) for i in ends), default=0)
    best = [i for i in ends if len(keys[i]) == longest]
    return best[0] if len(best) == 1 else None


def letter_after(text: str, letter: str, choices: tuple[str, ...]) -> int | None:
    """Return the index of another choice whose bare letter is all that follows a label on
    its line ("D) C": two letters), or None."""
    lone = _LONE_LETTER.match(text)
    if lone is None or lone.group(1) == letter or lone.group(1) not in choices:
        return None
    return choices.index(lone.group(1))


def another_candidate(text: str, own: int, choice_texts: tuple[str, ...]) -> int | None:
    """Return the index of another option whose text follows the option ``own``'s whole text,
    after a comma, a slash or "or", on the first line of ``text`` ("Plus grande, plus petite":
    two candidates), or None."""
    line = text.split("\n", 1)[0]
    sep = _OR.search(line)
    if sep is None or match_option_text(line[: sep.start()], choice_texts) != own:
        return None
    other = match_option_text(line[sep.end() :], choice_texts, prefix=True)
    return None if other == own else other


def option_after(
    rest: str,
    letter: str,
    line_start: bool,
    choices: tuple[str, ...],
    choice_texts: tuple[str, ...],
) -> int | None:
    """Return the option named right after the label ``letter`` (``rest`` is the text after
    it; ``line_start``: a "C." or "C:" label at a line's start, which names an option only by
    another option's whole line), or None: "C) <text>", "C) Ni l'un" (B's text cut off), "A)
    10" (C is "10歳"), "B) 中に含んでいます" (C is "中に含む"), "B) L'épouse" (C is "Épouse"),
    "D) C" (the letter C), "D) どちらかというと、後に着いた。" (a remark whose last clause is A's
    text), and "C) <C's text>, <B's text>" (B: two candidates)."""
    if line_start:  # "A. The same age." where C is "The same age"
        return match_option_text(rest.split("\n", 1)[0], choice_texts)
    named = match_option_text(rest, choice_texts, prefix=True)
    named = cut_option_text(rest, choice_texts) if named is None else named
    named = number_option(rest, choice_texts) if named is None else named
    named = article_option(rest, choice_texts) if named is None else named
    named = inflected_option(rest, choice_texts) if named is None else named
    if named is None:
        named = letter_after(rest, letter, choices)
    if named is None:  # "D) どちらかというと、後に着いた。": a remark ending in A's text
        sentence = _SENTENCE.split(rest, 1)[0]
        named = match_option_text(_CLAUSE.split(sentence)[-1], choice_texts)
        return ending_option(sentence, choice_texts) if named is None else named
    if named < len(choices) and choices[named] != letter and _sentence(rest, choice_texts[named]):
        return None  # "A) Angie sort maintenant avec Cheng.": a made-up sentence, not B's text
    if named < len(choices) and choices[named] == letter:
        second = another_candidate(rest, named, choice_texts)
        return named if second is None else second
    return named


def labels_only(text: str, choice_texts: tuple[str, ...] = ()) -> bool:
    """Whether ``text`` opens with two successive labels and nothing between them ("B) C) D)
    E) Incertain"), or is three labels or more in rising order with at most two characters
    after each (" A)\nC) E\nD) L": texts cut to initials), or bare labels only, one a line,
    of three letters or more in order (" A) \nA: \nB: \nC:"; " C.\nA: \nB: \nC:" answers C), or a
    label with its own option's text and then the next label, cut off (": A) Mike B.", with
    ``choice_texts``; a bare letter, "C) Théo D", is a stray one): the labels listed back."""
    first = _LABELS_FIRST.match(text)
    if first is not None and ord(first.group(2)) == ord(first.group(1)) + 1:
        return True
    lines = [line for line in text.split("\n") if line.strip()]
    bare = [_BARE_LABEL_LINE.fullmatch(line) for line in lines]
    found = [m.group(1) for m in bare if m is not None]
    if len(found) == len(lines) and len(set(found)) >= 3 and found == sorted(found):
        return True
    cut = _CUT_LISTING.fullmatch(text)
    if cut is not None and ord(cut.group(3)) == ord(cut.group(1)) + 1:
        own = match_option_text(cut.group(2), choice_texts)
        return own is not None and chr(65 + own) == cut.group(1)
    labels = list(LABEL.finditer(text))
    letters = [label_letter(m) for m in labels]
    if len(labels) < 3 or any(a >= b for a, b in itertools.pairwise(letters)):
        return False
    ends = [m.start() for m in labels[1:]] + [len(text)]
    texts = [text[m.end() : end] for m, end in zip(labels, ends, strict=True)]
    return not text[: labels[0].start()].strip() and all(len(t.strip()) <= 2 for t in texts)


def _sentence(rest: str, option: str) -> bool:
    """Whether the first line of ``rest`` goes on past ``option``'s words by three words or
    more, with no label among them: a made-up sentence that begins with an option's text."""
    words = rest.split("\n", 1)[0].split()
    tail = " ".join(words[len(option.split()) :])
    return len(words) - len(option.split()) >= 3 and LABEL.search(tail) is None
