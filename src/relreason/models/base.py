"""The one interface every model backend implements.

A backend knows nothing of benchmarks: it turns requests into responses. Two operations:
``generate`` (free text, with the first tokens' top log-probabilities when the backend gives
them) and ``score_choices`` (the log-likelihood of each allowed continuation after a prompt).

Both take a *batch* of requests. Local backends use the batch (length-sorted, shared prefix);
API backends send the requests concurrently. Backends must not raise for one bad request: a
request that fails for good comes back as ``Response(error=...)``. They may raise
``TransientError`` from the single-request helpers so that the runner's retry layer can retry.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from relreason.types import ChoiceRequest, GenerationRequest, Response, Turn


class TransientError(Exception):
    """A failure worth retrying (429, 5xx, time-out, dropped connection, unreadable body).

    ``retry_after`` carries the server's Retry-After in seconds when it sent one.
    ``connection`` is set (to the server's address) when no connection could be made at all
    (refused, unknown host): the runner's circuit breaker counts these.
    """

    def __init__(
        self, message: str, retry_after: float | None = None, *, connection: str | None = None
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.connection = connection


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do, checked before a run folder is written: ``logprobs`` (first-token
    log-probabilities with generated text) and ``choice_scoring`` (``score_choices``).

    Declared once per backend, on its registry line (``BackendInfo.capabilities`` in
    :mod:`relreason.models.registry`, readable without importing the backend), and handed to
    the backend the line builds (``ModelBackend.capabilities``)."""

    logprobs: bool = False
    choice_scoring: bool = True


class ModelBackend(ABC):
    """Base class of model backends.

    ``spec`` is the user's model spec string (``smollm2``, ``hf:...``, ``openai:...``).
    ``describe()`` returns every parameter that can change an output; it is written to the
    manifest and hashed into cache keys, so it must never contain a secret.
    ``batch_size`` is how many requests the runner hands over at once (local models).
    ``capabilities`` are set from the backend's registry line when ``load_backend`` builds it
    (a backend built by hand has the defaults, or sets its own).
    Optional hooks, with defaults that do nothing: ``prepare_choices``, ``sent_as``,
    ``report_work``, ``chosen_options``, ``aclose``.
    """

    spec: str
    batch_size: int = 1
    capabilities: Capabilities = Capabilities()
    work_listener: Callable[[int, int], None] | None = None
    """Set by the runner while a run uses the backend; see :meth:`report_work`."""
    max_answer_chars: int = 200_000
    """The run's ``--max-answer-chars`` (set by the runner): API backends cap the bytes of each
    response body by it (:mod:`relreason.models.body_cap`)."""

    def report_work(self, requests: int, tokens: int) -> None:
        """Tell the runner (from any thread) that ``requests`` requests were computed and
        ``tokens`` tokens run since the last report. Local backends call it within a batch or
        a prefix-tree pass so that progress moves before the batch returns; others need not."""
        listener = self.work_listener
        if listener is not None and (requests or tokens):
            listener(requests, tokens)

    @abstractmethod
    def describe(self) -> Mapping[str, Any]:
        """Return the backend's identity and parameters (JSON-ready, no secrets)."""

    @abstractmethod
    async def generate(self, requests: Sequence[GenerationRequest]) -> list[Response]:
        """Continue each prompt as text; one response per request, in order."""

    @abstractmethod
    async def score_choices(self, requests: Sequence[ChoiceRequest]) -> list[Response]:
        """Return each request's continuation log-likelihoods in ``Response.choice_logprobs``."""

    async def prepare_choices(self, requests: Sequence[ChoiceRequest]) -> bool:
        """Optional hook: score all of these choice requests at once, ahead of the
        ``score_choices`` calls that will ask for them (a local model runs them through one
        prefix tree). Return whether anything was prepared; the default prepares nothing and
        returns False, and the runner then sends its batches without preparing again."""
        return False

    def sent_as(self, prompt: str, chat: tuple[Turn, ...] = ()) -> Any:
        """What the model is actually given for ``prompt`` (and the request's ``chat``) when it
        is not the bare text: the chat messages of a chat API, or the chat-templated text of a
        local model; None when the prompt is sent as it is. Recorded with each item, for
        audits."""
        return None

    def chosen_options(self) -> Mapping[str, Any]:
        """Backend options (``ModelOptions`` names) the backend chose itself because none was
        given, e.g. vLLM's memory share on a CPU; the runner records them with the manifest's
        model options. The default chose none."""
        return {}

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release connections or memory; the default does nothing."""


def chat_messages(prompt: str, chat: tuple[Turn, ...] = ()) -> list[dict[str, str]]:
    """The chat messages of a request: its ``chat`` (system message, few-shot turns) when it
    has one, else one user message holding ``prompt``."""
    return [{"role": role, "content": text} for role, text in chat or (("user", prompt),)]


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """Return ``text`` up to (not including) the earliest occurrence of any stop string."""
    cut = len(text)
    for s in stop:
        if s:
            found = text.find(s)
            if found != -1:
                cut = min(cut, found)
    return text[:cut]


def with_latency(response: Response | None, latency: float) -> Response:
    """Return ``response`` with ``latency_s`` set (an error response when it is missing)."""
    if response is None:
        return Response(error="no response was produced", latency_s=latency)
    return replace(response, latency_s=latency)
