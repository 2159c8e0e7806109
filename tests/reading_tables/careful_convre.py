"""ConvRe outputs and the reading a careful person gives them (both tasks, plain and CoT).

Forms use ``{x}`` (the letter meant), ``{y}`` (the other letter), ``{t}`` / ``{u}`` (the texts
of the choices ``{x}`` / ``{y}``) and ``{fx}`` (full-width letter); they are expanded for both
letters and both tasks. ``ANSWERED`` read as ``{x}``; ``UNREAD`` as nothing.
"""

from __future__ import annotations

CHOICE_TEXTS: dict[str, tuple[str, str]] = {
    "re2text": (
        "Find an entity that works for anthony fauci.",
        "Find an entity that anthony fauci is employed by.",
    ),
    "text2re": ("(?, hypernym, reptile)", "(reptile, hypernym, ?)"),
}

ANSWERED: list[str] = [
    "{x}",
    " {x}",
    "{x}.",
    " {x}:",
    "({x})",
    "**{x}**",
    "{fx}",
    "Answer: {x}",
    "The answer is {x}",
    "The answer is {x}.",
    "It's {x}.",
    "It is {x}.",
    "{x}, because the relation is read in the converse direction.",
    "{x}. Because the instruction reverses the order.",
    "{x} because the instruction reverses the order.",
    "{x}: {t}",
    "({x}) {t}",
    "{x} - {t}",
    "{x} {t}",
    "{t}",
    "Option {x}",
    "Option {x}.",
    "{x} is correct.",
    "Choice {x} is correct.",
    "I'd go with {x}.",
    "The correct choice is ({x}).",
    "Based on the instruction, the answer is {x}.",
    "A: {u_or_t_a}\nB: {u_or_t_b}\nSo the answer is {x}.",
    "Option A puts the entity first, option B puts it last. Weighing both, the answer is {x}.",
    "The answer is {y}. Wait, no: the answer is {x}.",
    "I'm not sure, but I think the answer is {x}.",
    "{x}\n\nExplanation: the relation is converse.",
    "<pad> {x}</s>",
    "<pad>{x}</s>",
    "<s> {x}</s>",
    "{x}<|im_end|>",
    "<|im_start|>assistant\n{x}<|im_end|>",
    "{x}<|endoftext|>",
    "{x}<|eot_id|>",
    "{x}</s><pad><pad><pad>",
    " {x}\n\nInstruction: (x, boss, y)\nQuestion: (?, boss, mary)\nA: x\nB: y\nAnswer: {y}",
]

UNREAD: list[str] = [
    "I'm not sure whether the answer is {x} or {y}.",
    "The answer is {x} or {y}.",
    "The answer is either {x} or {y}.",
    "Either {x} or {y}.",
    "{x} or {y}",
    "{x}/{y}",
    "Both {x} and {y} are possible.",
    "{x} or {y} is correct.",
    "{x}和{y}都有可能",
    "{x}と{y}",
    "<pad> {x} or {y}</s>",
    "{x}: {u}",
    "({x}) {u}",
    "{x} - {u}",
    "A: {u_or_t_a}\nB: {u_or_t_b}",
    "The answer is {x} or C.",
]

# CoT settings (8 and 11): a JSON-like object with keys thought and answer.
COT_ANSWERED: list[str] = [
    '{{"thought": "y works for x, so", "answer": "{x}"}}',
    "{{'thought': 'the order is reversed', 'answer': '{x}'}}",
    '```json\n{{"thought": "t", "answer": "{x}"}}\n```',
    'Sure: {{"thought": "t", "answer": "({x})"}}',
    '{{"thought": "t", "answer": "{t}"}}',
    '{{"thought": "t", "answer": "{x}", "confident": true}}',
    '{{"thought": "t",\n\n "answer": "{x}"}}',
    '{{"thought": "t", "answer": "{x}"',
    "thought: the relation is converse\nanswer: {x}",
    '<s>{{"thought": "t", "answer": "{x}"}}</s>',
    '{{"thought": "t", "answer": "{x}"}}<|im_end|>',
]
COT_UNREAD: list[str] = [
    '{{"thought": "t", "answer": "{x} or {y}"}}',
    '{{"thought": "t", "answer": "C"}}',
    '{{"thought": "t"}}',
    "I cannot decide.",
    '{{"thought": "t", "answer": "{u_text_with_x}"}}',
]

SINGLE: list[tuple[str, str, bool, str | None]] = [
    ("re2text", "Based on the instruction", False, None),
    ("re2text", "A person that works for anthony fauci.", False, None),
    ("re2text", "All Answers Are Bad", False, None),
    ("re2text", "\nA:\nB:", False, None),
    ("re2text", "the answer is b", False, "B"),  # issue 20: a lowercase letter is read
    ("re2text", "The answer is not A.", False, None),
    ("re2text", "The answer is A and B is wrong.", False, "A"),
    ("re2text", "Both A and B seem plausible, but the answer is B.", False, "B"),
    ("re2text", "Ｄ", False, None),
    ("re2text", "", False, None),
    ("re2text", "<pad></s>", False, None),
    ("text2re", "(reptile, hypernym, ?)", False, "B"),
    ("text2re", "B - (reptile, hypernym, ?)", False, "B"),
    ("text2re", "A (?, hypernym, reptile)", False, "A"),
    ("text2re", "A (reptile, hypernym, ?)", False, None),
]


def cases() -> list[tuple[str, str, bool, str | None]]:
    """Every (task, output, cot, reading), forms expanded for both letters and both tasks."""
    out: list[tuple[str, str, bool, str | None]] = []
    for task, texts in CHOICE_TEXTS.items():
        for x, y in (("A", "B"), ("B", "A")):
            fields = {
                "x": x,
                "y": y,
                "t": texts["AB".index(x)],
                "u": texts["AB".index(y)],
                "fx": chr(ord(x) - ord("A") + ord("Ａ")),
                "u_or_t_a": texts[0],
                "u_or_t_b": texts[1],
                "u_text_with_x": f"{x}: {texts['AB'.index(y)]}",
            }
            out += [(task, form.format(**fields), False, x) for form in ANSWERED]
            out += [(task, form.format(**fields), False, None) for form in UNREAD]
            out += [(task, form.format(**fields), True, x) for form in COT_ANSWERED]
            out += [(task, form.format(**fields), True, None) for form in COT_UNREAD]
    out.extend(SINGLE)
    return out
