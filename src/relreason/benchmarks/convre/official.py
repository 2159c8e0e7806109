"""The official ConvRe reading rules, one named reader per model family, quirks included.

Each rule reproduces an evaluator of the ConvRe repository (github.com/3B-Group/ConvRe) at the
commit relreason pins (``afb9a21fd2e4216c85faf3934abf7004bbe6d48d``), file
``utils/llms_evaluator.py``. The official evaluators return only True/False (or raise); here
each rule returns the letter it accepts, or None where the official code does not accept the
output. With ``--mode strict`` the official code raises on such an output (for a person to look
at); with ``--mode auto`` it counts it wrong. Both cases are an unread answer here, and the
detail says which exception the strict mode would raise.

Where the official code calls ``eval()`` on the output (chain-of-thought settings), the output
is read with ``ast.literal_eval``: on every text that ``eval()`` accepts and that is a literal
(no names, calls, operators or comprehensions), it gives the same value; on anything else it
gives no answer, as ``eval()`` would on every such model output seen in practice (``true``,
``null`` and bare words are undefined names there too). Model text is never evaluated.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from relreason.scoring.common import pre_score, status_for
from relreason.types import EvalItem, Extraction, Response

__all__ = [
    "FAMILIES",
    "OFFICIAL_COMMIT",
    "OfficialRead",
    "extract_official",
    "infer_family",
    "read_official",
    "score_convre_official",
]

OFFICIAL_COMMIT = "afb9a21fd2e4216c85faf3934abf7004bbe6d48d"
"""The ConvRe commit whose ``utils/llms_evaluator.py`` these rules reproduce."""

TopLogprobs = Sequence[Mapping[str, float]]


class OfficialRead(NamedTuple):
    """What an official rule made of one output.

    ``letter``: "A", "B" or None (not accepted). ``method``: ``official:<family>``,
    ``official:gpt-text/logprob`` or ``official:cot``. ``detail``: why nothing was accepted
    (the exception strict mode raises), or None.
    """

    letter: str | None
    method: str
    detail: str | None = None


def _refused(method: str, why: str, raises: str = "AssertionError") -> OfficialRead:
    """An output the official rule does not accept: auto mode counts it wrong."""
    return OfficialRead(None, method, f"{why}; strict mode raises {raises}, auto counts it wrong")


def read_gpt_chat(prediction: str) -> OfficialRead:
    """``GPTChatEvaluator.evaluate`` (utils/llms_evaluator.py).

    Accepted: exactly ``"A"``/``"B"``; or the output starts with ``"A:"``/``"B:"`` and does not
    contain both ``"A:"`` and ``"B:"``; or starts with ``"A."``/``"B."`` and does not contain
    both ``"A."`` and ``"B."``. The letter is the first character.
    """
    method = "official:gpt-chat"
    condition1 = prediction in ("A", "B")
    condition2 = prediction[:2] in ("A:", "B:") and not ("A:" in prediction and "B:" in prediction)
    condition3 = prediction[:2] in ("A.", "B.") and not ("A." in prediction and "B." in prediction)
    if not (condition1 or condition2 or condition3):
        return _refused(method, "not 'A'/'B', nor 'A:'/'A.' without both choices echoed")
    return OfficialRead(prediction[0], method)


def read_gpt_text(prediction: str, log_probs: TopLogprobs | None) -> OfficialRead:
    """``GPTTextEvaluator.evaluate`` (utils/llms_evaluator.py).

    Accepted: exactly ``" A"``/``" B"``; or starts with ``" A:"``/``" B:"`` without both
    ``"A:"`` and ``"B:"`` in it; or starts with ``" A."``/``" B."`` without both ``"A."`` and
    ``"B."``; the letter is the second character. Otherwise the first generated token's top
    alternatives decide: the tokens ``" A"`` and ``" B"`` exactly (a missing one counts
    -1000, so a present value below -1000 loses to the missing one); equal values or neither
    present give no answer. With no log-probs at all the official code raises TypeError (it
    indexes ``None``), in both modes.
    """
    method = "official:gpt-text"
    condition1 = prediction in (" A", " B")
    condition2 = prediction[:3] in (" A:", " B:") and not (
        "A:" in prediction and "B:" in prediction
    )
    condition3 = prediction[:3] in (" A.", " B.") and not (
        "A." in prediction and "B." in prediction
    )
    if condition1 or condition2 or condition3:
        return OfficialRead(prediction[1], method)
    method = "official:gpt-text/logprob"
    if not log_probs:
        return OfficialRead(
            None,
            method,
            "text not ' A'/' B' and no first-token log-probs: the official code raises "
            "TypeError in both modes",
        )
    probs = log_probs[0]
    if not (" A" in probs or " B" in probs):
        return _refused(method, "neither ' A' nor ' B' among the first token's alternatives")
    prob_a = probs.get(" A", -1000)  # official: probs[' A'] if ' A' in probs else -1000
    prob_b = probs.get(" B", -1000)
    if prob_a == prob_b:
        return _refused(method, f"' A' and ' B' tie at {prob_a}", "ValueError")
    letter = "A" if prob_a > prob_b else "B"
    return OfficialRead(letter, method, f"first-token log-probs ' A'={prob_a}, ' B'={prob_b}")


def read_claude(prediction: str) -> OfficialRead:
    """``ClaudeEvaluator.evaluate`` (utils/llms_evaluator.py).

    The text before the first blank line (``split('\\n\\n')[0]``) must be exactly ``" A"`` or
    ``" B"`` (the official prompt ended with ``"Assistant: Answer:"``, so completions began
    with a space); the letter is its second character.
    """
    method = "official:claude"
    head = prediction.split("\n\n")[0]
    if head not in (" A", " B"):
        return _refused(method, "text before the first blank line is not ' A' or ' B'")
    return OfficialRead(head[1], method)


def read_flan_t5(prediction: str) -> OfficialRead:
    """``FlanT5Evaluator.evaluate`` (utils/llms_evaluator.py).

    The output (decoded with the special tokens kept) must be exactly ``"<pad> A</s>"`` or
    ``"<pad> B</s>"``; the letter is character 6.
    """
    method = "official:flan-t5"
    if prediction not in ("<pad> A</s>", "<pad> B</s>"):
        return _refused(method, "not exactly '<pad> A</s>' or '<pad> B</s>'")
    return OfficialRead(prediction[6], method)


def read_llama2(prediction: str) -> OfficialRead:
    """``Llama2Evaluator.evaluate`` (utils/llms_evaluator.py).

    The first line (``split('\\n')[0]``) must start with ``" A"`` or ``" B"`` (anything may
    follow: ``" Apple"`` reads as A, ``" Based on"`` as B); the letter is its second character.
    """
    method = "official:llama2"
    line = prediction.split("\n")[0]
    if line[:2] not in (" A", " B"):
        return _refused(method, "first line does not start with ' A' or ' B'")
    return OfficialRead(line[1], method)


def read_qwen(prediction: str) -> OfficialRead:
    """``QwenEvaluator.evaluate`` (utils/llms_evaluator.py).

    If the lower-cased output contains ``"the correct choice is a"`` the answer is A (so "the
    correct choice is an ..." too), else if it contains ``"the correct choice is b"``, B.
    Otherwise the first character must be ``"A"`` or ``"B"`` and is the answer ("As ..." reads
    as A, "Based on ..." as B). An empty output makes the official code raise IndexError.
    """
    method = "official:qwen"
    lowered = prediction.lower()
    if "the correct choice is a" in lowered:
        prediction = "A"
    elif "the correct choice is b" in lowered:
        prediction = "B"
    if not prediction:
        return OfficialRead(
            None, method, "empty output: the official code raises IndexError in both modes"
        )
    if prediction[0] not in ("A", "B"):
        return _refused(method, "first character is not 'A' or 'B'")
    return OfficialRead(prediction[0], method)


def read_internlm(prediction: str) -> OfficialRead:
    """``InternlmEvaluator.evaluate`` (utils/llms_evaluator.py): exactly ``"A"`` or ``"B"``."""
    method = "official:internlm"
    if prediction not in ("A", "B"):
        return _refused(method, "not exactly 'A' or 'B'")
    return OfficialRead(prediction, method)


def read_cot(prediction: str) -> OfficialRead:
    """``BaseEvaluator.evaluate_cot`` (utils/llms_evaluator.py), the rule for settings 8 and 11
    whatever the family (``evaluate.py`` itself never calls it; it is the repository's CoT rule).

    Official: ``eval(prediction.split('\\n\\n')[0])['answer']`` must be ``'A'`` or ``'B'``.
    Here the text before the first blank line is parsed with ``ast.literal_eval`` (literal
    only; see the module docstring), then indexed with ``'answer'`` as the official code does.
    """
    method = "official:cot"
    head = prediction.split("\n\n")[0]
    ok, value = literal_value(head)
    if not ok:
        return _refused(method, f"not a Python literal: {value}", "(the eval error)")
    try:
        answer = value["answer"]
    except (KeyError, TypeError, IndexError) as error:
        return _refused(method, f"no 'answer' ({type(error).__name__})", type(error).__name__)
    if not (isinstance(answer, str) and answer in ("A", "B")):
        return _refused(method, f"answer {answer!r} is not 'A' or 'B'")
    return OfficialRead(answer, method)


def literal_value(source: str) -> tuple[bool, Any]:
    """Return (True, value) when ``source`` is a Python literal, else (False, the error name).

    ``ast.literal_eval`` parses with the same grammar as ``eval()`` and, like ``eval()`` on a
    string, skips leading spaces and tabs, so every literal gives the value ``eval()`` would.
    Never raises; never executes anything.
    """
    try:
        return True, ast.literal_eval(source)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as error:
        return False, type(error).__name__


FAMILIES: dict[str, Callable[[str, TopLogprobs | None], OfficialRead]] = {
    "gpt-chat": lambda text, _: read_gpt_chat(text),
    "gpt-text": read_gpt_text,
    "claude": lambda text, _: read_claude(text),
    "llama2": lambda text, _: read_llama2(text),
    "qwen": lambda text, _: read_qwen(text),
    "internlm": lambda text, _: read_internlm(text),
    "flan-t5": lambda text, _: read_flan_t5(text),
}
"""Family name (``--model_family`` of the official ``evaluate.py``) -> its reading rule."""


def check_family(family: str) -> str:
    """Return ``family`` when it names an official rule; raise ValueError listing them."""
    if family not in FAMILIES:
        raise ValueError(f"unknown ConvRe family {family!r}; valid: {', '.join(FAMILIES)}")
    return family


def extract_official(
    family: str, output: str, *, cot: bool, first_token_logprobs: TopLogprobs | None = None
) -> OfficialRead:
    """Return what the official rule of ``family`` reads from ``output`` (see module docstring).

    ``cot`` (settings 8 and 11) selects ``evaluate_cot`` whatever the family;
    ``first_token_logprobs`` is the per-token top alternatives (only ``gpt-text`` uses it).
    Raises ValueError for an unknown family; never raises on any output.
    """
    rule = FAMILIES[check_family(family)]
    if cot:
        return read_cot(output)
    return rule(output, first_token_logprobs)


def read_official(
    family: str,
    output: str,
    item: EvalItem,
    *,
    cot: bool,
    first_token_logprobs: TopLogprobs | None = None,
) -> Extraction:
    """Return the scored :class:`Extraction` of one output under the official rule of ``family``.

    Status ``correct``/``wrong`` when the rule accepts a letter, else ``unparseable`` (or
    ``no_answer`` for an empty output). Raises ValueError for an unknown family.
    """
    read = extract_official(family, output, cot=cot, first_token_logprobs=first_token_logprobs)
    status = status_for(read.letter, item.gold, empty=not output.strip())
    return Extraction(read.letter, status, read.method, read.detail)


def score_convre_official(
    item: EvalItem, response: Response, *, family: str, cot: bool
) -> Extraction:
    """A ConvRe scorer under the official rule of ``family`` (bind ``family`` and ``cot``).

    A failed request is ``failed``; choice log-likelihoods are read by argmax (the official
    code has no such mode); absent text is ``no_answer``. Otherwise :func:`read_official`
    reads the text with ``response.top_logprobs``. Raises ValueError for an unknown family.
    """
    check_family(family)
    if response.error is not None or response.choice_logprobs is not None:
        done = pre_score(item, response)
        if done is not None:
            return done
    if response.text is None:
        return Extraction(None, "no_answer", "none", detail="no output text")
    return read_official(
        family, response.text, item, cot=cot, first_token_logprobs=response.top_logprobs
    )


_NAME_FAMILIES: tuple[tuple[str, str], ...] = (
    ("flan-t5", "flan-t5"),
    ("llama-2", "llama2"),
    ("llama2", "llama2"),
    ("qwen", "qwen"),
    ("internlm", "internlm"),
    ("claude", "claude"),
)
_GPT_TEXT_NAMES = ("text-ada", "text-babbage", "text-curie", "text-davinci", "davinci-002")


def infer_family(model_spec: str, *, api: str = "chat") -> str | None:
    """Return the official ConvRe family a model spec clearly belongs to, or None.

    By model name first (the last path part, lower-cased, as the official
    ``LanguageModelInterface`` does): ``flan-t5`` -> flan-t5, ``llama-2``/``llama2`` -> llama2,
    ``qwen`` -> qwen, ``internlm`` -> internlm, ``claude`` -> claude, OpenAI completion models
    (``text-davinci-003`` ...) -> gpt-text. Then by backend: ``anthropic:`` -> claude,
    ``openai:`` -> gpt-chat, or gpt-text when ``api`` is ``"completions"``. None for anything
    else (``smollm2``, other ``hf:`` models, baselines). Never raises.
    """
    backend, _, name = model_spec.strip().partition(":")
    backend = backend.lower()
    if not name:
        backend, name = "", backend
    base = name.rstrip("/").split("/")[-1].lower()
    for needle, family in _NAME_FAMILIES:
        if needle in base:
            return family
    if base.startswith(_GPT_TEXT_NAMES):
        return "gpt-text"
    if backend == "anthropic":
        return "claude"
    if backend == "openai":
        return "gpt-text" if api == "completions" else "gpt-chat"
    return None
