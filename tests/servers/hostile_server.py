"""A real HTTP server on 127.0.0.1 that answers every request with a body no client should read
whole (stdlib asyncio, in a thread).

Modes: ``endless`` (200, a chunked JSON body that never ends), ``huge`` (200, a 100 MB body
with its Content-Length), ``endless-error`` (500, a chunked body that never ends), ``gzip-bomb``
(200, ``Content-Encoding: gzip``: 100 KB that decompress to 100 MB), ``brotli`` (200, a body in
an encoding relreason does not read). It counts the requests and the bytes it sent.

In a test::

    with HostileServer("endless") as server:
        ...  # base URL: server.url
"""

from __future__ import annotations

import asyncio
import gzip
import threading
from types import TracebackType

MODES = ("endless", "huge", "endless-error", "gzip-bomb", "brotli")
HUGE = 100 * 1024 * 1024
_CHUNK = b"a" * 65536


class HostileServer:
    """Serves ``mode`` on 127.0.0.1 (a free port) from a thread until :meth:`stop`."""

    def __init__(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self.mode = mode
        self.requests = 0
        self.sent = 0
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._bomb = gzip.compress(b" " * HUGE, compresslevel=9) if mode == "gzip-bomb" else b""

    @property
    def url(self) -> str:
        """The base URL of an OpenAI-compatible API on this server."""
        return f"http://127.0.0.1:{self.port}/v1"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                await reader.readexactly(length)
                self.requests += 1
                await self._answer(writer)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _write(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(data)
        self.sent += len(data)
        await writer.drain()

    async def _answer(self, writer: asyncio.StreamWriter) -> None:
        json_head = b"Content-Type: application/json\r\n"
        if self.mode in ("endless", "endless-error"):
            status = b"200 OK" if self.mode == "endless" else b"500 Internal Server Error"
            await self._write(
                writer,
                b"HTTP/1.1 " + status + b"\r\n" + json_head + b"Transfer-Encoding: chunked\r\n\r\n",
            )
            start = b'{"id": "x", "choices": [{"index": 0, "message": {"content": "'
            await self._write(writer, b"%x\r\n%s\r\n" % (len(start), start))
            while True:
                await self._write(writer, b"%x\r\n%s\r\n" % (len(_CHUNK), _CHUNK))
        if self.mode == "huge":
            await self._write(
                writer, b"HTTP/1.1 200 OK\r\n" + json_head + b"Content-Length: %d\r\n\r\n" % HUGE
            )
            for _ in range(HUGE // len(_CHUNK)):
                await self._write(writer, _CHUNK)
            return
        if self.mode == "gzip-bomb":
            body, encoding = self._bomb, b"gzip"
        else:
            body, encoding = b"\x1b\x00\x00\x00" * 64, b"br"
        await self._write(
            writer,
            b"HTTP/1.1 200 OK\r\n"
            + json_head
            + b"Content-Encoding: "
            + encoding
            + b"\r\nContent-Length: %d\r\n\r\n" % len(body)
            + body,
        )

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop

        async def start() -> asyncio.Server:
            return await asyncio.start_server(self._handle, "127.0.0.1", 0)

        server = loop.run_until_complete(start())
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            server.close()
            for task in asyncio.all_tasks(loop):
                task.cancel()
            loop.run_until_complete(asyncio.sleep(0))
            loop.close()

    def start(self) -> HostileServer:
        """Start serving; return self once the port is bound."""
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread to end."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def __enter__(self) -> HostileServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
