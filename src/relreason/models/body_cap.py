"""API response bodies read with a byte cap as they arrive, whatever HTTP client the SDK uses.

The ``openai`` and ``anthropic`` SDKs read a response body whole before handing it over, so an
endless or huge body (a broken or hostile server) would take all the memory. Both SDKs run on an
httpx-style client (httpx, httpx2, or either over aiohttp), which calls its ``response`` event
hooks before reading the body: :func:`capped_client` builds the SDK's client with a hook that
wraps the body's stream so that reading stops with :class:`BodyRefusedError` past the cap
(:func:`body_cap` for answers, :data:`ERROR_BODY_CAP` for error statuses). The client asks for
uncompressed bodies; a gzip or deflate body sent anyway is decompressed under the same cap, any
other encoding refused. ``relreason.models.errors_map.translate`` turns the error into a failed
item (never retried: the same server would send the same body).
"""

from __future__ import annotations

import functools
import importlib
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

BASE_BODY_CAP = 8 * 1024 * 1024
"""Bytes every answer body may take besides its text (JSON, usage, log-probabilities)."""
BYTES_PER_CHAR = 16
"""Bytes one answer character may take in a body (JSON-escaped: 12 for a surrogate pair)."""
ERROR_BODY_CAP = 64 * 1024
"""Bytes an error response's body may take (only its first 500 characters are shown)."""


def body_cap(max_answer_chars: int) -> int:
    """The byte cap of an answer's body when answers may hold ``max_answer_chars`` characters."""
    return BASE_BODY_CAP + BYTES_PER_CHAR * max_answer_chars


class BodyRefusedError(Exception):
    """A response body over its cap, or in an encoding relreason does not read; ``status`` is
    the response's HTTP status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@functools.cache
def _stream_class(base: type) -> type:
    """A subclass of the HTTP library's ``AsyncByteStream`` that stops past a byte cap."""

    class CappedStream(base):  # type: ignore[misc]
        def __init__(self, inner: Any, cap: int, status: int, encoding: str | None) -> None:
            self.inner = inner
            self.cap = cap
            self.status = status
            self.decoder = None if encoding is None else zlib.decompressobj(zlib.MAX_WBITS | 32)

        def _over(self) -> BodyRefusedError:
            what = "error body" if self.status >= 400 else "response body"
            return BodyRefusedError(
                f"the server's {what} (HTTP {self.status}) is over the cap of {self.cap} bytes "
                "(from --max-answer-chars); not read further",
                self.status,
            )

        async def __aiter__(self) -> AsyncIterator[bytes]:
            total = 0
            async for chunk in self.inner:
                if self.decoder is not None:
                    try:
                        chunk = self.decoder.decompress(chunk, self.cap - total + 1)
                    except zlib.error as error:
                        message = f"undecodable compressed body ({error})"
                        raise BodyRefusedError(message, self.status) from None
                    if self.decoder.unconsumed_tail:
                        raise self._over()
                total += len(chunk)
                if total > self.cap:
                    raise self._over()
                yield chunk
            if self.decoder is not None:
                rest = self.decoder.flush()
                if total + len(rest) > self.cap:
                    raise self._over()
                yield rest

        async def aclose(self) -> None:
            await self.inner.aclose()

    return CappedStream


def capping_hook(limit: Callable[[], int]) -> Callable[[Any], Awaitable[None]]:
    """An httpx-style ``response`` event hook capping the body at ``limit()`` bytes (at
    :data:`ERROR_BODY_CAP` for an error status)."""

    async def hook(response: Any) -> None:
        status = int(response.status_code)
        cap = ERROR_BODY_CAP if status >= 400 else limit()
        encoding = response.headers.get("content-encoding", "").strip().lower() or "identity"
        if encoding not in ("identity", "gzip", "x-gzip", "deflate"):
            await response.aclose()
            message = f"the server sent a body in the encoding {encoding!r}, which is not read"
            raise BodyRefusedError(message, status)
        library = importlib.import_module(type(response).__module__.split(".")[0])
        stream_class = _stream_class(library.AsyncByteStream)
        decoded = None if encoding == "identity" else encoding
        response.stream = stream_class(response.stream, cap, status, decoded)
        if decoded is not None:  # decoded here, under the cap: the client must not decode it
            del response.headers["content-encoding"]

    return hook


def capped_client(factory: Callable[..., Any], limit: Callable[[], int]) -> Any:
    """The SDK's HTTP client made by ``factory`` (``openai.DefaultAioHttpClient``,
    ``anthropic.DefaultAsyncHttpxClient``...) with bodies capped at ``limit()`` bytes."""
    return factory(
        event_hooks={"response": [capping_hook(limit)]},
        headers={"Accept-Encoding": "identity"},
    )
