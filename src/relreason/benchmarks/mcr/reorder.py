"""Show an MCR-format item's options in another order (for ``--permute``).

The item's prompt is exemplars + ``x`` + method suffix, with ``x = "Q: " + question + " Answer
choices: " + "".join(L + ") " + option + " ") + "\\nA:"`` (the official ``main.py``). Reordering
writes the answer choices of ``x`` again with the options in the new order, exactly as the
prompt would be built from a file listing them in that order; the letters stay A, B, ... and
the gold letter follows its option. Exemplars (before ``x``) are left as they are.
"""

from __future__ import annotations

import dataclasses

from relreason.benchmarks.turns import rewrite_question
from relreason.types import EvalItem


def _choices_text(letters: tuple[str, ...], texts: tuple[str, ...]) -> str:
    return (
        " Answer choices: "
        + "".join(f"{letter}) {text} " for letter, text in zip(letters, texts, strict=True))
        + "\nA:"
    )


def check_order(item: EvalItem, order: tuple[int, ...]) -> None:
    """Raise ``ValueError`` unless ``order`` is a permutation of the item's option indices."""
    if sorted(order) != list(range(len(item.choices))):
        raise ValueError(f"item {item.item_id}: {order} is not an order of its options")


def reorder_lettered(item: EvalItem, order: tuple[int, ...]) -> EvalItem:
    """Return the MCR-format ``item`` with its options shown in ``order``.

    Raises ``ValueError`` when ``order`` is not a permutation of the options or the prompt does
    not hold the item's answer choices in MCR's form.
    """
    check_order(item, order)
    old = _choices_text(item.choices, item.choice_texts)
    at = item.prompt.rfind(old)
    if at < 0:
        raise ValueError(f"item {item.item_id}: the prompt does not hold its answer choices")
    texts = tuple(item.choice_texts[i] for i in order)
    new = _choices_text(item.choices, texts)
    prompt = item.prompt[:at] + new + item.prompt[at + len(old) :]
    gold = item.choices[order.index(item.choices.index(item.gold))]
    turns = rewrite_question(item.turns, old, new)
    return dataclasses.replace(item, prompt=prompt, gold=gold, choice_texts=texts, turns=turns)
