"""MCR outputs and the reading a careful person gives them, in the five languages.

Each form is written once per language with ``{x}`` (the letter meant), ``{t}`` (its option
text), ``{y}`` (another letter) and ``{fx}`` (the letter in full width), then expanded over
several letters. ``ANSWERED`` forms read as ``{x}``; ``UNREAD`` forms (hedges, lists of
several candidates, no answer) read as nothing. ``SINGLE`` are one-off cases with their reading.
"""

from __future__ import annotations

LETTERS = ("A", "B", "C", "D")

OPTIONS: dict[str, tuple[str, str, str, str]] = {
    "en": ("East", "West", "Northeast", "Uncertain"),
    "zh": ("东方", "西方", "东北方", "不确定"),
    "fr": ("Est", "Ouest", "Nord-est", "Incertain"),
    "ja": ("東", "西", "北東", "不明"),
    "ko": ("동쪽", "서쪽", "북동쪽", "불확실"),
}

# Forms every language shares: bare letters, labels, special tokens left in by other tools.
_COMMON_ANSWERED = [
    "{x}",
    " {x}",
    "{x}.",
    "({x})",
    "{x})",
    "**{x}**",
    "{fx}",
    "（{fx}）",
    "{x}) {t}",
    "({x}) {t}",
    "{t}",
    "<pad> {x}</s>",
    "<s> {x}</s>",
    "{x}<|im_end|>",
    "<|im_start|>assistant\n{x}<|im_end|>",
    "{x}<|endoftext|>",
    "{x}<|eot_id|>",
    "<|start_header_id|>assistant<|end_header_id|>\n\n{x}<|eot_id|>",
    "{x}</s><pad><pad>",
    "{x}) {t}\nQ: next question",
]
_COMMON_UNREAD = [
    "{x}/{y}",
    "({x}) or ({y})",
    "<pad> {x} or {y}</s>",
]

ANSWERED: dict[str, list[str]] = {
    "en": [
        *_COMMON_ANSWERED,
        "Answer: {x}",
        "Answer: ({x})",
        "The answer is {x}.",
        "The answer is ({x}) {t}.",
        "The correct answer is {x} because the hospital is east of the house.",
        "It's {x}.",
        "It is {x}.",
        "{x}, because the hospital is east of the house.",
        "{x} - {t}",
        "{x} {t}",
        "Option {x}",
        "Option {x}.",
        "{x} is correct.",
        "Option {x} is correct.",
        "I'd go with {x}.",
        "I would choose {x}.",
        "Therefore, among options, the answer is {x}.",
        "The answer is {t}.",
        "Answer: {x}\nExplanation: the relation composes.",
        "{x}\nBecause Location A is north of Location B.",
        "Option A says east and option B says west. Weighing both, the answer is {x}.",
        "Let's think. A is the hospital, B the house. So the answer is {x}",
        "The answer is A. Wait, no. The answer is {x}.",
        "I'm not sure, but I think the answer is {x}.",
        "Based on the information, {x}.",
    ],
    "zh": [
        *_COMMON_ANSWERED,
        "答案是{x}",
        "答案：{x}",
        "答案：{fx}",
        "正确答案是{x}。",
        "所以选{x}。",
        "选{x}",
        "选项{x}正确",
        "{x}是正确的。",
        "答案是{t}。",
        "答案为（{x}）{t}",
        "答案是{x}，因为医院在东边。",
        "<s>答案是{x}</s>",
        "分析：A是医院，B是房子。所以答案是{x}。",
    ],
    "fr": [
        *_COMMON_ANSWERED,
        "La réponse est {x}.",
        "Réponse : {x}",
        "Réponse : ({x}) {t}",
        "La bonne réponse est {x}.",
        "La réponse {x} est correcte.",
        "{x} est la bonne réponse.",
        "La réponse est {t}.",
        "{x}, car l'hôpital est à l'est.",
        "La réponse est {x}<|endoftext|>",
    ],
    "ja": [
        *_COMMON_ANSWERED,
        "答えは{x}です。",
        "答え：{x}",
        "正解は {x}",
        "{x}です",
        "{x}です。",
        "選択肢{x}が正しいです。",
        "{x}が正解です。",
        "{t}です。",
        "答えは{t}です。",
        "答えは{fx}です。",
        "選択肢{fx}が正しいです。",
    ],
    "ko": [
        *_COMMON_ANSWERED,
        "정답은 {x}입니다",
        "정답은 {x}입니다.",
        "답: {x}",
        "{x}입니다",
        "{x}가 정답입니다.",
        "{t}입니다",
        "정답은 {t}입니다.",
        "정답은 {x}입니다<|eot_id|>",
        "정답: {fx}",
    ],
}

UNREAD: dict[str, list[str]] = {
    "en": [
        *_COMMON_UNREAD,
        "I'm not sure whether the answer is {x} or {y}.",
        "The answer is {x} or {y}.",
        "The answer is either {x} or {y}.",
        "Either {x} or {y}.",
        "{x} or {y}",
        "Both {x} and {y} are possible.",
        "It could be {x} or {y}.",
        "{x} or {y} is correct.",
        "{x}, {y}",
    ],
    "zh": [
        *_COMMON_UNREAD,
        "{x}和{y}都有可能",
        "{x}或{y}",
        "答案是{x}或{y}",
        "答案是{x}或者{y}。",
        "{x}、{y}都对",
    ],
    "fr": [
        *_COMMON_UNREAD,
        "{x} ou {y}",
        "La réponse est {x} ou {y}.",
        "{x} et {y} sont possibles.",
    ],
    "ja": [
        *_COMMON_UNREAD,
        "{x}と{y}",
        "{x}か{y}",
        "答えは{x}か{y}です。",
        "{x}と{y}の両方が考えられます。",
    ],
    "ko": [
        *_COMMON_UNREAD,
        "{x} 또는 {y}",
        "{x}나 {y}",
        "정답은 {x} 또는 {y}입니다",
        "{x}와 {y} 모두 가능합니다.",
    ],
}

# (language, output, reading) one-offs; None = no answer a careful person would accept.
SINGLE: list[tuple[str, str, str | None]] = [
    ("en", "Based on the question", None),
    ("en", "Location A is north of Location B, and C is south.", None),
    ("en", "A) East B) West C) Northeast D) Uncertain", None),
    ("en", "Answer choices: A) East B) West", None),
    ("en", "I do not know.", None),
    ("en", "The answer is F.", None),
    ("en", "The answer is g", None),
    ("en", "C) West", None),
    ("en", "The answer is not A.", None),
    ("en", "The answer is A and B is wrong.", "A"),
    ("en", "Both A and B seem plausible, but the answer is B.", "B"),
    ("en", "It is either A or B, but I'd go with B.", "B"),
    ("en", "", None),
    ("en", "<pad></s>", None),
    ("en", "Ｄ", "D"),
    ("en", "northeast", "C"),
    ("en", "  Northeast. ", "C"),
    ("zh", "回答：不知道", None),
    ("zh", "A) 东方 B) 西方 C) 东北方 D) 不确定", None),
    ("zh", "答案是东北方", "C"),
    ("zh", "东北方。", "C"),
    ("ja", "回答の選択肢: A) 東 B) 西 C) 北東 D) 不明", None),
    ("ja", "北東", "C"),
    ("ja", "答えはＣです。", "C"),
    ("ko", "답 선택지: A) 동쪽 B) 서쪽 C) 북동쪽 D) 불확실", None),
    ("ko", "북동쪽", "C"),
    ("fr", "Choix de réponses : A) Est B) Ouest C) Nord-est D) Incertain", None),
    ("fr", "Nord-est", "C"),
    ("fr", "Je ne sais pas.", None),
]


def cases() -> list[tuple[str, str, str | None]]:
    """Every (language, output, reading) of the table, forms expanded over letters A, C, D."""
    out: list[tuple[str, str, str | None]] = []
    for language, texts in OPTIONS.items():
        for x, y in (("A", "B"), ("C", "D"), ("D", "A")):
            t = texts[LETTERS.index(x)]
            fx = chr(ord(x) - ord("A") + ord("Ａ"))
            for form in ANSWERED[language]:
                out.append((language, form.format(x=x, y=y, t=t, fx=fx), x))
            for form in UNREAD[language]:
                out.append((language, form.format(x=x, y=y, t=t, fx=fx), None))
    out.extend(SINGLE)
    return out
