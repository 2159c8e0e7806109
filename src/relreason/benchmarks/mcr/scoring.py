"""Read an A-G answer from an MCR output, two ways.

``paper`` mode reproduces the official rule (``answer_cleansing`` in util.py and the clean-up
step in main.py of the MCR release, zhaojinm/Multilingual_Composition_Relation_benchmark @
23aaee66): every capital A-G anywhere in the output (``re.findall(r'A|B|C|D|E|F|G', pred)``;
for native few-shot only, the text after the last ``"A:"``). Exactly one letter is the answer.
With zero or several letters the official code asked a second model to restate the choice;
here such an output gets method ``paper_rule_cleanup`` and no answer, unless that clean-up step
is run (:mod:`relreason.benchmarks.mcr.cleanup`).

``robust`` mode reads explicit answer statements in en/zh/fr/ja/ko after NFKC normalisation
(full-width letters and brackets become ASCII) and with tokenizer special tokens removed; the
last statement wins; capitals inside words, letters outside the item's choices and hedges
between several letters ("A or B", "B和C都有可能") never count.
"""

from __future__ import annotations

import re
from typing import Literal

from relreason.benchmarks.mcr.labels import (
    LABEL,
    bare_cues,
    label_letter,
    label_run,
    labels_only,
    listed,
    lists_on,
    named_after,
    only_cues,
    option_after,
)
from relreason.benchmarks.mcr.statement import Statement, clash, contradicts, rambling
from relreason.errors import UsageError
from relreason.scoring.common import (
    match_option_text,
    normalize_output,
    number_option,
    pre_score,
    status_for,
)
from relreason.scoring.forms import abbreviated_option, labelled_statements, subject_option
from relreason.scoring.reading import (
    clean_output,
    hedge_after,
    hedge_before,
    leading_hedge,
    lowercase_statements,
    sentence_key,
    short_statements,
    verdict_letter,
)
from relreason.types import EvalItem, Extraction, Response

__all__ = [
    "ZSC_SUFFIX",
    "extract_paper",
    "extract_robust",
    "paper_letters",
    "score_mcr",
    "zsc_second_stage",
]

ZSC_SUFFIX = "\nTherefore, among options, the answer is"
"""The zero-shot-CoT answer-extraction trigger (``direct_answer_trigger`` of the MCR release)."""

_PAPER_LETTERS = re.compile(r"A|B|C|D|E|F|G")
_FEW_SHOT_TRIGGER = "A:"

_LATIN = r"A-Za-z0-9\u00C0-\u024F"
_CJK = r"\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u3002\uff0e"
_PREFIXES = re.compile(
    r"(?=[AaCcOoIiRr正答选選应應解回정답])"  # cheap first-character filter
    r"(?:(?i:\b(?:answer|choice|option)(?!s)\s*"
    r"(?:is|(?:would|should|will|must|could|might|may)\s+be|[:=])"
    r"|\bi\s+(?:would\s+)?(?:choose|select|pick|go\s+with)"
    r"|\br[ée]ponse(?!s)\s*(?:correcte\s*|juste\s*)?(?:est|serait|[:=])"
    r"|\b(?:choix|option)\s*(?:est|[:=]))"
    r"|(?:正确答案|答案|正确选项|选项|選項|应选|應選|选择|選擇|选|選)"
    r"\s*(?:应该是|應該是|应为|應為|是|为|為|[:=])?"
    r"|(?:答え|正解|解答|回答)\s*(?:は|[:=])"
    r"|(?:정답|답변|답)\s*(?:은|는|이|[:=]))"
)
_AFTER_PREFIX = re.compile(
    r"\s*:?\s*(?i:either\s+)?(?i:option\s+|choice\s+|l'option\s+|选项|選項)?[\"'(\[*「『]*\s*([A-G])"
    rf"(?![{_LATIN}])"
)
_LEADING_BARE = re.compile(
    rf"\**([A-G])\**(?:\s*$|[ \t]*\n|(?=[{_CJK}])|[ \t]*[,;][ \t]"
    r"|[ \t]+[-\u2013\u2014][ \t]|(?=[ \t]+(?i:because|since|car|parce)\b))"
)
_LEADING_TEXT = re.compile(r"\**([A-G])\**[ \t]+(?:[-\u2013\u2014][ \t]+)?(\S[^\n]*)")
_CONTINUATION = re.compile(r"\n[ \t]*Q[ \t]*:")
_NEW_TURN = re.compile(
    r"\n[ \t]*(?:A[ \t]*:|[B-G][ \t]*:(?=[ \t]*(?i:among\s+options|the\s+answer))"
    r"|(?i:step|étape)[ \t]*\d+[ \t]*:?|(?i:therefore,\s+among\s+options,\s+the\s+answer\s+is))"
)
_NEGATED = re.compile(r"(?i:\bnot|n't|\bpas)[ \t]*[(\[]?$")
_TAKEN_BACK = re.compile(  # not after "because": a reason, not a retraction
    r"(?i:(?<!because\sthe\s)\banswer\s+is\s+not\s+(?:(?:a|the|an)\s+)?"
    r"(?:correct|true|right|valid|reliable|certain(?:ty)?|sure|clear|known|match)\b"
    r"|\banswer\s+is\s+not\s+(?:among|in|one\s+of)\s+the\s+(?:options|choices)\b"
    r"|\bwhich\s+is\s+not\s+the\s+(?:correct\s+)?answer\b)"
)
_CUE = re.compile(r"A[ \t]*:[ \t]*(?=[(\[]?[A-G][)\]])")
_NOTHING = "no answer statement found"
_LISTED = "the labels listed back (A), B), C) ...), none chosen"


def paper_letters(output: str, *, few_shot: bool) -> list[str]:
    """Return every capital A-G that the official rule finds in ``output``, in order.

    ``few_shot`` means native few-shot (``fs``; official ``few_shot``) only: then just the text
    after the last ``"A:"`` is searched (the whole output when there is none), exactly as
    ``answer_cleansing`` in util.py of the MCR release; the English and multilingual exemplar
    variants search the whole output. Never raises.
    """
    text = output.split(_FEW_SHOT_TRIGGER)[-1] if few_shot else output
    return _PAPER_LETTERS.findall(text)


def extract_paper(
    output: str, choices: tuple[str, ...], *, few_shot: bool
) -> tuple[str | None, str]:
    """Return (letter or None, method) under the official MCR rule's first pass.

    Method ``"paper_rule"`` with the letter when exactly one letter was found;
    ``"paper_rule_cleanup"`` with None when none or several were (the official code then asked
    a second model to restate the choice: see :mod:`relreason.benchmarks.mcr.cleanup`). The
    letter may lie outside ``choices`` (the official rule does not look); it then simply counts
    as wrong. Never raises.
    """
    del choices  # the official rule does not look at the item's choices
    letters = paper_letters(output, few_shot=few_shot)
    return (letters[0] if len(letters) == 1 else None), _paper_method(letters)


def extract_robust(
    output: str, choices: tuple[str, ...], choice_texts: tuple[str, ...]
) -> tuple[str | None, str]:
    """Return (letter or None, method) read soundly from an MCR output in any of the languages.

    Reads a bare letter (``"clean"``), an output that is exactly one option's text
    (``"option_text"``), or explicit statements (``"statement"``: "the answer is C",
    "Answer: (C)", "答案是C", "La réponse est C", "정답은 C", "C) Northeast", "(C)"), the last
    strong statement ("answer is ...", a leading letter) winning over labels like "(C)". Only
    letters in ``choices`` count; a listing of the options is not an answer. Never raises.
    """
    letter, method, _ = _read_robust(output, choices, choice_texts)
    return letter, method


def score_mcr(
    item: EvalItem,
    response: Response,
    *,
    mode: Literal["paper", "robust"],
    few_shot: bool,
) -> Extraction:
    """Return the scored extraction of one MCR response in ``mode`` ("paper" or "robust").

    A failed request is ``"failed"``; choice log-likelihoods are read by argmax; an empty output
    is ``"no_answer"``. Paper mode records the letters found in ``detail``; with none or several
    the answer is None, status ``unparseable``, method ``paper_rule_cleanup`` (the item the
    official code sent to its clean-up model). ``few_shot`` is true for native few-shot (``fs``)
    only. A translated item's answer is also read against the English option texts: a letter
    followed by another option's English text is no answer. Raises UsageError for an unknown
    mode.
    """
    if mode not in ("paper", "robust"):
        raise UsageError(f"unknown MCR scoring mode {mode!r}; expected 'paper' or 'robust'")
    done = pre_score(item, response)
    if done is not None:
        return done
    text = response.text or ""
    if mode == "paper":
        letters = paper_letters(text, few_shot=few_shot)
        answer = letters[0] if len(letters) == 1 else None
        status = status_for(answer, item.gold, empty=False)
        return Extraction(
            answer, status, _paper_method(letters), _paper_detail(letters, item.choices)
        )
    letter, method, detail = _read_robust(text, item.choices, item.choice_texts)
    if letter is not None and item.english_choice_texts:  # "A. The same person." (E in English)
        english = _read_robust(text, item.choices, item.english_choice_texts)[2]
        if english is not None and english.startswith("contradictory"):
            letter, method, detail = None, "none", f"{english} (in English)"
    return Extraction(letter, status_for(letter, item.gold, empty=False), method, detail)


def zsc_second_stage(item: EvalItem, first_output: str) -> str:
    """Return the zero-shot-CoT answer-extraction prompt: the first prompt, the model's
    reasoning, then :data:`ZSC_SUFFIX`. Never raises."""
    return item.prompt + first_output + ZSC_SUFFIX


def _paper_method(letters: list[str]) -> str:
    """The method name for the number of letters the official rule found."""
    return "paper_rule" if len(letters) == 1 else "paper_rule_cleanup"


def _paper_detail(letters: list[str], choices: tuple[str, ...]) -> str:
    """Describe what the official rule found, for the record."""
    shown = ", ".join(letters[:12]) + (", ..." if len(letters) > 12 else "")
    detail = f"letters_found={len(letters)}" + (f" ({shown})" if letters else "")
    if len(letters) != 1:
        detail += "; the official code asked a second model to restate the choice (--cleanup-model)"
    elif letters[0] not in choices:
        detail += f"; {letters[0]} is not one of this item's choices"
    return detail


def _read_robust(
    output: str, choices: tuple[str, ...], choice_texts: tuple[str, ...]
) -> tuple[str | None, str, str | None]:
    """Read one output; returns (letter, method, detail). Invented new turns ("B\nA: The
    answer is C"): the first answer counts, the rest is read only when it gives none."""
    stripped = output.strip()
    if stripped in choices:
        return stripped, "clean", None
    text = clean_output(normalize_output(output))
    cut = _CONTINUATION.search(text)
    if cut is not None:
        text = text[: cut.start()]
    text = text.strip()
    cue = _CUE.match(text)  # the few-shot cue repeated: "A: E) Uncertain"
    if cue is not None:
        text = text[cue.end() :]
    if only_cues(text):
        return None, "none", "only bare label cues ('A:' on each line)"
    if labels_only(text, choice_texts):  # " A) \nA: \nB: \nC:": before any turn is cut
        return None, "none", _LISTED
    turn = _NEW_TURN.search(text)
    if turn is not None:
        if _listed_back(text, choices, choice_texts):  # "not A.\n\nA: 1.\nB: 2.\nC: 3."
            return None, "none", _LISTED
        head = _read_text(text[: turn.start()].strip(), choices, choice_texts)
        if head[0] is not None or _void(head[2]):
            return head  # the first answer counts, also when it is void (a contradiction)
        if head[2] == _LISTED and _PREFIXES.search(text, turn.start()) is None:
            return head  # the options listed back, then invented work with no "answer is"
        text = _NEW_TURN.sub("\n", text)  # the turns' cues ("A:", "B: Among") are no answers
    return _read_text(text, choices, choice_texts)


def _read_text(
    text: str, choices: tuple[str, ...], choice_texts: tuple[str, ...]
) -> tuple[str | None, str, str | None]:
    """Read one cleaned output (no continuation); returns (letter, method, detail)."""
    bare = text.strip("()[]*.:'\" \t\n")
    if len(bare) == 1 and bare.upper() in choices:
        return bare.upper(), "clean", None
    named = match_option_text(text, choice_texts)
    if named is None and not text.isascii():
        named = match_option_text(sentence_key(text), choice_texts)
    if named is None:
        named = subject_option(text, choice_texts)
    if named is not None and named < len(choices):
        return choices[named], "option_text", None
    verdict, wrong = verdict_letter(text, choices, choice_texts)
    if verdict is not None:
        return verdict, "statement", None
    found = _statements(text, choices, choice_texts)
    if labels_only(text, choice_texts) or _listed_back(text, choices, choice_texts, found):
        return None, "none", _LISTED
    rejected = {s.letter for s in found if _NEGATED.search(text, 0, s.position)}
    statements = [
        s for s in found if s.letter not in wrong and not _NEGATED.search(text, 0, s.position)
    ]  # "not A) East" rejects A
    if not statements:
        first = match_option_text(text.split("\n", 1)[0], choice_texts)
        first = number_option(text, choice_texts) if first is None else first
        first = match_option_text(sentence_key(text), choice_texts) if first is None else first
        if first is not None and first < len(choices) and not rejected:
            return choices[first], "option_text", None  # "15.", then no answer
        return None, "none", _NOTHING
    strong = [s for s in statements if s.strong]
    chosen = (strong or statements)[-1]
    lead = rambling(text, strong)  # "A. The answer is 25. ... The answer is 27."
    two = None if lead is not None else clash(text, statements)
    chosen = chosen if lead is None else lead
    if two is not None:
        return None, "none", two
    if chosen.letter in rejected:
        return None, "none", f"contradictory: {chosen.letter} rejected ('not'), then given"
    if _TAKEN_BACK.search(text, chosen.position):
        return None, "none", f"{chosen.letter}, then taken back ('the answer is not a correct ...')"
    if chosen.hedge is not None:
        return None, "none", f"hedge between several letters ({chosen.letter} or {chosen.hedge})"
    if chosen.letter not in choices:
        return None, "none", f"names {chosen.letter}, not one of the choices"
    if chosen.contradictory and not _stands(strong, chosen.letter):
        return None, "none", f"contradictory: {chosen.letter} followed by another option's text"
    return chosen.letter, "statement", None


def _statements(
    text: str, choices: tuple[str, ...], choice_texts: tuple[str, ...]
) -> list[Statement]:
    """Every statement naming one of ``choices``, in text order (option listings left out).

    Strong: a leading bare letter, "answer is C"-like statements (also "answer is <option
    text>"), a label at the very start ("(C) ...", "C) ..."). Weak: labels elsewhere.
    """
    found: list[Statement] = []
    hedge = leading_hedge(text)
    leading = _LEADING_BARE.match(text)
    with_text = _LEADING_TEXT.match(text)
    named = None
    if with_text is not None and with_text.group(1) in choices:
        named = match_option_text(with_text.group(2), choice_texts, prefix=True)
    if hedge is not None:
        found.append(Statement(0, hedge[0], True, False, hedge[1]))
    elif with_text is not None and named is not None:
        bad = contradicts(named, with_text.group(1), choices)
        found.append(Statement(0, with_text.group(1), True, bad))
    elif leading is not None and leading.group(1) in choices:
        found.append(Statement(0, leading.group(1), True, False))
    for prefix in _PREFIXES.finditer(text):
        after = _AFTER_PREFIX.match(text, prefix.end())
        if after is not None:
            letter = after.group(1)
            other = hedge_after(text, after.end(), letter)
            if other is None and lists_on(text, after.end(), letter, choices, choice_texts):
                continue  # "The answer is A) East B) West C) ...": the options listed
            if letter in choices or other is not None:
                named = named_after(text, after.end(), choice_texts)
                bad = contradicts(named, letter, choices)
                found.append(Statement(after.start(1), letter, True, bad, other))
            continue
        rest = text[prefix.end() :]
        named = match_option_text(rest.lstrip(" :："), choice_texts, prefix=True)
        if named is None and not rest.isascii():
            named = match_option_text(sentence_key(rest.lstrip(" :：")), choice_texts)
        if named is None:
            named = number_option(rest.lstrip(" :："), choice_texts)  # "answer is 12 years old"
        if named is None:
            named = abbreviated_option(rest, choice_texts)  # "The answer is INC." (Incertain)
        if named is not None and named < len(choices):
            found.append(Statement(prefix.end(), choices[named], True, False))
    found.extend(
        Statement(position, letter, True, bad)
        for position, letter, bad in labelled_statements(text, choices, choice_texts)
    )
    for start, end, letter in short_statements(text) + lowercase_statements(text):
        other = hedge_after(text, end, letter)
        if other is None and hedge_before(text, start):
            other = "another letter"
        if letter in choices or other is not None:
            found.append(Statement(start, letter, True, False, other))
    labels: list[tuple[Statement, int]] = []
    cues = bare_cues(text)
    for label in LABEL.finditer(text):
        letter = label_letter(label)
        if label.start() in cues:
            continue
        if letter not in choices:
            continue
        named = option_after(
            text[label.end() :], letter, label.group(3) is not None, choices, choice_texts
        )
        bad = contradicts(named, letter, choices)
        labels.append((Statement(label.start(), letter, label.start() == 0, bad), label.end()))
    spans = [(s.position, s.letter, end) for s, end in labels]
    listing = listed(text, spans, choices, choice_texts)
    found.extend(s for i, (s, _) in enumerate(labels) if i not in listing)
    found.sort(key=lambda s: (s.position, s.hedge is not None))
    return found


def _listed_back(
    text: str,
    choices: tuple[str, ...],
    choice_texts: tuple[str, ...],
    found: list[Statement] | None = None,
) -> bool:
    """Whether the labels list the letters back (:func:`label_run`) with every statement not
    rejected ("not A.") at one of them; statements are read only for such a run."""
    starts = label_run(text, choices)
    if starts is None:
        return False
    found = _statements(text, choices, choice_texts) if found is None else found
    kept = [s.position for s in found if not _NEGATED.search(text, 0, s.position)]
    return all(any(0 <= position - start <= 1 for start in starts) for position in kept)


def _stands(strong: list[Statement], letter: str) -> bool:
    """Whether the first strong statement gives ``letter`` with nothing against it: a later
    statement of the same letter with another option's text ("A) 同学\nThe answer is: A) 同事")
    does not undo it."""
    return bool(strong) and strong[0].letter == letter and not strong[0].contradictory


def _void(detail: str | None) -> bool:
    """Whether a reading that gave no letter found an answer that is void (a contradiction, a
    hedge, a letter taken back), rather than none at all or a letter outside the choices."""
    return detail not in (None, _NOTHING, _LISTED) and not detail.startswith("names ")
