"""Models behind an OpenAI-compatible API: OpenAI itself, vLLM, llama.cpp's server, ...

Uses the official ``openai`` SDK (``AsyncOpenAI``, one client per base URL, ``max_retries=0``:
the runner owns retries). The API key is read only from the environment and never appears in
``describe()``, in error messages or in logs. Several base URLs (data-parallel servers) share
the requests: each request goes to the server with the fewest requests in flight, ties taken
in turn; a server that just failed in a retryable way is put aside for a while.

Choice scoring (echo or first token) is in :mod:`relreason.models.openai.choices`, reading the
SDK's results (first choice, usage, top logprobs) in :mod:`relreason.models.openai.results`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from relreason.errors import UsageError
from relreason.install import extra_hint
from relreason.models.base import ModelBackend, TransientError, chat_messages
from relreason.models.body_cap import body_cap, capped_client
from relreason.models.errors_map import (
    LOCAL_KEY_PLACEHOLDER,
    APIRequestError,
    UnreadableResponseError,
    check_base_url,
    gather_guarded,
    public_url,
    translate,
)
from relreason.models.openai.choices import (
    ChoiceScorer,
    ChoiceScoring,
    continuation_logprob,
    continuation_positions,
    echo_agrees,
    match_first_token,
)
from relreason.models.openai.results import (
    Api,
    chat_top_logprobs,
    choice_text,
    completion_top_logprobs,
    first_choice,
    read_usage,
)
from relreason.models.options import DEFAULT_TIMEOUT, ModelOptions
from relreason.types import ChoiceRequest, GenerationRequest, Response, Turn

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_TOP_LOGPROBS = {"chat": 20, "completions": 5}
"""The largest ``top_logprobs`` the OpenAI API accepts per endpoint; requests are clamped."""
NEUTRAL_SAMPLING = {"repeat_penalty": 1.0}
"""Sent with each generation request (``extra_body``): the sampling a server applies unless told
otherwise, set to do nothing. llama-cpp-python's server penalises repeated tokens by default
(``repeat_penalty`` 1.1), so its greedy texts were not the model's greedy texts (they wandered
past the end of turn where ``gguf:`` with the same file stopped); vLLM's ``repetition_penalty``
is already 1.0. A server that refuses the field (a 400/422 naming it, as OpenAI's does) is
asked again without it, and not sent it again."""
PATHS = {"chat": "/chat/completions", "completions": "/completions"}
"""Each endpoint's path under a base URL (what ``chat.completions.create`` and
``completions.create`` post to)."""
COOLDOWN_BASE_S = 1.0
COOLDOWN_MAX_S = 30.0
"""A server that failed in a retryable way gets no new request (while another can take it)
for 1 s, doubling with each further failure in a row, up to 30 s."""


def served_model(result: Any) -> str | None:
    """The resolved model name and ``system_fingerprint`` an API result reports, or None."""
    parts = [getattr(result, "model", None), getattr(result, "system_fingerprint", None)]
    shown = [str(p)[:200] for p in parts if isinstance(p, str) and p]
    return " ".join(shown) or None


class OpenAIBackend(ModelBackend):
    """A model behind one or more OpenAI-compatible servers.

    ``api`` chooses the chat endpoint (the prompt is one user message) or the completions
    endpoint (raw prompt). ``choice_scoring`` says how ``score_choices`` reads continuation
    log-likelihoods: ``"echo"`` (completions with ``echo=True``: the exact log-likelihood of
    each continuation), ``"first_token"`` (the top alternatives of the first generated token:
    only single-token continuations such as ``" A"``; a continuation absent from the top-k gets
    ``-inf``) or ``"auto"`` (echo when the API is ``completions`` and the server supports it,
    else first-token). ``choice_paths`` counts which path each scored request took.
    """

    batch_size = 1

    def __init__(
        self,
        model: str,
        *,
        base_urls: Sequence[str] | None = None,
        api: Api = "chat",
        timeout: float = DEFAULT_TIMEOUT,
        api_key_env: str = "OPENAI_API_KEY",
        spec: str | None = None,
        choice_scoring: ChoiceScoring = "auto",
    ) -> None:
        """Create one SDK client per base URL.

        Raises ``UsageError`` when the ``openai`` package is missing, an option is invalid, or
        no API key is set for the default (remote) OpenAI endpoint.
        """
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise UsageError(
                f"the openai package is not installed: {extra_hint('openai')}"
            ) from exc
        if api not in ("chat", "completions"):
            raise UsageError(f"api must be 'chat' or 'completions', not {api!r}")
        if choice_scoring not in ("auto", "echo", "first_token"):
            raise UsageError(
                f"choice_scoring must be auto, echo or first_token: {choice_scoring!r}"
            )
        if choice_scoring == "echo" and api == "chat":
            raise UsageError("choice_scoring 'echo' needs api 'completions'")
        if not model:
            raise UsageError("an OpenAI-compatible backend needs a model name")
        if timeout <= 0:
            raise UsageError(f"timeout must be positive, not {timeout}")
        default_url = os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        urls = [check_base_url(u) for u in (base_urls or [default_url])]
        key = os.environ.get(api_key_env, "")
        if not key:
            if not base_urls:
                raise UsageError(
                    f"set {api_key_env} in the environment to use {DEFAULT_BASE_URL} "
                    "(or pass --base-url for a local server)"
                )
            key = LOCAL_KEY_PLACEHOLDER
        self._openai = openai
        self._result_types = {
            "chat": openai.types.chat.ChatCompletion,
            "completions": openai.types.Completion,
        }
        self._secrets = (key,)
        self._urls = urls
        self._key = key
        self._clients: list[Any] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self.model = model
        self.api: Api = api
        self.timeout = timeout
        self.base_urls = tuple(public_url(u) for u in urls)  # no trailing slash
        self.spec = spec or f"openai:{model}"
        self.choice_scoring: ChoiceScoring = choice_scoring
        self.requests_per_url: Counter[str] = Counter()
        self._in_flight = [0] * len(urls)
        self._next = 0
        self._failures = [0] * len(urls)
        self._down_until = [0.0] * len(urls)
        self._logprobs_ok = True
        self._neutral_ok = True
        self._choices = ChoiceScorer(
            self._call, model=model, api=api, spec=self.spec, choice_scoring=choice_scoring
        )
        self.choice_paths: Counter[str] = self._choices.choice_paths

    def describe(self) -> Mapping[str, Any]:
        """Return spec, model, api, credential-free base URLs, timeout, choice scoring and the
        sampling fields every generation request carries besides its ``GenerationParams``
        (``sampling``: ``NEUTRAL_SAMPLING``), so that the cache key and a run folder's
        configuration change when they do (a server's default ``repeat_penalty`` of 1.1 gives
        other texts than 1.0)."""
        return {
            "backend": "openai",
            "spec": self.spec,
            "model": self.model,
            "api": self.api,
            "base_urls": list(self.base_urls),
            "timeout": self.timeout,
            "choice_scoring": self.choice_scoring,
            "sampling": dict(NEUTRAL_SAMPLING),
        }

    def sent_as(self, prompt: str, chat: tuple[Turn, ...] = ()) -> Any:
        """The chat messages sent for ``prompt`` (chat API); None for the completions API."""
        return chat_messages(prompt, chat) if self.api == "chat" else None

    async def aclose(self) -> None:
        """Close every SDK client's connections."""
        clients, loop = self._clients, self._loop
        self._clients, self._loop = [], None
        if loop is asyncio.get_running_loop():  # clients of a finished loop cannot be closed
            for client in clients:
                await client.close()

    def _bind_loop(self) -> None:
        """Give the running event loop its own SDK clients.

        Clients hold connections bound to one event loop, so a new loop (a new ``asyncio.run``)
        gets new ones. Their HTTP transport is aiohttp (the SDK's ``DefaultAioHttpClient``) when
        the ``openai[aiohttp]`` extra is installed: about 1.6x the requests/s of the default
        httpx transport at concurrency 64 (perf/RESULTS-runner.md).
        """
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._clients = [
                self._openai.AsyncOpenAI(
                    api_key=self._key,
                    base_url=url,
                    timeout=self.timeout,
                    max_retries=0,
                    **_http_client(self._openai, self._body_cap),
                )
                for url in self._urls
            ]
            self._loop = loop

    def _body_cap(self) -> int:
        return body_cap(self.max_answer_chars)

    def _client(self, index: int) -> Any:
        """The SDK client of base URL ``index`` for the running event loop."""
        self._bind_loop()
        return self._clients[index]

    def _pick(self) -> int:
        """The server for the next request: not cooling down after a retryable failure, then
        the fewest requests in flight, then the next in turn."""
        n = len(self._urls)
        now = time.monotonic()
        order = [(self._next + i) % n for i in range(n)]
        best = min(order, key=lambda i: (self._down_until[i] > now, self._in_flight[i]))
        self._next = (best + 1) % n
        return best

    def _record_outcome(self, index: int, failed: bool) -> None:
        """Put a server that just failed in a retryable way aside for a growing while."""
        if not failed:
            self._failures[index] = 0
            self._down_until[index] = 0.0
            return
        self._failures[index] += 1
        pause = min(COOLDOWN_BASE_S * 2 ** (self._failures[index] - 1), COOLDOWN_MAX_S)
        self._down_until[index] = time.monotonic() + pause

    async def _call(self, endpoint: Api, **kwargs: Any) -> Any:
        """Send one request to the least busy server; return the SDK's parsed result.

        The body is posted as it is, through the client's ``post`` (the SDK's transport, auth,
        time-out, error classes and response model), not through ``chat.completions.create``,
        whose walk over the request's typed parameters (``maybe_transform``) costs CPU for
        nothing here: our values are plain JSON already, and come out of it the same.

        Raises ``TransientError`` or ``APIRequestError`` (scrubbed) for failures.
        """
        index = self._pick()
        client = self._client(index)
        self._in_flight[index] += 1
        self.requests_per_url[self.base_urls[index]] += 1
        service = f"OpenAI-compatible server {self.base_urls[index]}"
        try:
            result = await client.post(
                PATHS[endpoint], body=_body(kwargs), cast_to=self._result_types[endpoint]
            )
            if isinstance(result, str | bytes):
                raise UnreadableResponseError("the response body is not JSON")
            first_choice(result)
            self._record_outcome(index, failed=False)
            return result
        except Exception as exc:
            mapped = translate(exc, sdk=self._openai, service=service, secrets=self._secrets)
            if mapped is None:
                raise
            self._record_outcome(index, failed=isinstance(mapped, TransientError))
            raise mapped from None
        finally:
            self._in_flight[index] -= 1

    def _generation_kwargs(
        self, request: GenerationRequest, logprobs: bool, neutral: bool
    ) -> dict[str, Any]:
        params = request.params
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": params.max_new_tokens,
            "temperature": params.temperature,
        }
        if params.stop:
            kwargs["stop"] = list(params.stop)
        if params.seed is not None:
            kwargs["seed"] = params.seed
        if neutral:
            kwargs["extra_body"] = dict(NEUTRAL_SAMPLING)
        k = min(params.top_logprobs, MAX_TOP_LOGPROBS[self.api])
        if self.api == "chat":
            kwargs["messages"] = chat_messages(request.prompt, request.chat)
            if logprobs:
                kwargs.update(logprobs=True, top_logprobs=k)
        else:
            kwargs["prompt"] = request.prompt
            if logprobs:
                kwargs["logprobs"] = k
        return kwargs

    async def _generate_one(self, request: GenerationRequest) -> Response:
        start = time.perf_counter()
        logprobs = request.params.top_logprobs > 0 and self._logprobs_ok
        neutral = self._neutral_ok
        while True:
            try:
                kwargs = self._generation_kwargs(request, logprobs, neutral)
                result = await self._call(self.api, **kwargs)
                break
            except APIRequestError as exc:
                if exc.fatal or exc.status_code not in (400, 422):
                    raise
                if neutral and any(name in str(exc) for name in NEUTRAL_SAMPLING):
                    neutral = False  # the server names the field it refuses
                elif logprobs:
                    logprobs = False
                else:
                    raise
        if self._neutral_ok and not neutral:
            log.warning("%s refused %s; asking without from now on", self.spec, NEUTRAL_SAMPLING)
            self._neutral_ok = False
        if request.params.top_logprobs > 0 and self._logprobs_ok and not logprobs:
            log.warning("%s rejected logprobs; asking without them from now on", self.spec)
            self._logprobs_ok = False
        choice = first_choice(result)
        try:
            text = choice_text(choice, self.api)
        except UnreadableResponseError as exc:  # a server bug: asking again gives the same
            raise APIRequestError(f"{self.spec}: {exc}", status_code=200, fatal=False) from None
        top = chat_top_logprobs(choice) if self.api == "chat" else completion_top_logprobs(choice)
        return Response(
            text=text,
            top_logprobs=top if logprobs else None,
            usage=read_usage(result),
            latency_s=time.perf_counter() - start,
            served_model=served_model(result),
        )

    async def generate(self, requests: Sequence[GenerationRequest]) -> list[Response]:
        """Continue each prompt (concurrently); one ``Response`` per request, in order.

        Raises ``TransientError`` when a batch of one request fails in a retryable way, and
        ``APIRequestError`` (fatal) for a bad key, model or URL; other failures come back as
        ``Response(error=...)``.
        """
        return await gather_guarded(self._generate_one, requests)

    async def score_choices(self, requests: Sequence[ChoiceRequest]) -> list[Response]:
        """Return each request's continuation log-likelihoods in ``Response.choice_logprobs``.

        The path (echo or first token) follows ``choice_scoring``; see the class docstring.
        Raises as ``generate`` does; a server that cannot echo under ``choice_scoring='echo'``
        raises a fatal ``APIRequestError``.
        """
        return await gather_guarded(self._choices.score, requests)


__all__ = [
    "OpenAIBackend",
    "TransientError",
    "continuation_logprob",
    "continuation_positions",
    "echo_agrees",
    "match_first_token",
]


def _body(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON body ``create(**kwargs)`` sends: the fields, with ``extra_body``'s merged in."""
    body = {k: v for k, v in kwargs.items() if k != "extra_body"}
    body.update(kwargs.get("extra_body") or {})
    return body


def _http_client(sdk: Any, limit: Callable[[], int]) -> dict[str, Any]:
    """``{"http_client": ...}``: the SDK's aiohttp client when aiohttp is installed, else the
    SDK's httpx client; either way with response bodies capped at ``limit()`` bytes.

    The SDK's ``DefaultAioHttpClient`` needs aiohttp and an httpx-aiohttp transport, which
    recent SDKs vendor (older ones import the ``httpx_aiohttp`` package); without them it
    raises ``RuntimeError`` when made, and the SDK's httpx client is used."""
    aio = getattr(sdk, "DefaultAioHttpClient", None)
    if aio is not None:
        with contextlib.suppress(RuntimeError, ImportError):
            return {"http_client": capped_client(aio, limit)}
    return {"http_client": capped_client(sdk.DefaultAsyncHttpxClient, limit)}


def build(name: str, spec: str, options: ModelOptions) -> OpenAIBackend:
    """Registry factory: ``openai:MODEL`` with ``base_urls``, ``api`` and ``timeout``."""
    return OpenAIBackend(
        name,
        base_urls=list(options.base_urls) or None,
        api=options.api,
        timeout=options.timeout,
        spec=spec,
    )
