"""A few-shot prompt as a conversation (``EvalItem.turns``, sent to chat models with
``--fewshot-as-multiturn``): the text before the exemplars opens the first user turn, each
exemplar is a user turn (its question) and an assistant turn (its answer), the question last.
The flat prompt stays the papers' text; this is another view of it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from relreason.types import Turn

Shot = tuple[str, str]
"""One exemplar: the question as the prompt writes it, and the answer after it."""

_QA = re.compile(r"Q:(.*?\nA:)(.*?)(?=\n+Q:|\s*$)", re.S)


def as_turns(preamble: str, shots: Sequence[Shot], question: str) -> tuple[Turn, ...]:
    """The conversation of a prompt ``preamble + exemplars + question`` (empty without
    exemplars, or with one whose answer could not be told apart: the prompt is then sent as
    it is)."""
    if not shots or any(not answer.strip() for _, answer in shots):
        return ()
    turns: list[Turn] = []
    for n, (asked, answer) in enumerate(shots):
        opening = preamble.strip() + "\n\n" if n == 0 and preamble.strip() else ""
        turns += [("user", opening + asked.strip()), ("assistant", answer.strip())]
    return (*turns, ("user", question.strip()))


def qa_shots(block: str) -> tuple[Shot, ...]:
    """The exemplars of an MCR-style block ``"\\nQ:...\\nA:answer\\nQ:..."``: each question
    up to its ``A:``, and its answer (empty when the block is not in that form)."""
    return tuple(("Q:" + asked, answer) for asked, answer in _QA.findall(block))


def split_at(example: str, marker: str) -> Shot:
    """An exemplar cut after its last ``marker`` (ConvRe's ``"\\nAnswer:"``): the question up
    to and with the marker, and the answer after it (no answer without the marker)."""
    cut = example.rfind(marker)
    if cut < 0:
        return example, ""
    return example[: cut + len(marker)], example[cut + len(marker) :]


def rewrite_question(turns: tuple[Turn, ...], old: str, new: str) -> tuple[Turn, ...]:
    """``turns`` with the last occurrence of ``old`` in the question (the last turn) replaced
    by ``new``, as an option reorder rewrites the flat prompt (no turns where it is missing)."""
    if not turns:
        return turns
    role, text = turns[-1]
    at = text.rfind(old)
    if at < 0:
        return ()
    return (*turns[:-1], (role, text[:at] + new + text[at + len(old) :]))
