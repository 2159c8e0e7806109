"""The Anthropic backend, against a scripted Messages-API server on 127.0.0.1.

No Claude model can run here, so these tests use ``servers.anthropic_stub.ApiStub``: a fake of
the Messages API, but a real HTTP server on a real socket, called through the real
``anthropic`` SDK. It answers text computed from the request, and 429/529/500/401, truncated
bodies or dropped connections when scripted to.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any

import pytest

from relreason.errors import UsageError
from relreason.models.anthropic_backend import AnthropicBackend
from relreason.models.base import TransientError
from relreason.models.errors_map import APIRequestError
from relreason.types import ChoiceRequest, GenerationParams, GenerationRequest, Response
from servers.anthropic_stub import ApiStub, Fault, messages_reply

PLANTED_KEY = "sk-ant-planted-9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a"

pytestmark = pytest.mark.server


def run(method: Callable[[Sequence[Any]], Awaitable[list[Response]]], requests: list[Any]) -> Any:
    """Call a backend method in a fresh event loop, closing the backend's client at the end."""
    backend = method.__self__  # type: ignore[attr-defined]

    async def main() -> list[Response]:
        try:
            return await method(requests)
        finally:
            await backend.aclose()

    return asyncio.run(main())


@pytest.fixture()
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[ApiStub]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", PLANTED_KEY)
    with ApiStub() as server:
        yield server


def test_generate_sends_one_user_message_and_reads_text_and_usage(stub: ApiStub) -> None:
    backend = AnthropicBackend("claude-stub", base_url=stub.url, timeout=5)
    prompt = "Read the instruction and then answer the question using A or B.\nAnswer:"
    params = GenerationParams(max_new_tokens=20, temperature=0.0, stop=("\n\n",), seed=3)
    [response] = run(backend.generate, [GenerationRequest(prompt, params)])
    assert response.error is None
    assert response.text == messages_reply(prompt)
    assert response.top_logprobs is None
    assert response.usage.prompt_tokens == len(prompt.split())
    path, headers, body = stub.requests[0]
    assert path == "/v1/messages"
    assert body["messages"] == [{"role": "user", "content": prompt}]
    assert (body["model"], body["max_tokens"]) == ("claude-stub", 20)
    assert body.get("temperature") == (0.0 if backend.sends_temperature else None)
    assert body["stop_sequences"] == ["\n\n"] and "seed" not in body
    # The key from the environment is sent (as x-api-key or, by recent SDKs, a bearer token).
    assert PLANTED_KEY in (headers.get("x-api-key"), headers.get("authorization", "")[7:])


TRANSIENT = {
    "429 retry-after": (Fault(status=429, headers={"retry-after": "12"}), 12.0),
    "529 overloaded": (
        Fault(
            status=529,
            body={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        ),
        None,
    ),
    "500": (Fault(status=500), None),
    "truncated": (Fault(truncate=True), None),
    "empty object": (Fault(empty_object=True), None),
    "dropped": (Fault(drop=True), None),
}


@pytest.mark.parametrize("name", list(TRANSIENT))
def test_retryable_failures_raise_transient_error(stub: ApiStub, name: str) -> None:
    fault, retry_after = TRANSIENT[name]
    stub.script.append(fault)
    backend = AnthropicBackend("claude-stub", base_url=stub.url, timeout=5)
    with pytest.raises(TransientError) as info:
        run(backend.generate, [GenerationRequest("Q")])
    assert info.value.retry_after == retry_after
    if name == "529 overloaded":
        assert "529" in str(info.value) and "Overloaded" in str(info.value)
    assert len(stub.requests) == 1  # max_retries=0: the SDK did not retry on its own
    [ok] = run(backend.generate, [GenerationRequest("Q again")])
    assert ok.text == messages_reply("Q again")


def test_a_bad_key_is_fatal_and_the_key_never_shows(
    stub: ApiStub, caplog: pytest.LogCaptureFixture
) -> None:
    backend = AnthropicBackend("claude-stub", base_url=stub.url, timeout=5)
    stub.script.append(
        Fault(status=401, body={"error": {"message": f"invalid x-api-key: {PLANTED_KEY}"}})
    )
    with caplog.at_level(logging.DEBUG), pytest.raises(APIRequestError) as info:
        run(backend.generate, [GenerationRequest("Q")])
    assert info.value.fatal and info.value.status_code == 401
    assert "HTTP 401" in str(info.value) and "invalid x-api-key" in str(info.value)
    for text in (str(info.value), repr(info.value), repr(backend.describe()), caplog.text):
        assert PLANTED_KEY not in text
        assert PLANTED_KEY[8:24] not in text


def test_a_rejected_request_in_a_batch_becomes_a_failed_response(stub: ApiStub) -> None:
    stub.script.append(Fault(status=400, body={"error": {"message": "max_tokens too large"}}))
    backend = AnthropicBackend("claude-stub", base_url=stub.url, timeout=5)
    responses = run(backend.generate, [GenerationRequest("one"), GenerationRequest("two")])
    failed = [r for r in responses if r.error is not None]
    assert len(failed) == 1 and "max_tokens too large" in str(failed[0].error)
    assert {r.text for r in responses if r.error is None} <= {
        messages_reply("one"),
        messages_reply("two"),
    }


def test_score_choices_is_refused_with_a_pointer_to_generate(stub: ApiStub) -> None:
    backend = AnthropicBackend("claude-stub", base_url=stub.url)
    with pytest.raises(UsageError, match="--scoring generate"):
        run(backend.score_choices, [ChoiceRequest("Q", {"A": " A", "B": " B"})])
    assert stub.requests == []


def test_describe_and_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(UsageError, match="ANTHROPIC_API_KEY"):
        AnthropicBackend("claude-x")
    monkeypatch.setenv("ANTHROPIC_API_KEY", PLANTED_KEY)
    backend = AnthropicBackend("claude-x", timeout=30)
    described = backend.describe()
    assert described == {
        "backend": "anthropic",
        "spec": "anthropic:claude-x",
        "model": "claude-x",
        "base_url": "https://api.anthropic.com",
        "timeout": 30,
        "temperature": "from the request" if backend.sends_temperature else "model default",
    }
    with pytest.raises(UsageError, match="base URL") as info:
        AnthropicBackend("claude-x", base_url="https://u:pw-secret-42@proxy.example/")
    assert "pw-secret-42" not in str(info.value)
