"""Show a ConvRe item's two answers in the other order (for ``--permute``).

A ConvRe prompt ends ``Q + "\\nA: " + A + "\\nB: " + B + "\\nTo convert the question into a
semantically equivalent " + GOAL + ...`` (the official ``utils/data_processor.py``); reordering
swaps the texts behind A and B in that block (the few-shot examples before it are left as they
are) and the gold letter follows its text.
"""

from __future__ import annotations

import dataclasses

from relreason.benchmarks.mcr.reorder import check_order
from relreason.benchmarks.turns import rewrite_question
from relreason.types import EvalItem

_AFTER = "\nTo convert the question into a semantically equivalent "


def _block(texts: tuple[str, ...]) -> str:
    return "\nA: " + texts[0] + "\nB: " + texts[1] + _AFTER


def reorder_ab(item: EvalItem, order: tuple[int, ...]) -> EvalItem:
    """Return the ConvRe ``item`` with its two answers shown in ``order`` ((0, 1) or (1, 0)).

    Raises ``ValueError`` for another order or a prompt without the item's A/B block.
    """
    check_order(item, order)
    if len(item.choices) != 2:
        raise ValueError(f"item {item.item_id}: a ConvRe item has two answers")
    old = _block(item.choice_texts)
    at = item.prompt.rfind(old)
    if at < 0:
        raise ValueError(f"item {item.item_id}: the prompt does not hold its A/B answers")
    texts = tuple(item.choice_texts[i] for i in order)
    new = _block(texts)
    prompt = item.prompt[:at] + new + item.prompt[at + len(old) :]
    gold = item.choices[order.index(item.choices.index(item.gold))]
    turns = rewrite_question(item.turns, old, new)
    return dataclasses.replace(item, prompt=prompt, gold=gold, choice_texts=texts, turns=turns)
