"""A real HTTP server on 127.0.0.1 serving a folder, in a background thread, for tests.

Usage::

    with StaticServer(folder) as server:
        server.corrupt["mcr/composition_english.json"] = lambda body: body + b" "
        server.omit.add("convre/triple_subset.json")          # answers 404
        server.status["convre/triple_dataset.json"] = 503     # answers that status, empty body
        server.delay["mcr/composition_french.json"] = 2.0     # waits 2 s before answering
        httpx.get(server.url + "/convre/re2text_examples.json")
        server.requests  # ["/convre/re2text_examples.json"]

Hooks are keyed by the path relative to the folder (no leading slash) and may be changed while
the server runs. Only GET is served; paths with ``..`` answer 404.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import unquote, urlsplit


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """Ignore clients that hung up (e.g. a test's time-out); report anything else."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class StaticServer:
    """Serve ``root`` over HTTP on 127.0.0.1 (a free port) while the context is open.

    ``url`` is the base address (no trailing slash). ``requests`` lists every request path in
    order. ``corrupt`` maps a path to a function of the true bytes returning the bytes served;
    ``omit`` holds paths answered with 404; ``status`` maps a path to a status code to answer;
    ``delay`` maps a path to seconds to wait before answering.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self.requests: list[str] = []
        self.corrupt: dict[str, Callable[[bytes], bytes]] = {}
        self.omit: set[str] = set()
        self.status: dict[str, int] = {}
        self.delay: dict[str, float] = {}
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        host, port = self._server.server_address[:2]
        self.url = f"http://{host!s}:{port}"

    def count(self, prefix: str = "") -> int:
        """Return how many requests were made for paths starting with ``/`` + ``prefix``."""
        with self._lock:
            return sum(1 for path in self.requests if path.startswith("/" + prefix))

    def _answer(self, raw_path: str) -> tuple[int, bytes]:
        relative = unquote(urlsplit(raw_path).path).lstrip("/")
        with self._lock:
            self.requests.append("/" + relative)
            status = self.status.get(relative)
            omitted = relative in self.omit
            corrupt = self.corrupt.get(relative)
            delay = self.delay.get(relative, 0.0)
        if delay:
            time.sleep(delay)
        if status is not None:
            return status, b""
        target = self.root / relative  # symbolic links inside the folder are followed
        if omitted or ".." in Path(relative).parts or not target.is_file():
            return 404, b"not found"
        body = target.read_bytes()
        return 200, corrupt(body) if corrupt else body

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, body = server._answer(self.path)
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                """Keep test output quiet."""

        return Handler

    def __enter__(self) -> StaticServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
