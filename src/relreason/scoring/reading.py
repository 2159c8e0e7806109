"""Reading helpers the sound readers of both benchmarks share.

- :func:`clean_output`: tokenizer special tokens left in by other tools (``<pad> A</s>``,
  ``<|im_end|>``, ``<|eot_id|>``, ...) are removed; an end-of-sequence token ends the output.
- :func:`hedge_after`, :func:`leading_hedge`: "A or B", "B和C", "AとB", "A ou B", "A 또는 B":
  a list of several candidate answers, which is no answer.
- :func:`short_statements`: "It's A.", "Option C", "I'd go with D", "C is correct",
  "C est correcte", "選択肢Cが正しいです", "C是正确的", "C가 정답입니다".
- :func:`verdict_letter`: "A) <text> is wrong; D) <text> is right": the one option called right.
- :func:`lowercase_statements`: "the answer is b", "答案是c": a lowercase letter in an explicit
  answer statement.
"""

from __future__ import annotations

import re

from relreason.scoring.common import match_option_text

__all__ = [
    "clean_output",
    "hedge_after",
    "hedge_before",
    "leading_hedge",
    "lowercase_statements",
    "sentence_key",
    "short_statements",
    "verdict_letter",
]

_END_TOKENS = re.compile(
    r"</s>|<\|im_end\|>|<\|endoftext\|>|<\|eot_id\|>|<\|end\|>|<end_of_turn>|<eos>|<\|eom_id\|>"
)
_SPECIAL = re.compile(
    r"<\|start_header_id\|>[^<\n]{0,20}<\|end_header_id\|>"
    r"|<\|im_start\|>(?:assistant|user|system)?\n?"
    r"|<start_of_turn>(?:model|user)?\n?"
    r"|<\|[A-Za-z0-9_]{1,30}\|>"
    r"|\[INST\](?:(?!\[/?INST\]).)*\[/INST\]"  # a prompt echoed between instruction tags
    r"|</?s>|<pad>|<unk>|<eos>|<bos>|<mask>|<sep>|<cls>|<end_of_turn>|\[/?INST\]",
    re.DOTALL,
)
_SPECIAL_HINT = re.compile(r"<[|/a-z]|\[/?INST")

_HEDGE_LINK = (
    r"\s*(?:,\s*)?(?i:or|nor|and|ou|et|/|&|vs\.?)\s*"
    r"|\s*(?:或者|或是|或|还是|還是|和|与|與|及|跟|と|か|または|あるいは|もしくは|や|、|,|"
    r"또는|혹은|이나|나|와|과|및)\s*"
)
_SECOND = r"(?:(?i:option|choice|l'option)\s+|选项|選項|選択肢)?[(\[]?([A-G])[)\]]?"
_NOT_A_CLAUSE = r"(?![A-Za-z0-9\u00C0-\u024F])(?!\s+(?i:is|was|isn't|est|n'est)\b)"
_HEDGE_AFTER = re.compile(rf"[)\]]?(?:{_HEDGE_LINK}){_SECOND}{_NOT_A_CLAUSE}")

_LEADING_HEDGE = re.compile(
    r"[\s*]*(?i:either\s+|both\s+|between\s+)?(?:(?i:option|choice)\s+)?[(\[]?([A-G])"
    rf"(?:{_HEDGE_AFTER.pattern})"
)

_LATIN = r"A-Za-z0-9\u00C0-\u024F"
_LETTER_IS_CORRECT = re.compile(
    rf"(?:(?i:option|choice|l'option|réponse)\s+|选项|選項|選択肢|선택지|보기)?"
    rf"(?<![{_LATIN}])[(\[]?([A-G])[)\]]?"
    r"(?:\s+(?i:is\s+(?:the\s+)?(?:correct|right|best|true|answer)\b(?!\s+(?i:if|only|when)\b)"
    r"|est\s+(?:la\s+)?(?:bonne|correcte?|juste|vraie?)\b)"
    r"|\s*(?:が|は|是|为|為|가|이|은|는)?\s*(?:正しい|正解|正确|正確|对的|對的|정답|맞습니다|맞다|옳))"
)
_ITS_LETTER = re.compile(
    r"(?i:\b(?:it'?s|it\s+is|that'?s|that\s+is|c'est|c’est|i'?d\s+(?:go\s+with|choose|pick|say)"
    r"|i\s+(?:would\s+)?(?:go\s+with|choose|pick|select|say|think)))"
    r"\s+(?i:option\s+|choice\s+)?[(\[]?([A-G])[)\]]?"
    rf"(?![{_LATIN}'’])(?=\s*(?:$|[.,;!?\n)]|(?i:because|since|as)\b|[—–-]\s))"
)
_OPTION_LETTER = re.compile(
    rf"(?<![{_LATIN}])(?i:option|choice)\s+[(\[]?([A-G])[)\]]?(?![{_LATIN}'’])(?=\s*(?:$|[.!]\s*$))"
)


_TRAILING_LETTER = re.compile(
    r"(?:[,:，：]|\bis)[ \t]*(?:(?i:so|thus|hence|therefore)[ \t]+)?"
    r"[(\[]?\**([A-G])\**[)\]]?[ \t]*[.。!]?[ \t]*$"
)


def clean_output(text: str) -> str:
    """Return ``text`` without tokenizer special tokens.

    Everything after the first end-of-sequence token (``</s>``, ``<|im_end|>``,
    ``<|endoftext|>``, ``<|eot_id|>``, ...) that follows some text is dropped; the remaining
    special tokens (``<pad>``, ``<s>``, ``<|im_start|>assistant``, ``[INST]`` ...) are removed.
    Text without ``<`` or ``[INST`` is returned as is. Never raises.
    """
    if not _SPECIAL_HINT.search(text):
        return text
    for end in _END_TOKENS.finditer(text):
        head = text[: end.start()]
        if _SPECIAL.sub("", head).strip():
            text = head
            break
    return _SPECIAL.sub("", text)


def hedge_after(text: str, end: int, first: str) -> str | None:
    """Return the second letter when the letter ``first`` ending at ``end`` is followed by
    "or B" / "和B" / "とB" / ", B" (several candidate answers), else None. "A and B is wrong"
    (a clause about B) is no hedge. Never raises."""
    found = _HEDGE_AFTER.match(text, end)
    if found is None or found.group(1) == first:
        return None
    return found.group(1)


def leading_hedge(text: str) -> tuple[str, str] | None:
    """Return the two letters when ``text`` opens with several candidate answers ("A or B",
    "B和C都有可能", "AとB", "Either A or B"), else None. Never raises."""
    found = _LEADING_HEDGE.match(text)
    if found is None or found.group(1) == found.group(2):
        return None
    return found.group(1), found.group(2)


def short_statements(text: str) -> list[tuple[int, int, str]]:
    """Return (start, end, letter) of each short answer form in ``text``: "It's A.", "that is
    (B),", "I'd go with C", "Option D" / ", D." / "is D" (at the end), "C is correct",
    "C est correcte", "選択肢Cが正しいです", "C是正确的", "C가 정답입니다". Never raises."""
    found = [
        (m.start(1), m.end(1), m.group(1))
        for pattern in (_ITS_LETTER, _OPTION_LETTER, _LETTER_IS_CORRECT, _TRAILING_LETTER)
        for m in pattern.finditer(text)
    ]
    return sorted(found)


_HEDGE_BEFORE = re.compile(rf"[A-G][)\]]?(?:{_HEDGE_LINK})(?:(?i:option|choice)\s+)?[(\[]?$")
_POLITE_ENDINGS = (
    "합니다",
    "でしょう",
    "です",
    "である",
    "だ",
    "입니다",
    "이다",
    "이에요",
    "예요",
    "임",
    "吧",
    "啊",
)
_SENTENCE_END = re.compile(r"[。.!?！？\n]")


def hedge_before(text: str, start: int) -> bool:
    """Whether the letter at ``start`` is the second of several candidates ("A or B is
    correct", "A和B都对"). Never raises."""
    return _HEDGE_BEFORE.search(text[max(0, start - 24) : start]) is not None


def sentence_key(text: str) -> str:
    """Return the first sentence of ``text`` without a polite ending (です, 입니다, ...), for
    comparing a CJK answer with an option's text ("北東です。" -> "北東"). Never raises."""
    head = _SENTENCE_END.split(text.strip(), 1)[0].strip()
    for ending in _POLITE_ENDINGS:
        if head.endswith(ending) and len(head) > len(ending):
            return head[: -len(ending)].strip()
    return head


_VERDICT_LABEL = re.compile(r"(?<![A-Za-z0-9\u00C0-\u024F])[(\[]?([A-G])[)\]:.][ \t]*")
_VERDICT = re.compile(
    r"[ \t.,]*(?:(?i:is|est|are)[ \t]+)?(?:(?i:(not|n't|pas))[ \t]+)?(?:(?i:the|la|le)[ \t]+)?"
    r"(?:((?i:right|correct|true|answer|bonne|correcte|juste|vraie?|réponse)(?![ \t]*[:：])"
    r"|正确|正確|正しい|正解|맞습니다|정답)"
    r"|((?i:wrong|incorrect|false|faux|fausse|incorrecte)|错误|錯誤|間違い|誤り|틀렸|틀린|오답))"
)


def verdict_letter(
    text: str, choices: tuple[str, ...], choice_texts: tuple[str, ...]
) -> tuple[str | None, frozenset[str]]:
    """Read "A) <text of A> is wrong; D) <text of D> is right": each label followed by its own
    option's text and a verdict (right/correct/true or wrong/incorrect/false, "not" turning
    one into the other, in the five languages). Returns (the one letter called right, or
    None when none or several are, the letters called wrong). Never raises."""
    right: set[str] = set()
    wrong: set[str] = set()
    for label in _VERDICT_LABEL.finditer(text):
        letter = label.group(1)
        if letter not in choices:
            continue
        index = choices.index(letter)
        if index >= len(choice_texts) or not choice_texts[index].strip():
            continue
        rest = text[label.end() :]
        if match_option_text(rest, choice_texts, prefix=True) != index:
            continue
        verdict = _VERDICT.match(rest, len(choice_texts[index].strip()))
        if verdict is None:
            continue
        negated = verdict.group(1) is not None
        (wrong if (verdict.group(3) is not None) != negated else right).add(letter)
    if len(right) == 1 and not right & wrong:
        return next(iter(right)), frozenset(wrong)
    return None, frozenset(wrong | right if len(right) > 1 else wrong)


_LOWER_STATEMENT = re.compile(
    r"(?:(?i:\b(?:answer|choice|option)(?!s)\s*(?:is|(?:would|should|will|must)\s+be|[:=])"
    r"|\br[ée]ponse\s*(?:correcte\s*)?(?:est|[:=]))"
    r"|(?:答案|正确答案|选项|答え|正解|정답)\s*(?:是|为|は|은|는|[:=])?)"
    r"\s*(?i:option\s+|choice\s+)?[\"'(\[*]*\s*([a-g])[)\]\"'*]*"
    r"(?=\s*(?:$|[.,;!?。\n]|(?i:because|since|car|parce)\b|です|입니다))"
)


def lowercase_statements(text: str) -> list[tuple[int, int, str]]:
    """Return (start, end, letter in upper case) of each explicit answer statement whose letter
    is written in lower case ("the answer is b", "Answer: (c)", "答案是d"); the letter must end
    the statement, so "the answer is a person" is none. Never raises."""
    return [(m.start(1), m.end(1), m.group(1).upper()) for m in _LOWER_STATEMENT.finditer(text)]
