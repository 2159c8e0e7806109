"""Translate API SDK exceptions into relreason's two kinds of failure, with no secret in them.

Retryable failures (429, 408, 409, 5xx and 529, time-outs, dropped connections, unreadable or
truncated bodies) become ``TransientError`` (with ``retry_after`` from the response headers);
the runner retries those. Everything else the server refused becomes ``APIRequestError``:
``fatal`` when no request can succeed (401, 403, 404: bad key, no access, unknown model or
endpoint), otherwise specific to the one request (400, 413, 422...).

The ``openai`` and ``anthropic`` SDKs share exception names, so one function serves both: it is
given the SDK module.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import re
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import pydantic

from relreason.errors import RelreasonError, UsageError
from relreason.models.base import TransientError
from relreason.models.body_cap import BodyRefusedError
from relreason.types import Response

RequestT = TypeVar("RequestT")

TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
"""Client-side status codes worth retrying; every 5xx (including 529 overloaded) is too."""

FATAL_STATUS = frozenset({401, 403, 404})
"""Status codes after which no request to this server can succeed."""

LOCAL_KEY_PLACEHOLDER = "not-needed"
"""The key sent to a local server that needs none (never a secret)."""

_BEARER = re.compile(r"(?i)(bearer\s+|x-api-key[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+")
_MAX_MESSAGE = 500


class APIRequestError(RelreasonError):
    """The API refused a request for a reason retrying will not fix.

    ``status_code`` is the HTTP status; ``fatal`` is True when every request would fail the same
    way (401, 403, 404), so a run should stop rather than record each item as failed.
    """

    def __init__(self, message: str, *, status_code: int, fatal: bool) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.fatal = fatal


class UnreadableResponseError(Exception):
    """A 2xx response whose body lacks what the API promises (truncated or malformed)."""


_UNREADABLE = (
    UnreadableResponseError,
    json.JSONDecodeError,
    UnicodeDecodeError,
    pydantic.ValidationError,
)


def scrub(text: str, secrets: Iterable[str]) -> str:
    """Return ``text`` with every secret, bearer token and x-api-key value replaced by ``***``.

    Secrets shorter than 4 characters are ignored (placeholders such as "" cannot leak).
    Also cuts the text to a readable length. Never raises.
    """
    for secret in sorted((s for s in secrets if len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, "***")
    text = _BEARER.sub(lambda m: m.group(1) + "***", text)
    if len(text) > _MAX_MESSAGE:
        text = text[:_MAX_MESSAGE] + "..."
    return text


def public_url(url: str) -> str:
    """Return ``url`` without user, password, query or fragment (safe to record and show)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:  # an IPv6 address keeps its brackets
            host = f"[{host}]"
        if parts.port is not None:
            host = f"{host}:{parts.port}"
    except ValueError:
        return "<malformed URL>"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def _secret_looking(segment: str) -> bool:
    """A path segment that looks like a key or token (never put one in a URL)."""
    if re.search(r"(sk-|api[_-]?key|token|secret|password|bearer)", segment, re.IGNORECASE):
        return True
    long_token = len(segment) >= 24 and re.fullmatch(r"[A-Za-z0-9_]+", segment) is not None
    return long_token and any(c.isdigit() for c in segment) and any(c.isalpha() for c in segment)


def check_base_url(url: str) -> str:
    """Return ``url`` when it is an http(s) URL without user, password, query string, fragment
    or anything secret-looking in its path.

    Raises ``UsageError`` otherwise (never showing the offending part): HTTP libraries log
    request URLs, so a secret inside one would leak; keys belong in the environment. A bad
    port or a malformed IPv6 address is a ``UsageError`` too.
    """
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a bad port)
    except ValueError as error:
        raise UsageError(f"base URL is not a valid URL ({error})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"base URL {public_url(url)!r} is not an http(s) URL")
    if parts.username or parts.password or parts.query:
        raise UsageError(
            f"base URL {public_url(url)!r} must not carry a user, password or query string; "
            "put the API key in the environment"
        )
    if parts.fragment or any(_secret_looking(s) for s in parts.path.split("/")):
        shown = f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}/..."
        raise UsageError(
            f"base URL {shown!r} must not carry a fragment or anything that looks like a key "
            "in its path (not shown); put the API key in the environment"
        )
    return url


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Return the server's requested wait in seconds, or None when it sent none.

    Reads ``retry-after-ms`` (milliseconds), then ``retry-after`` as seconds or as an HTTP date.
    Negative or unreadable values give None. Never raises.
    """
    if headers is None:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000.0
        except ValueError:
            value = -1.0
        if value >= 0:
            return value
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
        seconds = max(seconds, 0.0)
    return seconds if seconds >= 0 and seconds == seconds else None


def from_status(
    status: int,
    headers: Mapping[str, str] | None,
    detail: str,
    *,
    service: str,
    secrets: Iterable[str] = (),
) -> TransientError | APIRequestError:
    """Return the error for an HTTP error status: ``TransientError`` or ``APIRequestError``.

    The message names the service and status and carries the server's (scrubbed) explanation.
    """
    secrets = tuple(secrets)
    message = scrub(f"{service} returned HTTP {status}: {detail}", secrets)
    if status in TRANSIENT_STATUS or status >= 500:
        return TransientError(message, retry_after=parse_retry_after(headers))
    hint = ""
    if status in (401, 403):
        hint = " (check the API key in the environment and its access to this model)"
    elif status == 404:
        hint = " (check the model name and the base URL)"
    return APIRequestError(message + hint, status_code=status, fatal=status in FATAL_STATUS)


def _body_detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping) and "message" in error:
            return str(error["message"])
        return json.dumps(body, default=str)
    if body is not None:
        return str(body)
    return str(getattr(exc, "message", exc))


def translate(
    exc: BaseException, *, sdk: ModuleType, service: str, secrets: Iterable[str] = ()
) -> Exception | None:
    """Return the relreason error for an exception raised by an SDK call, or None if unknown.

    ``sdk`` is the ``openai`` or ``anthropic`` module. Status errors go through
    ``from_status``; a body refused by :mod:`relreason.models.body_cap` becomes a non-fatal
    ``APIRequestError`` (the item fails, the run goes on); time-outs, connection errors,
    response validation errors, JSON decode errors and ``UnreadableResponseError`` become
    ``TransientError``. Unknown exceptions
    (programming errors) give None so the caller re-raises them unchanged.
    """
    secrets = tuple(secrets)
    if isinstance(exc, TransientError | APIRequestError):
        return exc
    refused = next((e for e in _chain(exc) if isinstance(e, BodyRefusedError)), None)
    if refused is not None:  # the same server would send the same body: not retried
        message = scrub(f"{service}: {refused}", secrets)
        return APIRequestError(message, status_code=refused.status, fatal=False)
    if isinstance(exc, sdk.APIStatusError):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        return from_status(
            int(exc.status_code), headers, _body_detail(exc), service=service, secrets=secrets
        )
    if isinstance(exc, sdk.APITimeoutError) and not _no_connection(exc):
        return TransientError(f"{service}: request timed out")
    if isinstance(exc, sdk.APIConnectionError):  # a refused connect may come as a time-out
        cause = exc.__cause__ or exc
        return TransientError(
            scrub(f"{service}: connection failed: {type(cause).__name__}: {cause}", secrets),
            connection=scrub(_connection_text(service, exc), secrets)
            if _no_connection(exc)
            else None,
        )
    if isinstance(exc, (sdk.APIResponseValidationError, *_UNREADABLE)):
        return TransientError(
            scrub(f"{service}: unreadable response body: {type(exc).__name__}: {exc}", secrets)
        )
    return None


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and what caused it (an SDK may wrap the cause), at most ten deep."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 10:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    return chain


def _no_connection(exc: BaseException) -> bool:
    """Whether ``exc`` or what caused it means no connection was made at all (refused, unknown
    host), not a connection dropped mid-answer. The SDK's aiohttp transport reports a refused
    connection as a connect time-out caused by ``ConnectionRefusedError``."""
    return any(
        isinstance(e, ConnectionRefusedError | socket.gaierror)
        or (e is not exc and type(e).__name__ == "ConnectError")
        for e in _chain(exc)
    )


def _connection_text(service: str, exc: BaseException) -> str:
    """``connection refused at URL`` (or ``cannot connect to URL``) for the circuit breaker."""
    found = re.search(r"\w+://\S+", service)
    address = found.group(0) if found else service
    refused = any(
        isinstance(e, ConnectionRefusedError) or "refused" in str(e).lower() for e in _chain(exc)
    )
    return f"connection refused at {address}" if refused else f"cannot connect to {address}"


async def gather_guarded(
    one: Callable[[RequestT], Awaitable[Response]], requests: Sequence[RequestT]
) -> list[Response]:
    """Run ``one`` on every request concurrently; return one ``Response`` per request, in order.

    A failure of one request becomes ``Response(error=...)``, except that a batch of exactly one
    request re-raises ``TransientError`` (so the runner's retry layer can retry it), and a
    fatal ``APIRequestError`` (bad key, unknown model) is always raised: every request would
    fail the same way. Raises ``TransientError`` or ``APIRequestError`` as just described.
    """
    single = len(requests) == 1

    async def guarded(request: RequestT) -> Response:
        start = time.perf_counter()
        try:
            return await one(request)
        except TransientError as exc:
            if single:
                raise
            return Response(error=str(exc), latency_s=time.perf_counter() - start)
        except APIRequestError as exc:
            if exc.fatal:
                raise
            return Response(error=str(exc), latency_s=time.perf_counter() - start)

    if single:  # no task to make (the runner sends API requests one at a time)
        return [await guarded(requests[0])]
    return list(await asyncio.gather(*(guarded(r) for r in requests)))
