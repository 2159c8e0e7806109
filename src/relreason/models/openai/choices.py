"""Choice scoring for OpenAI-compatible servers: continuation log-likelihoods by echo
(completions with ``echo=True``) or from the first generated token's top alternatives.

``ChoiceScorer`` holds one backend's path choice: under ``"auto"`` the first request checks
that the server echoes correctly (its echoed alternatives agree with generation) and every
later request takes the path found. The pure helpers below read echo responses.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal

from relreason.models.errors_map import APIRequestError
from relreason.models.openai.results import (
    Api,
    chat_top_logprobs,
    completion_top_logprobs,
    finite,
    first_choice,
    read_usage,
)
from relreason.types import ChoiceRequest, Response, Usage

log = logging.getLogger("relreason.models.openai.backend")  # the backend's messages

CHOICE_TOP_K = {"chat": 20, "completions": 5}
"""How many first-token alternatives ``score_choices`` asks for when it cannot echo (OpenAI's
largest per endpoint); also how many a response records."""
WIDE_TOP_K = 1000
"""How many it asks for again when a continuation is not among those: servers that take more
than OpenAI's limit (llama-cpp-python's server takes any number) then score the letters a model
ranks low (0.1% of the vocabulary still leaves the items of a model that would rather answer
"The" unscored). A server that refuses so many (400/422) is not asked again."""
ECHO_TOLERANCE = 0.1
"""Largest gap (nats) between echoed and generated log-probabilities for echo to be trusted."""

ChoiceScoring = Literal["auto", "echo", "first_token"]


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
        value = finite(logprobs[index])
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
    other = finite(echo_top.get(token))
    return other is not None and abs(other - value) <= tolerance


class ChoiceScorer:
    """Scores choices for one backend through ``call(endpoint, **kwargs)`` (which sends one
    request and returns the SDK's parsed result, raising ``TransientError`` or
    ``APIRequestError``). ``choice_paths`` counts which path each scored request took."""

    def __init__(
        self,
        call: Callable[..., Awaitable[Any]],
        *,
        model: str,
        api: Api,
        spec: str,
        choice_scoring: ChoiceScoring,
    ) -> None:
        """Remember the backend's call and settings; never raises."""
        self._call = call
        self.model = model
        self.api: Api = api
        self.spec = spec
        self.choice_scoring: ChoiceScoring = choice_scoring
        self.choice_paths: Counter[str] = Counter()
        self._echo_ok: bool | None = None
        self._wide_ok = True
        self._echo_lock = asyncio.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def _bind_loop(self) -> None:
        """Give the running event loop its own lock (a lock belongs to one loop)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._echo_lock = asyncio.Lock()
            self._loop = loop

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
            lp = getattr(first_choice(result), "logprobs", None)
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
        self, prompt: str, k: int
    ) -> tuple[tuple[dict[str, float], ...] | None, Usage]:
        """The first generated token's top-``k`` alternatives after ``prompt``, and the usage."""
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
            return chat_top_logprobs(first_choice(result)), read_usage(result)
        result = await self._call(
            "completions",
            model=self.model,
            prompt=prompt,
            max_tokens=1,
            temperature=0.0,
            logprobs=k,
        )
        return completion_top_logprobs(first_choice(result)), read_usage(result)

    async def _first_token_scores(
        self, request: ChoiceRequest, top: tuple[dict[str, float], ...] | None, usage: Usage
    ) -> tuple[tuple[dict[str, float], ...] | None, Usage, int]:
        """``top`` (OpenAI's number of alternatives), or ``WIDE_TOP_K`` of them asked for again
        when a continuation is missing and the server has not refused so many; the number."""
        k = CHOICE_TOP_K[self.api]
        found = top[0] if top else {}
        conts = request.continuations.values()
        if not self._wide_ok or all(match_first_token(found, c) > -math.inf for c in conts):
            return top, usage, k
        try:
            wide, more = await self._first_token_top(request.prompt, WIDE_TOP_K)
        except APIRequestError as exc:
            if exc.fatal or exc.status_code not in (400, 422):
                raise
            log.info("%s refused top-%d log-probabilities; asking top-%d", self.spec, WIDE_TOP_K, k)
            self._wide_ok = False
            return top, usage, k
        total = Usage(usage.prompt_tokens + more.prompt_tokens, usage.completion_tokens)
        return (wide or top), total, (WIDE_TOP_K if wide else k)

    def _first_token_response(
        self,
        request: ChoiceRequest,
        scored: tuple[tuple[dict[str, float], ...] | None, Usage, int],
        latency: float,
    ) -> Response:
        full, usage, k = scored
        # the response records OpenAI's number of alternatives, however many were read
        top = tuple(dict(list(p.items())[: CHOICE_TOP_K[self.api]]) for p in full or ())
        if not full:
            return Response(
                error=f"{self.spec}: the server returned no logprobs for choice scoring",
                usage=usage,
                latency_s=latency,
            )
        scores = {
            letter: match_first_token(full[0], text)
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

    async def score(self, request: ChoiceRequest) -> Response:
        """Return ``request``'s continuation log-likelihoods (``choice_logprobs``) or a failed
        ``Response``; raises as ``OpenAIBackend.score_choices`` does."""
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
        top, usage = await self._first_token_top(request.prompt, CHOICE_TOP_K[self.api])
        scored = await self._first_token_scores(request, top, usage)
        return self._first_token_response(request, scored, time.perf_counter() - start)

    async def _score_checking_echo(self, request: ChoiceRequest) -> Response:
        """Score by echo if the server echoes correctly, else by first token; remember which.

        Echo is trusted when, at the continuation's first token, the echoed alternatives agree
        with the first token generated after the prompt.
        """
        start = time.perf_counter()
        top, usage = await self._first_token_top(request.prompt, CHOICE_TOP_K[self.api])
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
        scored = await self._first_token_scores(request, top, usage)
        return self._first_token_response(request, scored, time.perf_counter() - start)
