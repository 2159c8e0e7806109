"""Read an A/B answer from a ConvRe output.

Non-CoT outputs are read line-first: a clean letter (``A``, ``(A)``, ``A.``, ``Answer: A``, ``The
answer is A``) or a letter with its choice text on the first line, then an explicit statement
("the answer is B") anywhere. A continuation that starts a new example (``Instruction:`` /
``Question:``) is cut off first; an output that restates both choices is no answer; a letter
followed by the other choice's text is contradictory. CoT outputs (settings 8 and 11) are a
JSON-like object with keys ``thought`` and ``answer``; it is read with ``json`` or
``ast.literal_eval`` (literal-only, never ``eval``), else the ``answer`` field by pattern.
When the text gives no answer, the paper's log-probability fallback (Appendix F) compares the
first token's " A" and " B" alternatives.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, NamedTuple

from relreason.benchmarks.convre.forms import first_line_option, thought_choice
from relreason.scoring.common import (
    fallback_letter,
    match_option_text,
    normalize_output,
    pre_score,
    status_for,
)
from relreason.scoring.reading import (
    clean_output,
    hedge_after,
    hedge_before,
    leading_hedge,
    lowercase_statements,
    short_statements,
    verdict_letter,
)
from relreason.types import EvalItem, Extraction, Response

__all__ = ["extract_convre", "score_convre"]

LETTERS = ("A", "B")
_MAX_OBJECT_STARTS = 8
_MAX_OBJECT_ENDS = 32
_MAX_LITERAL_CHARS = 20_000

_FAST = {
    form.format(x=x): x.upper()
    for x in (*LETTERS, "a", "b")
    for form in ("{x}", "{x}.", "{x}:", "({x})")
}
_PREFIX = r"(?i:(?:the\s+)?(?:correct\s+|right\s+|final\s+)?(?:answer|choice|option)(?:\s+is)?)"
_QUOTE = "\"'\u201c\u201d\u2018\u2019"
"""Quotes around a letter: straight, and curly double and single ones."""
_CLEAN_LINE = re.compile(
    rf"(?:{_PREFIX}\s*:?\s*)?\**[(\[]?\s*[{_QUOTE}]?([AB])[{_QUOTE}]?\s*[)\]]?\**\s*[.:)]?\**"
)
_LOWER_LINE = re.compile(rf"(?:{_PREFIX}\s*:?\s*)?\**[(\[]?\s*([ab])\s*[)\]]?\**\s*[.:)]?\**")
_LEAD_IN = re.compile(
    r"(?:(?P<option>(?i:option|choice))\s*|[^\n]{1,120}?[,:]\s+)"
    r"[(\[]?(?P<letter>[AB])[)\]]?\s*[:.)]\s*(?P<text>\S.*)"
)
_LABELS_ONLY = re.compile(r"\(?[A-F]\)?(?:[ \t]*[,;/]?[ \t]*\(?[A-F]\)?)+")
_TRIPLE_REST = re.compile(r"[ \t]*,[^,()\n]*,[^()\n]*\)")
_TEXT_THEN_LABEL = re.compile(r"(.+?)[ \t]*\(([AB])\)[.]?")
_ANSWER_IS = re.compile(
    r"(?i:\bthe\s+(?:correct\s+|right\s+|final\s+)?answer\s+is)\s*:?\s*[\"'(\[*]*\s*([AB])"
    r"(?![A-Za-z0-9\u00C0-\u024F])"
)
_ECHO_QUESTION = re.compile(r"\n[^\n]*(?i:which choice|to convert the question)")
_LABELLED = re.compile(
    r"(?:\(([AB])\)\s*[:.,]?|([AB])\s*(?:[:.),]|\s[-\u2013\u2014]|(?=\s+(?i:because|since)\b)))"
    r"\s*(\S.*)"
)
_LETTER_TEXT = re.compile(r"[(\[]?([AB])[)\]]?\s+(\S.*)")
_IS_CORRECT = re.compile(r"([AB])\s+is\s+(?:the\s+)?(?i:correct|right|answer)")
_ECHO_LINE = re.compile(r"^[ \t]*\(?([AB])\)?[ \t]*[:.)][ \t]*\S", re.MULTILINE)
_BARE_LABEL = re.compile(r"^[ \t]*\(?([AB])\)?[ \t]*:[ \t]*$", re.MULTILINE)
_LISTED_LABEL = re.compile(r"(?:^|(?<=\s))(?:\(([AB])\)[ \t]*[:.]?|([AB])[ \t]*[:.)])[ \t]*")
"""A label as an options listing writes it: ``A:``, ``A.``, ``A)`` or ``(A)``."""
_CONTINUATION = re.compile(r"\n[ \t]*(?:Instruction|Question|Read the instruction)\b")
_STATEMENT = re.compile(
    r"(?i:\b(?:answer|choice|option)\s*(?:(?:is|(?:would|should|could|might|may|will|must)\s+be)"
    r"(?:[ \t]*:(?=[ \t]*\S))?|:)|\b(?:choose|select|pick)|\bcorrect\s+one\s+is)"
    rf"\s*(?i:either\s+)?(?i:option\s+|choice\s+)?[{_QUOTE}(\[*]*\s*([A-G])"
    r"(?![A-Za-z0-9\u00C0-\u024F])"
)
_ANSWER_PREFIX = re.compile(r"(?i:\b(?:answer|choice|option)\s*(?:is|:))\s*")
_FIELD_LETTER = re.compile(
    r"[\"']?(?i:answer)[\"']?\s*:\s*[\"']?\s*\(?([ABab])\)?(?![A-Za-z0-9\u00C0-\u024F])"
)
_OPEN = re.compile(r"\{")
_CLOSE = re.compile(r"\}")
_FIELD_TEXT = re.compile(r"[\"'](?i:answer)[\"']\s*:\s*([\"'])(.*?)\1", re.DOTALL)


class _Read(NamedTuple):
    """A letter (or None), how it was read, and a note for the record."""

    letter: str | None
    method: str
    detail: str | None = None


def extract_convre(
    output: str, choice_texts: tuple[str, str], *, cot: bool
) -> tuple[str | None, str]:
    """Return (letter or None, method) read from one ConvRe output.

    ``choice_texts`` are the texts of choices A and B; ``cot`` selects the JSON-answer reading of
    settings 8 and 11. Methods: ``"clean"``, ``"option_text"``, ``"pattern"``, ``"json"``,
    ``"literal"``, or ``"none"`` when no answer can be read. Never raises; model output is never
    evaluated as code.
    """
    read = _read(output, choice_texts, cot=cot)
    return read.letter, read.method


def score_convre(
    item: EvalItem, response: Response, *, cot: bool, logprob_fallback: bool = True
) -> Extraction:
    """Return the scored extraction of one ConvRe response.

    A failed request is ``"failed"``; choice log-likelihoods are read by argmax; an empty output
    is ``"no_answer"``. Otherwise the text is read with :func:`extract_convre`; when that gives
    no answer and ``logprob_fallback`` is on, the likelier of " A"/" B" among the first token's
    top alternatives is taken when both are there and it leads by
    :data:`~relreason.scoring.common.FALLBACK_MARGIN` (method ``"logprob_fallback"``). Raises
    ValueError when the item does not have exactly two choice texts (a bug in the item builder,
    not a user error).
    """
    done = pre_score(item, response)
    if done is not None:
        return done
    if len(item.choice_texts) != 2:
        raise ValueError(f"ConvRe item {item.item_id} has {len(item.choice_texts)} choice texts")
    texts = (item.choice_texts[0], item.choice_texts[1])
    read = _read(response.text or "", texts, cot=cot)
    if read.letter is None and logprob_fallback and response.top_logprobs:
        letter, note = fallback_letter(response.top_logprobs, LETTERS)
        detail = f"{read.detail}; {note}" if read.detail else note
        if letter is not None:
            return Extraction(
                letter, status_for(letter, item.gold, empty=False), "logprob_fallback", detail
            )
        read = _Read(None, read.method, detail)
    return Extraction(
        read.letter, status_for(read.letter, item.gold, empty=False), read.method, read.detail
    )


def _read(output: str, choice_texts: tuple[str, str], *, cot: bool) -> _Read:
    """Read one output; the detail says why nothing was read."""
    stripped = output.strip()
    fast = _FAST.get(stripped)
    if fast is not None:
        return _Read(fast, "clean")
    text = normalize_output(output)
    if cot:
        read = _read_cot(text, choice_texts)
        if read is not None:
            return read
    return _read_plain(text, choice_texts)


def _read_plain(text: str, choice_texts: tuple[str, str]) -> _Read:
    """Read a non-CoT answer: first line, then explicit statements anywhere."""
    text = clean_output(text)
    cut = _CONTINUATION.search(text)
    if cut is not None:
        text = text[: cut.start()]
    text = text.strip()
    if not text:
        return _Read(None, "none", "only a continuation of the prompt")
    first = text.split("\n", 1)[0].strip()
    hedge = leading_hedge(text)
    if hedge is not None:
        return _final_statement(text, 1) or _Read(None, "none", f"hedge: {' or '.join(hedge)}")
    if _BARE_LABEL.fullmatch(first) and len({m.group(1) for m in _BARE_LABEL.finditer(text)}) == 2:
        return _Read(None, "none", "restates both choices (their labels)")
    if _LABELS_ONLY.fullmatch(first):
        return _Read(None, "none", "restates both choices (their labels)")
    if _one_line_listing(first, choice_texts):  # "A: <A's text> B: <B's text>"
        after = _final_statement(text, len(first))
        return after or _Read(None, "none", "restates both choices (on one line)")
    if _BARE_LABEL.fullmatch(first):  # a cue ("A:"), not an answer: " A:\n\nThe answer is: A."
        return _final_statement(text, len(first), choice_texts) or _Read(
            None, "none", "a bare label cue ('A:'), then no answer"
        )
    named = first_line_option(first, choice_texts)
    if named is not None:  # also when the choices are restated after it
        later = _final_statement(text, len(first), choice_texts)
        if later is not None and later.letter not in (None, LETTERS[named]):
            return _Read(None, "none", f"two answers: {LETTERS[named]}'s text, then {later.letter}")
        return _Read(LETTERS[named], "option_text")
    clean = _CLEAN_LINE.fullmatch(first) or _LOWER_LINE.fullmatch(first)
    if clean is not None:
        return _clean_unless_contradicted(clean.group(1).upper(), text)
    text_first = _TEXT_THEN_LABEL.fullmatch(first)
    if text_first is not None:
        named = match_option_text(text_first.group(1), choice_texts)
        if named is not None and LETTERS[named] == text_first.group(2):
            return _Read(LETTERS[named], "clean")
    verdict, wrong = verdict_letter(first, LETTERS, choice_texts)
    if verdict is not None:
        return _Read(verdict, "pattern")
    if wrong:
        return _Read(None, "none", f"{' and '.join(sorted(wrong))} called wrong, none right")
    echoes = list(_ECHO_LINE.finditer(text))
    if len({m.group(1) for m in echoes}) == 2:
        after = _final_statement(text, echoes[-1].end())
        return after or _Read(None, "none", "restates both choices")
    lead_in = _lead_in(first, choice_texts)
    if lead_in is not None:
        return lead_in
    labelled = _LABELLED.fullmatch(first)
    if labelled is not None:
        letter = labelled.group(1) or labelled.group(2)
        named = match_option_text(labelled.group(3), choice_texts, prefix=True)
        if named is not None and LETTERS[named] != letter:
            return _Read(None, "none", f"contradictory: {letter} followed by the other choice")
        later = _final_statement(text, len(first), choice_texts) if named is None else None
        if later is not None and later.letter not in (None, letter):  # "A: <remark>\nAnswer: B"
            return _Read(None, "none", f"two answers: {letter} with a remark, then {later.letter}")
        return _Read(letter, "clean")
    with_text = _LETTER_TEXT.fullmatch(first)
    if with_text is not None:
        named = match_option_text(with_text.group(2), choice_texts, prefix=True)
        if named is not None:
            letter = with_text.group(1)
            if LETTERS[named] != letter:
                return _Read(None, "none", f"contradictory: {letter} followed by the other choice")
            return _Read(letter, "clean")
    is_correct = _IS_CORRECT.match(first)
    if is_correct is not None and hedge_after(first, is_correct.end(), "") is None:
        return _Read(is_correct.group(1), "clean")
    return _final_statement(text, 0, choice_texts) or _Read(
        None, "none", "no answer statement found"
    )


def _one_line_listing(line: str, choice_texts: tuple[str, str]) -> bool:
    """Whether ``line`` lists both choices back, each label followed by its own text, on one
    line: ``A: <A's text> B: <B's text>`` (also ``A. ...``, ``A) ...``, ``(A) ...``, either
    letter first), as a two-line listing does on two."""
    labels = list(_LISTED_LABEL.finditer(line))
    if len(labels) < 2 or labels[0].start() != 0:
        return False
    first = labels[0].group(1) or labels[0].group(2)
    for second in labels[1:]:
        letter = second.group(1) or second.group(2)
        if letter == first:
            continue
        head = match_option_text(line[labels[0].end() : second.start()], choice_texts)
        tail = match_option_text(line[second.end() :], choice_texts, prefix=True)
        if head == LETTERS.index(first) and tail == LETTERS.index(letter):
            return True
    return False


def _clean_unless_contradicted(letter: str, text: str) -> _Read:
    """A clean first-line letter, unless the text right after it (before any echo of the
    question) says "the answer is" the other letter: " A\n\nThe answer is: B" is two answers,
    no answer; repeated "Answer: B" cues are invented turns and do not count."""
    echo = _ECHO_QUESTION.search(text)
    region = text[: echo.start()] if echo is not None else text
    start = region.find("\n")
    if start >= 0:
        for m in _ANSWER_IS.finditer(region, start):
            other = m.group(1)
            if (
                other in LETTERS
                and other != letter
                and hedge_after(region, m.end(1), other) is None
            ):
                return _Read(None, "none", f"conflicting answers: {letter}, then {other}")
    return _Read(letter, "clean")


def _lead_in(first: str, choice_texts: tuple[str, str]) -> _Read | None:
    """Read "Option B: <text>" or "Based on the definition given, A: <text of A>": a label
    after a lead-in, followed by the text of its own choice (after "Option"/"Choice" any text
    will do); None when the line is not of that form."""
    found = _LEAD_IN.fullmatch(first)
    if found is None:
        return None
    letter = found.group("letter")
    named = match_option_text(found.group("text"), choice_texts, prefix=True)
    if named is not None and LETTERS[named] != letter:
        return _Read(None, "none", f"contradictory: {letter} followed by the other choice")
    if named is None and found.group("option") is None:
        return None
    return _Read(letter, "clean")


def _final_statement(
    text: str, start: int, choice_texts: tuple[str, str] | None = None
) -> _Read | None:
    """Read the last answer statement at or after ``start`` ("the answer is B", "It's A.",
    "B is correct"); None when there is none. A statement naming several letters ("the answer
    is A or B") is a hedge: no answer."""
    found = [(m.start(1), m.end(1), m.group(1)) for m in _STATEMENT.finditer(text, start)]
    found += [s for s in short_statements(text) if s[0] >= start]
    found += [s for s in lowercase_statements(text) if s[0] >= start]
    found = [s for s in found if not _in_triple(text, s[0], s[1])]
    if choice_texts is not None:
        for m in _ANSWER_PREFIX.finditer(text, start):
            named = match_option_text(text[m.end() :], choice_texts, prefix=True)
            if named is not None:
                found.append((m.end(), m.end(), LETTERS[named]))
    if not found:
        return None
    begin, end, letter = max(found)
    other = hedge_after(text, end, letter)
    if other is not None or hedge_before(text, begin):
        shown = f"{letter} or {other}" if other else letter
        return _Read(None, "none", f"hedge between several letters ({shown})")
    if letter not in LETTERS:
        return _Read(None, "none", f"names {letter}, not a choice")
    rest = text[end:]
    if choice_texts is not None and rest[:1] in (":", ")", "."):
        named = match_option_text(rest[1:], choice_texts, prefix=True)
        if named is not None and LETTERS[named] != letter:
            return _Read(None, "none", f"contradictory: {letter} followed by the other choice")
    return _Read(letter, "pattern")


def _in_triple(text: str, begin: int, end: int) -> bool:
    """Whether the letter at ``begin:end`` opens a made-up triple ("the answer is (A, ?, ?)"):
    an entity, not a choice."""
    return text[:begin].rstrip(" \t\"'*[").endswith("(") and bool(_TRIPLE_REST.match(text, end))


def _read_cot(text: str, choice_texts: tuple[str, str]) -> _Read | None:
    """Read the ``answer`` of a JSON-like object; None when there is no answer field."""
    found = _find_object(text)
    if found is not None:
        obj, method, span = found
        fields = {m.group(1).upper() for m in _FIELD_LETTER.finditer(text, *span)}
        if len(fields) > 1:
            shown = " and ".join(sorted(fields))
            return _Read(None, "none", f"conflicting answer fields in one object ({shown})")
        value = _answer_value(obj)
        if value is not None:
            letter = _read_value(value, choice_texts)
            concluded = thought_choice(obj, choice_texts)
            if letter is not None and concluded is not None and LETTERS[concluded] != letter:
                return _Read(
                    None,
                    "none",
                    f"contradictory: the thought concludes {LETTERS[concluded]}'s"
                    f" text, the answer field says {letter}",
                )
            if letter is not None:
                return _Read(letter, method)
            return _Read(None, "none", f"answer field not readable: {value[:80]!r}")
    field = _FIELD_LETTER.search(text)
    if field is not None:
        return _Read(field.group(1).upper(), "pattern")
    field_text = _FIELD_TEXT.search(text)
    if field_text is not None:
        named = match_option_text(field_text.group(2), choice_texts, prefix=True)
        if named is not None:
            return _Read(LETTERS[named], "pattern")
        return _Read(None, "none", f"answer field not readable: {field_text.group(2)[:80]!r}")
    return None


def _find_object(text: str) -> tuple[dict[Any, Any], str, tuple[int, int]] | None:
    """Return the first dict literal in ``text`` with how it parsed ("json" or "literal") and
    where it stands (start, end)."""
    decoder = json.JSONDecoder()
    starts = [m.start() for m in _OPEN.finditer(text)][:_MAX_OBJECT_STARTS]
    for start in starts:
        try:
            obj, stop = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            obj, stop = None, start
        if isinstance(obj, dict):
            return obj, "json", (start, stop)
        ends = [m.start() for m in _CLOSE.finditer(text, start)][:_MAX_OBJECT_ENDS]
        for end in ends:
            candidate = text[start : end + 1]
            if len(candidate) > _MAX_LITERAL_CHARS:
                break
            try:
                obj = ast.literal_eval(candidate)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            if isinstance(obj, dict):
                return obj, "literal", (start, end + 1)
    return None


def _answer_value(obj: dict[Any, Any]) -> str | None:
    """Return the object's ``answer`` value as text (key case-insensitive), or None."""
    for key, value in obj.items():
        if isinstance(key, str) and key.strip().lower() == "answer":
            if isinstance(value, str):
                return value
            return None
    return None


def _read_value(value: str, choice_texts: tuple[str, str]) -> str | None:
    """Read a letter from an answer field: a clean letter form or a choice's text."""
    read = _read_plain(normalize_output(value), choice_texts)
    if read.method in ("clean", "option_text"):
        return read.letter
    named = match_option_text(value, choice_texts, prefix=True)
    return LETTERS[named] if named is not None else read.letter
