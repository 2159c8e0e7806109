"""The items every engine answers in the agreement tests, and how two engines' answers compare.

``tests/test_engine_agreement.py`` (hf, gguf, the llama.cpp server) and
``tests/test_vllm_backend.py`` (vLLM against hf, in vLLM's own venv) ask the same 8 items: 4
ConvRe re2text setting 1 items (letters A/B) and 4 bundled compose English zero-shot items
(letters A-D), each as greedy generation of the task's own length and as the log-likelihood of
each letter. ``perf/bench_agreement.py`` measures the same comparisons on more items.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from relreason.benchmarks import get
from relreason.types import ChoiceRequest, GenerationParams, GenerationRequest, Response

N_PER_TASK = 4
STEP = 37
"""Every 37th item from the start, so the items are not all of one relation or domain."""


def requests(
    data: Path, n: int = N_PER_TASK
) -> tuple[list[GenerationRequest], list[ChoiceRequest]]:
    """Greedy generation requests and letter-scoring requests for the same items."""
    convre, compose = get("convre"), get("compose")
    tasks = [
        convre.build_task(convre.params(task="re2text", setting=1, subset=True), data),
        compose.build_task(compose.params(language="en", method="zs"), data),
    ]
    generation: list[GenerationRequest] = []
    choices: list[ChoiceRequest] = []
    for task in tasks:
        params = GenerationParams(max_new_tokens=task.max_new_tokens, top_logprobs=0)
        for item in task.items[::STEP][:n]:
            generation.append(GenerationRequest(item.prompt, params))
            choices.append(ChoiceRequest(item.prompt, task.continuations(item)))
    return generation, choices


def chosen(response: Response) -> str | None:
    """The letter with the highest log-likelihood (None when the response has no scores)."""
    scores = response.choice_logprobs
    return max(scores, key=scores.__getitem__) if scores else None


def margin(response: Response) -> float:
    """How far the best letter is ahead of the second (0 without two scores)."""
    values = sorted((response.choice_logprobs or {}).values(), reverse=True)
    return values[0] - values[1] if len(values) > 1 else 0.0


def texts(responses: Sequence[Response]) -> list[str | None]:
    """Each response's text (None for a failed one)."""
    return [r.text if r.error is None else None for r in responses]
