"""The MCR paper's clean-up step: a second model restates the choice when the letter rule finds
no letter or several.

Official code (zhaojinm/Multilingual_Composition_Relation_benchmark @ 23aaee66), ``main.py``,
``main()``: when ``answer_cleansing`` returns zero or several letters, it builds

    "Following is a pair of a question and an answer. Only output the choice option solely
    based on the provided answer. Be concise. Output nothing if the questions is not
    answered\\n\\n" + x + " " + out_raw + "\\n\\nThe choice made by the answer is"

(``x = "Q: " + question + "\\n" + "A:"``, the question with its answer choices, no method
suffix and no exemplars), sends it to ``gpt-4o-mini-2024-07-18`` (``util.py``,
``decoder_for_gpt3(..., cleansing=True)``: one user message, temperature 0, reply stripped),
reads the reply with ``answer_cleansing`` again (so for native few-shot only after its last
``"A:"``), and counts the item correct when the first letter of that reading equals the gold
letter (``y[0] == out_cleaned[0]``).
"""

from __future__ import annotations

import dataclasses
import re

from relreason.scoring.common import status_for
from relreason.types import (
    EvalItem,
    Extraction,
    FollowUp,
    GenerationParams,
    GenerationRequest,
    Response,
    Task,
)

__all__ = [
    "CLEANUP_HEADER",
    "CLEANUP_MODEL",
    "CLEANUP_TAIL",
    "cleanup_prompt",
    "cleanup_request",
    "needs_cleanup",
    "question_block_of",
    "read_cleanup_reply",
    "score_cleanup",
]

CLEANUP_HEADER = (
    "Following is a pair of a question and an answer. Only output the choice option solely "
    "based on the provided answer. Be concise. Output nothing if the questions is not "
    "answered\n\n"
)
"""The official clean-up prompt up to the question (typo "questions is" included)."""

CLEANUP_TAIL = "\n\nThe choice made by the answer is"
"""The official clean-up prompt after the model's raw output."""

CLEANUP_MODEL = "openai:gpt-4o-mini-2024-07-18"
"""The clean-up model of the official code (util.py, ``decoder_for_gpt3``, ``cleansing=True``)."""

_OFFICIAL_LETTERS = re.compile(r"A|B|C|D|E|F|G")
_ZS_SUFFIX = " Among options, the answer is"
_ZSC_SUFFIX = " Let's think step by step."


def needs_cleanup(extraction: Extraction) -> bool:
    """Whether a paper-mode extraction is one the official code sent to its clean-up model."""
    return extraction.method == "paper_rule_cleanup"


def cleanup_prompt(question_block: str, raw_output: str) -> str:
    """Return the official clean-up prompt for ``x`` (``"Q: ... Answer choices: ... \\nA:"``)
    and the model's raw output, byte for byte as ``main.py`` builds it. Never raises."""
    return CLEANUP_HEADER + question_block + " " + raw_output + CLEANUP_TAIL


def question_block_of(item: EvalItem) -> str:
    """Return the bare ``x`` of an MCR item (question and answer choices, ending ``"\\nA:"``).

    The item's prompt is exemplars + x + method suffix; the suffix is dropped and x is taken
    from the last ``"Q: "`` before its answer choices. Raises ValueError when the prompt does
    not end with the item's answer choices (not an MCR prompt).
    """
    prompt = item.prompt.removesuffix(_ZS_SUFFIX).removesuffix(_ZSC_SUFFIX)
    choices = "".join(
        f"{letter}) {text} " for letter, text in zip(item.choices, item.choice_texts, strict=True)
    )
    tail = " Answer choices: " + choices + "\nA:"
    if not prompt.endswith(tail):
        raise ValueError(f"MCR item {item.item_id}: prompt does not end with its answer choices")
    start = prompt.rfind("Q: ", 0, len(prompt) - len(tail))
    if start < 0:
        raise ValueError(f"MCR item {item.item_id}: no 'Q: ' before the answer choices")
    return prompt[start:]


def cleanup_request(item: EvalItem, raw_output: str) -> GenerationRequest:
    """Return the clean-up request for one item: the official prompt, temperature 0.

    The official call set no length limit; 32 new tokens (the official ``max_length_direct``)
    is ample for a restated choice. Raises ValueError like :func:`question_block_of`.
    """
    prompt = cleanup_prompt(question_block_of(item), raw_output)
    return GenerationRequest(prompt, GenerationParams(max_new_tokens=32, temperature=0.0))


def read_cleanup_reply(reply: str, *, few_shot: bool) -> tuple[str | None, list[str]]:
    """Return (answer or None, letters found) for a clean-up reply, by the official rule.

    The reply is stripped, then read with ``answer_cleansing`` (for native few-shot only after
    its last ``"A:"``); the answer is the first letter found, even when there are several,
    as ``out_cleaned[0]`` in ``main.py``. Never raises.
    """
    text = reply.strip()
    if few_shot:
        text = text.split("A:")[-1]
    letters = _OFFICIAL_LETTERS.findall(text)  # the rule of scoring.mcr.paper_letters
    return (letters[0] if letters else None), letters


def score_cleanup(
    item: EvalItem, first: Extraction, reply: Response, *, few_shot: bool
) -> Extraction:
    """Return the final paper-mode extraction after the clean-up model answered.

    ``first`` is the paper-mode extraction that needed clean-up; an extraction that did not
    is returned unchanged. A failed clean-up request keeps ``first`` (unread) with the error
    noted. Otherwise the reply is read by :func:`read_cleanup_reply`: method
    ``paper_rule_cleaned``, the letters found in the detail. Never raises.
    """
    if not needs_cleanup(first):
        return first
    if reply.error is not None or reply.text is None:
        note = f"clean-up request failed: {reply.error or 'no text'}"
        detail = f"{first.detail}; {note}" if first.detail else note
        return Extraction(first.answer, first.status, first.method, detail)
    answer, letters = read_cleanup_reply(reply.text, few_shot=few_shot)
    shown = ", ".join(letters[:12]) + (", ..." if len(letters) > 12 else "")
    detail = f"clean-up reply {reply.text.strip()[:80]!r}: letters_found={len(letters)}"
    detail += f" ({shown})" if letters else ""
    if first.detail:
        detail = f"{first.detail}; {detail}"
    return Extraction(
        answer, status_for(answer, item.gold, empty=False), "paper_rule_cleaned", detail
    )


def with_cleanup(task: Task, model: str | None) -> Task:
    """``task`` with the paper's clean-up model asked where its paper reading is left open
    (``--cleanup-model``; recorded in the description); ``task`` itself when ``model`` is None."""
    if model is None:
        return task
    few_shot = task.description.get("method") == "fs"

    def read(item: EvalItem, first: Extraction, reply: Response) -> Extraction:
        return score_cleanup(item, first, reply, few_shot=few_shot)

    follow_up = FollowUp(
        model=model, reader="paper", needs=needs_cleanup, request=cleanup_request, read=read
    )
    description = {**task.description, "cleanup_model": model}
    return dataclasses.replace(task, follow_up=follow_up, description=description)
