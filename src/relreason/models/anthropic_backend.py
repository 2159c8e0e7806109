"""Claude models through Anthropic's Messages API, with the official ``anthropic`` SDK.

The SDK client is created with ``max_retries=0`` (the runner owns retries); the API key is read
only from ``ANTHROPIC_API_KEY`` and never appears in ``describe()``, error messages or logs.
Response bodies are read under a byte cap (:mod:`relreason.models.body_cap`).
The Messages API gives no log-probabilities, so ``score_choices`` is not available.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

from relreason.errors import UsageError
from relreason.install import extra_hint
from relreason.models.base import ModelBackend, chat_messages
from relreason.models.body_cap import body_cap, capped_client
from relreason.models.errors_map import (
    LOCAL_KEY_PLACEHOLDER,
    UnreadableResponseError,
    check_base_url,
    gather_guarded,
    public_url,
    translate,
)
from relreason.models.options import DEFAULT_TIMEOUT, ModelOptions
from relreason.types import ChoiceRequest, GenerationRequest, Response, Turn, Usage

API_KEY_ENV = "ANTHROPIC_API_KEY"
DEFAULT_BASE_URL = "https://api.anthropic.com"


def _text_of(message: Any) -> str:
    """The concatenated text blocks of a Messages API reply; raises if it has no content list."""
    content = getattr(message, "content", None)
    if not isinstance(content, list):
        raise UnreadableResponseError("the message has no content list")
    parts = []
    for block in content:
        if getattr(block, "type", None) == "text":
            parts.append(str(getattr(block, "text", "") or ""))
    return "".join(parts)


def _sdk_accepts_temperature() -> bool:
    """Whether the installed SDK's ``messages.create`` still takes ``temperature``."""
    from anthropic.resources.messages import AsyncMessages

    return "temperature" in inspect.signature(AsyncMessages.create).parameters


class AnthropicBackend(ModelBackend):
    """A Claude model: ``generate`` sends the prompt as one user message.

    ``base_url`` points at another Messages-API server (a proxy or gateway); with it, a missing
    key is replaced by a placeholder. ``max_new_tokens`` and ``stop`` come from the request;
    ``temperature`` too when the installed SDK still accepts it (recent ``anthropic`` releases
    dropped it from the Messages API: then the model's default sampling is used, and
    ``describe()`` says so). The Messages API has no seed and no log-probabilities.
    """

    batch_size = 1

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        spec: str | None = None,
    ) -> None:
        """Create the SDK client.

        Raises ``UsageError`` when the ``anthropic`` package is missing, the model name is
        empty, the timeout is not positive, or no key is set for the default endpoint.
        """
        try:
            import anthropic
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise UsageError(
                f"the anthropic package is not installed: {extra_hint('anthropic')}"
            ) from exc
        if not model:
            raise UsageError("an Anthropic backend needs a model name")
        if timeout <= 0:
            raise UsageError(f"timeout must be positive, not {timeout}")
        key = os.environ.get(API_KEY_ENV, "")
        if not key:
            if base_url is None:
                raise UsageError(f"set {API_KEY_ENV} in the environment to use the Anthropic API")
            key = LOCAL_KEY_PLACEHOLDER
        url = check_base_url(base_url or DEFAULT_BASE_URL)
        self._anthropic = anthropic
        self._secrets = (key,)
        self._url = url
        self._key = key
        self._sdk_client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.model = model
        self.base_url = public_url(url)
        self.timeout = timeout
        self.spec = spec or f"anthropic:{model}"
        self.sends_temperature = _sdk_accepts_temperature()

    def describe(self) -> Mapping[str, Any]:
        """Return spec, model, the credential-free base URL and the timeout."""
        return {
            "backend": "anthropic",
            "spec": self.spec,
            "model": self.model,
            "base_url": self.base_url,
            "timeout": self.timeout,
            "temperature": "from the request" if self.sends_temperature else "model default",
        }

    def sent_as(self, prompt: str, chat: tuple[Turn, ...] = ()) -> Any:
        """The Messages API's messages sent for ``prompt`` (a system message apart, as the
        API takes it)."""
        system, messages = _split_system(prompt, chat)
        return messages if system is None else {"system": system, "messages": messages}

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        client, loop = self._sdk_client, self._loop
        self._sdk_client, self._loop = None, None
        if client is not None and loop is asyncio.get_running_loop():
            await client.close()

    def _client(self) -> Any:
        """The SDK client for the running event loop (its connections are bound to one loop)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop or self._sdk_client is None:
            capped = capped_client(
                self._anthropic.DefaultAsyncHttpxClient,
                lambda: body_cap(self.max_answer_chars),
            )
            self._sdk_client = self._anthropic.AsyncAnthropic(
                api_key=self._key,
                base_url=self._url,
                timeout=self.timeout,
                max_retries=0,
                http_client=capped,
            )
            self._loop = loop
        return self._sdk_client

    async def _generate_one(self, request: GenerationRequest) -> Response:
        params = request.params
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": params.max_new_tokens,
        }
        system, kwargs["messages"] = _split_system(request.prompt, request.chat)
        if system is not None:
            kwargs["system"] = system
        if self.sends_temperature:
            kwargs["temperature"] = params.temperature
        if params.stop:
            kwargs["stop_sequences"] = list(params.stop)
        start = time.perf_counter()
        try:
            message = await self._client().messages.create(**kwargs)
            text = _text_of(message)
        except Exception as exc:
            mapped = translate(
                exc,
                sdk=self._anthropic,
                service=f"Anthropic API {self.base_url}",
                secrets=self._secrets,
            )
            if mapped is None:
                raise
            raise mapped from None
        usage = getattr(message, "usage", None)
        return Response(
            text=text,
            usage=Usage(
                prompt_tokens=int(getattr(usage, "input_tokens", 0) or 0),
                completion_tokens=int(getattr(usage, "output_tokens", 0) or 0),
            ),
            latency_s=time.perf_counter() - start,
        )

    async def generate(self, requests: Sequence[GenerationRequest]) -> list[Response]:
        """Send each prompt as one user message; one ``Response`` per request, in order.

        Raises ``TransientError`` when a batch of one request fails in a retryable way (429,
        529 overloaded, 5xx, time-out, dropped connection, unreadable body) and a fatal
        ``APIRequestError`` for a bad key or model; other failures become ``Response(error=)``.
        """
        return await gather_guarded(self._generate_one, requests)

    async def score_choices(self, requests: Sequence[ChoiceRequest]) -> list[Response]:
        """Not available: the Messages API returns no log-probabilities.

        Always raises ``UsageError`` telling to use ``--scoring generate``.
        """
        raise UsageError(
            f"{self.spec}: the Anthropic Messages API gives no log-probabilities, so choices "
            "cannot be scored by likelihood; use --scoring generate"
        )


def build(name: str, spec: str, options: ModelOptions) -> AnthropicBackend:
    """Registry factory: ``anthropic:MODEL`` with the first of ``base_urls`` and ``timeout``."""
    base_url = options.base_urls[0] if options.base_urls else None
    return AnthropicBackend(name, base_url=base_url, timeout=options.timeout, spec=spec)


def _split_system(prompt: str, chat: tuple[Turn, ...]) -> tuple[str | None, list[dict[str, str]]]:
    """The Messages API's ``system`` (None without one) and ``messages`` of a request."""
    messages = chat_messages(prompt, chat)
    system = [m["content"] for m in messages if m["role"] == "system"]
    rest = [m for m in messages if m["role"] != "system"]
    return ("\n\n".join(system) if system else None), rest
