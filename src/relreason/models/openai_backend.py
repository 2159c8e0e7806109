"""Models behind an OpenAI-compatible API: OpenAI itself, vLLM, llama.cpp's server, ...

Uses the official ``openai`` SDK (``AsyncOpenAI``, one client per base URL, ``max_retries=0``:
the runner owns retries). The API key is read only from the environment and never appears in
``describe()``, in error messages or in logs. Several base URLs (data-parallel servers) share
the requests: each request goes to the server with the fewest requests in flight, ties taken
in turn; a server that just failed in a retryable way is put aside for a while.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from relreason.errors import UsageError
from relreason.models.base import ModelBackend, TransientError
from relreason.models.errors_map import (
    LOCAL_KEY_PLACEHOLDER,
    APIRequestError,
    UnreadableResponseError,
    check_base_url,
    gather_guarded,
    public_url,
    translate,
)
from relreason.types import ChoiceRequest, GenerationRequest, Response, Usage

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
LOGPROB_POSITIONS = 16
"""How many generated positions keep their top alternatives in ``Response.top_logprobs``."""
MAX_TOP_LOGPROBS = {"chat": 20, "completions": 5}
"""The largest ``top_logprobs`` the OpenAI API accepts per endpoint; requests are clamped."""
CHOICE_TOP_K = {"chat": 20, "completions": 5}
"""How many first-token alternatives ``score_choices`` asks for when it cannot echo."""
COOLDOWN_BASE_S = 1.0
COOLDOWN_MAX_S = 30.0
"""A server that failed in a retryable way gets no new request (while another can take it)
for 1 s, doubling with each further failure in a row, up to 30 s."""
ECHO_TOLERANCE = 0.1
"""Largest gap (nats) between echoed and generated log-probabilities for echo to be trusted."""

Api = Literal["chat", "completions"]
ChoiceScoring = Literal["auto", "echo", "first_token"]


def _finite(value: Any) -> float | None:
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def _sorted_top(pairs: Sequence[tuple[Any, Any]]) -> dict[str, float]:
    """Token -> log-probability, highest first (the best value kept for a repeated token)."""
    best: dict[str, float] = {}
    for token, logprob in pairs:
        value = _finite(logprob)
        if isinstance(token, str) and value is not None and value > best.get(token, -math.inf):
            best[token] = min(value, 0.0)
    return dict(sorted(best.items(), key=lambda kv: kv[1], reverse=True))


def _chat_top_logprobs(choice: Any) -> tuple[dict[str, float], ...] | None:
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if not content:
        return None
    positions = []
    for entry in content[:LOGPROB_POSITIONS]:
        alternatives = getattr(entry, "top_logprobs", None) or []
        pairs = [(getattr(a, "token", None), getattr(a, "logprob", None)) for a in alternatives]
        if not pairs:
            pairs = [(getattr(entry, "token", None), getattr(entry, "logprob", None))]
        positions.append(_sorted_top(pairs))
    return tuple(positions)


def _completion_top_logprobs(choice: Any) -> tuple[dict[str, float], ...] | None:
    logprobs = getattr(choice, "logprobs", None)
    tops = getattr(logprobs, "top_logprobs", None)
    if not tops:
        return None
    positions = []
    for entry in tops[:LOGPROB_POSITIONS]:
        positions.append(_sorted_top(list(entry.items())) if isinstance(entry, Mapping) else {})
    return tuple(positions)


def _usage(result: Any) -> Usage:
    usage = getattr(result, "usage", None)
    return Usage(
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
    )


def _first_choice(result: Any) -> Any:
    choices = getattr(result, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise UnreadableResponseError("the response has no choices")
    return choices[0]


def match_first_token(top: Mapping[str, float], continuation: str) -> float:
    """Return the log-probability of ``continuation`` as one token among ``top`` alternatives.

    An exact token match wins; otherwise tokens equal after stripping spaces (``"A"`` for
    ``" A"``, as a chat model answers without the leading space) count, the best one taken.
    Returns ``-inf`` when the continuation is not among them. Never raises.
    """
    if continuation in top:
        return top[continuation]
    stripped = continuation.strip()
    values = [v for token, v in top.items() if stripped and token.strip() == stripped]
    return max(values, default=-math.inf)


def continuation_positions(
    prompt_len: int, full_len: int, tokens: Sequence[Any], offsets: Sequence[Any]
) -> list[int] | None:
    """Return the indices of the echoed tokens covering ``full[prompt_len:full_len]``.

    ``tokens``/``offsets`` are an echo response's ``logprobs`` fields (character offsets into
    the full text). A token straddling the prompt's end counts with the continuation. Returns
    None when the echo does not reach the end of the continuation (the server ignored ``echo``)
    or the fields are malformed.
    """
    if len(tokens) != len(offsets) or not tokens or full_len <= prompt_len:
        return None
    positions: list[int] = []
    covered = False
    for index, (token, offset) in enumerate(zip(tokens, offsets, strict=True)):
        if not isinstance(offset, int) or isinstance(offset, bool) or not isinstance(token, str):
            return None
        end = offset + max(len(token), 1)
        if offset >= full_len or end <= prompt_len:
            continue
        positions.append(index)
        covered = covered or end >= full_len
    return positions if covered else None


def continuation_logprob(
    prompt: str, full: str, tokens: Sequence[Any], offsets: Sequence[Any], logprobs: Sequence[Any]
) -> float | None:
    """Sum the echoed log-probabilities of the tokens covering ``full[len(prompt):]``.

    Returns None when ``continuation_positions`` finds no such tokens, or a needed
    log-probability is missing or not finite.
    """
    positions = continuation_positions(len(prompt), len(full), tokens, offsets)
    if positions is None or len(logprobs) != len(tokens):
        return None
    total = 0.0
    for index in positions:
        value = _finite(logprobs[index])
        if value is None:
            return None
        total += value
    return total


def echo_agrees(first_token_top: Mapping[str, float], echo_top: Any, tolerance: float) -> bool:
    """Whether an echo's distribution at the continuation's first position matches generation.

    ``first_token_top`` is the top alternatives of the first token generated after the prompt;
    ``echo_top`` the echo's ``top_logprobs`` entry at the continuation's first token. A server
    that scores echoed tokens correctly gives the best generated token the same log-probability
    there (llama-cpp-python's server does not: its echoed log-probabilities are shifted by one
    position). Returns False when either side is empty.
    """
    if not first_token_top or not isinstance(echo_top, Mapping):
        return False
    token, value = next(iter(first_token_top.items()))
    other = _finite(echo_top.get(token))
    return other is not None and abs(other - value) <= tolerance


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
    supports_logprobs = True

    def __init__(
        self,
        model: str,
        *,
        base_urls: Sequence[str] | None = None,
        api: Api = "chat",
        timeout: float = 60.0,
        api_key_env: str = "OPENAI_API_KEY",
        spec: str | None = None,
        choice_scoring: ChoiceScoring = "auto",
        concurrency: int | None = None,
    ) -> None:
        """Create one SDK client per base URL.

        Raises ``UsageError`` when the ``openai`` package is missing, an option is invalid, or
        no API key is set for the default (remote) OpenAI endpoint.
        """
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise UsageError(
                "the openai package is not installed: pip install 'relreason[openai]'"
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
        self._secrets = (key,)
        self._urls = urls
        self._key = key
        self._clients: list[Any] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._echo_lock = asyncio.Lock()
        self.model = model
        self.api: Api = api
        self.timeout = timeout
        self.base_urls = tuple(public_url(u) for u in urls)  # no trailing slash
        self.spec = spec or f"openai:{model}"
        self.choice_scoring: ChoiceScoring = choice_scoring
        self.concurrency = concurrency or 4 * len(urls)
        self.choice_paths: Counter[str] = Counter()
        self.requests_per_url: Counter[str] = Counter()
        self._in_flight = [0] * len(urls)
        self._next = 0
        self._failures = [0] * len(urls)
        self._down_until = [0.0] * len(urls)
        self._logprobs_ok = True
        self._echo_ok: bool | None = None

    def describe(self) -> Mapping[str, Any]:
        """Return spec, model, api, credential-free base URLs, timeout and choice scoring."""
        return {
            "backend": "openai",
            "spec": self.spec,
            "model": self.model,
            "api": self.api,
            "base_urls": list(self.base_urls),
            "timeout": self.timeout,
            "choice_scoring": self.choice_scoring,
        }

    async def aclose(self) -> None:
        """Close every SDK client's connections."""
        clients, loop = self._clients, self._loop
        self._clients, self._loop = [], None
        if loop is asyncio.get_running_loop():  # clients of a finished loop cannot be closed
            for client in clients:
                await client.close()

    def _bind_loop(self) -> None:
        """Give the running event loop its own SDK clients and lock.

        Clients hold connections bound to one event loop, so a new loop (a new ``asyncio.run``)
        gets new ones.
        """
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._clients = [
                self._openai.AsyncOpenAI(
                    api_key=self._key, base_url=url, timeout=self.timeout, max_retries=0
                )
                for url in self._urls
            ]
            self._echo_lock = asyncio.Lock()
            self._loop = loop

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

        Raises ``TransientError`` or ``APIRequestError`` (scrubbed) for failures.
        """
        index = self._pick()
        client = self._client(index)
        self._in_flight[index] += 1
        self.requests_per_url[self.base_urls[index]] += 1
        service = f"OpenAI-compatible server {self.base_urls[index]}"
        try:
            if endpoint == "chat":
                result = await client.chat.completions.create(**kwargs)
            else:
                result = await client.completions.create(**kwargs)
            if isinstance(result, str | bytes):
                raise UnreadableResponseError("the response body is not JSON")
            _first_choice(result)
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

    def _generation_kwargs(self, request: GenerationRequest, logprobs: bool) -> dict[str, Any]:
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
        k = min(params.top_logprobs, MAX_TOP_LOGPROBS[self.api])
        if self.api == "chat":
            kwargs["messages"] = [{"role": "user", "content": request.prompt}]
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
        try:
            result = await self._call(self.api, **self._generation_kwargs(request, logprobs))
        except APIRequestError as exc:
            if not logprobs or exc.fatal or exc.status_code not in (400, 422):
                raise
            result = await self._call(self.api, **self._generation_kwargs(request, False))
            log.warning("%s rejected logprobs; asking without them from now on", self.spec)
            self._logprobs_ok = False
        choice = _first_choice(result)
        if self.api == "chat":
            text = getattr(getattr(choice, "message", None), "content", None) or ""
            top = _chat_top_logprobs(choice)
        else:
            text = getattr(choice, "text", None) or ""
            top = _completion_top_logprobs(choice)
        return Response(
            text=str(text),
            top_logprobs=top if logprobs else None,
            usage=_usage(result),
            latency_s=time.perf_counter() - start,
        )

    async def generate(self, requests: Sequence[GenerationRequest]) -> list[Response]:
        """Continue each prompt (concurrently); one ``Response`` per request, in order.

        Raises ``TransientError`` when a batch of one request fails in a retryable way, and
        ``APIRequestError`` (fatal) for a bad key, model or URL; other failures come back as
        ``Response(error=...)``.
        """
        return await gather_guarded(self._generate_one, requests)

    async def _echo_scores(
        self, request: ChoiceRequest
    ) -> tuple[dict[str, float], list[Any]] | None:
        """Continuation log-likelihoods by echo, with each continuation's first-position
        alternatives; None when the server refuses or ignores echo."""
        scores: dict[str, float] = {}
        first_tops: list[Any] = []
        for letter, continuation in request.continuations.items():
            full = request.prompt + continuation
            try:
                result = await self._call(
                    "completions",
                    model=self.model,
                    prompt=full,
                    echo=True,
                    logprobs=1,
                    max_tokens=1,
                    temperature=0.0,
                )
            except APIRequestError as exc:
                if exc.fatal or exc.status_code not in (400, 422):
                    raise
                return None
            lp = getattr(_first_choice(result), "logprobs", None)
            tokens = getattr(lp, "tokens", None) or []
            offsets = getattr(lp, "text_offset", None) or []
            value = continuation_logprob(
                request.prompt, full, tokens, offsets, getattr(lp, "token_logprobs", None) or []
            )
            positions = continuation_positions(len(request.prompt), len(full), tokens, offsets)
            if value is None or not positions:
                return None
            tops = getattr(lp, "top_logprobs", None) or []
            first_tops.append(tops[positions[0]] if positions[0] < len(tops) else None)
            scores[letter] = value
        return scores, first_tops

    async def _first_token_top(
        self, prompt: str
    ) -> tuple[tuple[dict[str, float], ...] | None, Usage]:
        """The first generated token's top alternatives after ``prompt``, and the usage."""
        k = CHOICE_TOP_K[self.api]
        if self.api == "chat":
            result = await self._call(
                "chat",
                model=self.model,
                messages=[{"role": "user", "content": prompt}],
                max_tokens=1,
                temperature=0.0,
                logprobs=True,
                top_logprobs=k,
            )
            return _chat_top_logprobs(_first_choice(result)), _usage(result)
        result = await self._call(
            "completions",
            model=self.model,
            prompt=prompt,
            max_tokens=1,
            temperature=0.0,
            logprobs=k,
        )
        return _completion_top_logprobs(_first_choice(result)), _usage(result)

    def _first_token_response(
        self,
        request: ChoiceRequest,
        top: tuple[dict[str, float], ...] | None,
        usage: Usage,
        latency: float,
    ) -> Response:
        k = CHOICE_TOP_K[self.api]
        if not top:
            return Response(
                error=f"{self.spec}: the server returned no logprobs for choice scoring",
                usage=usage,
                latency_s=latency,
            )
        scores = {
            letter: match_first_token(top[0], text)
            for letter, text in request.continuations.items()
        }
        missing = sorted(letter for letter, v in scores.items() if v == -math.inf)
        if missing:
            log.info("choices %s not among the first token's top-%d alternatives", missing, k)
        if len(missing) == len(scores):
            return Response(
                error=(
                    f"{self.spec}: no continuation was among the first token's top-{k} "
                    "alternatives (first-token choice scoring only handles one-token choices)"
                ),
                top_logprobs=top[:1],
                usage=usage,
                latency_s=latency,
            )
        return Response(
            choice_logprobs=scores, top_logprobs=top[:1], usage=usage, latency_s=latency
        )

    async def _score_one(self, request: ChoiceRequest) -> Response:
        if not request.continuations:
            return Response(error="choice scoring needs at least one continuation")
        self._bind_loop()
        if self.choice_scoring == "auto" and self.api == "completions" and self._echo_ok is None:
            async with self._echo_lock:  # one request checks echo; the others wait for the verdict
                if self._echo_ok is None:
                    return await self._score_checking_echo(request)
        start = time.perf_counter()
        if self.choice_scoring == "echo" or (self.choice_scoring == "auto" and self._echo_ok):
            echoed = await self._echo_scores(request)
            if echoed is None:
                raise APIRequestError(
                    f"{self.spec}: cannot score choices by echo: the server refused or ignored "
                    "echo (use choice_scoring 'first_token' or --scoring generate)",
                    status_code=400,
                    fatal=True,
                )
            self.choice_paths["echo"] += 1
            return Response(choice_logprobs=echoed[0], latency_s=time.perf_counter() - start)
        self.choice_paths["first_token"] += 1
        top, usage = await self._first_token_top(request.prompt)
        return self._first_token_response(request, top, usage, time.perf_counter() - start)

    async def _score_checking_echo(self, request: ChoiceRequest) -> Response:
        """Score by echo if the server echoes correctly, else by first token; remember which.

        Echo is trusted when, at the continuation's first token, the echoed alternatives agree
        with the first token generated after the prompt.
        """
        start = time.perf_counter()
        top, usage = await self._first_token_top(request.prompt)
        echoed = await self._echo_scores(request)
        first = top[0] if top else {}
        if echoed is not None and any(echo_agrees(first, t, ECHO_TOLERANCE) for t in echoed[1]):
            self._echo_ok = True
            self.choice_paths["echo"] += 1
            return Response(choice_logprobs=echoed[0], latency_s=time.perf_counter() - start)
        reason = (
            "the server refused or ignored echo"
            if echoed is None
            else "its echoed logprobs disagree with generation (shifted positions?)"
        )
        log.warning("%s: %s; scoring choices by first token from now on", self.spec, reason)
        self._echo_ok = False
        self.choice_paths["first_token"] += 1
        return self._first_token_response(request, top, usage, time.perf_counter() - start)

    async def score_choices(self, requests: Sequence[ChoiceRequest]) -> list[Response]:
        """Return each request's continuation log-likelihoods in ``Response.choice_logprobs``.

        The path (echo or first token) follows ``choice_scoring``; see the class docstring.
        Raises as ``generate`` does; a server that cannot echo under ``choice_scoring='echo'``
        raises a fatal ``APIRequestError``.
        """
        return await gather_guarded(self._score_one, requests)


__all__ = [
    "OpenAIBackend",
    "TransientError",
    "continuation_logprob",
    "continuation_positions",
    "echo_agrees",
    "match_first_token",
]
