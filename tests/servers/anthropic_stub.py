"""A real HTTP server on 127.0.0.1 that speaks Anthropic's Messages API and OpenAI's API, scripted.

There is no local Claude, and no local server that misbehaves on demand, so tests talk to this
stub over real HTTP (real sockets, real SDK clients). What it answers is computed from the
request, so tests can check that a backend passes it through:

- ``POST /v1/messages``: a Messages reply whose text is ``messages_reply(prompt)``.
- ``POST /v1/chat/completions`` and ``/v1/completions``: text ``openai_reply(prompt, n)``;
  log-probabilities come from a toy character-level model (``toy_distribution``), one token
  per character, so echoed prompt log-probabilities can be checked exactly.

Failures are scripted per request with ``server.script.append(Fault(...))`` (FIFO; once the
script is empty requests succeed again): an HTTP status with headers and a body, a truncated
JSON body, a non-JSON body, a body missing its fields, a dropped connection, or a delay.

Usage::

    with ApiStub() as stub:
        stub.script.append(Fault(status=429, headers={"Retry-After": "7"}))
        ...  # base URL: stub.url (Anthropic) or stub.url + "/v1" (OpenAI)
        stub.requests  # [(path, lower-cased headers, json_body), ...]
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

VOCAB = [chr(c) for c in range(32, 127)] + ["\n"]
OUT_OF_VOCAB_LOGPROB = -30.0


def toy_distribution(context: str) -> dict[str, float]:
    """The toy model's next-character log-probabilities after ``context`` (sums to 1 over VOCAB)."""
    scores = {ch: -float((ord(ch) * 7 + len(context) * 3) % 13) / 2.0 for ch in VOCAB}
    norm = math.log(sum(math.exp(s) for s in scores.values()))
    return {ch: s - norm for ch, s in scores.items()}


def toy_logprob(context: str, ch: str) -> float:
    """log p(ch | context) under the toy model."""
    return toy_distribution(context).get(ch, OUT_OF_VOCAB_LOGPROB)


def top_k(dist: dict[str, float], k: int) -> dict[str, float]:
    """The ``k`` most likely entries, best first (ties by character)."""
    best = sorted(dist.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return dict(best)


def greedy(context: str, n: int) -> str:
    """The toy model's greedy continuation of ``n`` characters."""
    out = ""
    for _ in range(n):
        out += next(iter(top_k(toy_distribution(context + out), 1)))
    return out


def messages_reply(prompt: str) -> str:
    """The text the stub's Messages endpoint answers for ``prompt``."""
    return f"Claude-stub read {len(prompt)} characters; last word: {prompt.split()[-1]}"


@dataclass
class Fault:
    """One scripted misbehaviour for the next request.

    ``status`` with ``headers`` and ``body`` (bytes or JSON-able); ``truncate`` sends a valid
    reply cut in half (declared as JSON); ``not_json`` sends text/plain; ``empty_object`` sends
    ``{}``; ``drop`` closes the connection without answering; ``delay`` waits before answering.
    """

    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    truncate: bool = False
    not_json: bool = False
    empty_object: bool = False
    drop: bool = False
    delay: float = 0.0


OPENAI_FIELDS = frozenset(
    {
        "model", "messages", "prompt", "max_tokens", "temperature", "stop", "seed", "logprobs",
        "top_logprobs", "echo", "top_p", "n", "stream", "frequency_penalty", "presence_penalty",
        "logit_bias", "user",
    }
)  # fmt: skip
"""The request fields of OpenAI's chat and completions APIs that the backend may send."""


class ApiStub:
    """The scripted API server, on a free port of 127.0.0.1, in a background thread.

    ``reject_logprobs``: answer 400 to any request asking for log-probabilities.
    ``reject_unknown``: answer 400 naming the first field of a chat or completions request that
    the OpenAI API does not define (what api.openai.com does).
    ``max_top_logprobs``: answer 400 to a request for more alternatives per position (OpenAI
    takes 20 on chat, 5 on completions); None: any number.
    ``echo_support``: ``"ok"`` (correct echo), ``"ignore"`` (answer as if echo were off) or
    ``"shifted"`` (each echoed token scored one position late, like llama-cpp-python).
    """

    def __init__(self) -> None:
        self.script: deque[Fault] = deque()
        self.requests: list[tuple[str, dict[str, str], Any]] = []
        self.reject_logprobs = False
        self.reject_unknown = False
        self.max_top_logprobs: int | None = None
        self.echo_support = "ok"
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (append ``/v1`` for OpenAI clients)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> ApiStub:
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

    def _next_fault(self) -> Fault | None:
        with self._lock:
            return self.script.popleft() if self.script else None

    def reply(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        """The status and JSON reply for a well-formed request to ``path``."""
        if path.endswith("/messages"):
            prompt = str(body["messages"][-1]["content"])
            return 200, {
                "id": "msg_stub",
                "type": "message",
                "role": "assistant",
                "model": body.get("model"),
                "content": [{"type": "text", "text": messages_reply(prompt)}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": len(prompt.split()), "output_tokens": 9},
            }
        unknown = [key for key in body if key not in OPENAI_FIELDS]
        if self.reject_unknown and unknown:
            message = f"Unrecognized request argument supplied: {unknown[0]}"
            return 400, {"error": {"message": message, "type": "invalid_request_error"}}
        wants_logprobs = bool(body.get("logprobs"))
        k = body.get("top_logprobs") if path.endswith("/chat/completions") else body.get("logprobs")
        if self.max_top_logprobs is not None and isinstance(k, int) and k > self.max_top_logprobs:
            message = f"logprobs must be at most {self.max_top_logprobs}"
            return 400, {"error": {"message": message, "type": "invalid_request_error"}}
        if self.reject_logprobs and wants_logprobs:
            return 400, {"error": {"message": "logprobs are not supported", "type": "invalid"}}
        if path.endswith("/chat/completions"):
            return 200, self._chat(body)
        if path.endswith("/completions"):
            return 200, self._completion(body)
        return 404, {"error": {"message": f"no route {path}"}}

    def _chat(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = str(body["messages"][-1]["content"])
        n = int(body.get("max_tokens") or 16)
        text = greedy(prompt, n)
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": "length",
            "logprobs": None,
        }
        if body.get("logprobs"):
            k = int(body.get("top_logprobs") or 1)
            content = []
            for i, ch in enumerate(text):
                dist = toy_distribution(prompt + text[:i])
                alternatives = [{"token": t, "logprob": v} for t, v in top_k(dist, k).items()]
                content.append({"token": ch, "logprob": dist[ch], "top_logprobs": alternatives})
            choice["logprobs"] = {"content": content}
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [choice],
            "usage": {"prompt_tokens": len(prompt), "completion_tokens": n, "total_tokens": 0},
        }

    def _completion(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = str(body["prompt"])
        n = int(body.get("max_tokens") or 16)
        k = body.get("logprobs")
        echo = bool(body.get("echo")) and self.echo_support != "ignore"
        generated = greedy(prompt, n)
        text = (prompt if echo else "") + generated
        logprobs = None
        if k is not None:
            start = 0 if echo else len(prompt)
            full = prompt + generated
            tokens, offsets, values, tops = [], [], [], []
            for i in range(start, len(full)):
                # "shifted": echoed prompt tokens are scored one position late; generated ones
                # are right (what llama-cpp-python's server does).
                shift = 1 if echo and self.echo_support == "shifted" and i < len(prompt) else 0
                context = full[: i + shift]
                tokens.append(full[i])
                offsets.append(i)
                values.append(None if i == 0 else toy_logprob(context, full[i]))
                tops.append(None if i == 0 else top_k(toy_distribution(context), max(int(k), 1)))
            logprobs = {
                "tokens": tokens,
                "text_offset": offsets,
                "token_logprobs": values,
                "top_logprobs": tops,
            }
        return {
            "id": "cmpl-stub",
            "object": "text_completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [
                {"index": 0, "text": text, "finish_reason": "length", "logprobs": logprobs}
            ],
            "usage": {"prompt_tokens": len(prompt), "completion_tokens": n, "total_tokens": 0},
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                self._send(404, b"{}", {"Content-Type": "application/json"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = None
                with stub._lock:
                    stub.requests.append(
                        (self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                fault = stub._next_fault()
                if fault is not None and fault.delay:
                    time.sleep(fault.delay)
                if fault is not None and fault.drop:
                    self.close_connection = True
                    self.connection.close()
                    return
                json_type = {"Content-Type": "application/json"}
                if fault is not None and fault.status is not None:
                    payload = fault.body if fault.body is not None else {"error": {"message": "x"}}
                    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                    self._send(fault.status, data, {**json_type, **fault.headers})
                    return
                if not isinstance(body, dict):
                    self._send(400, b'{"error": {"message": "bad json"}}', json_type)
                    return
                status, reply = stub.reply(self.path.split("?")[0], body)
                data = json.dumps(reply).encode()
                if fault is not None and fault.truncate:
                    data = data[: len(data) // 2]
                elif fault is not None and fault.not_json:
                    self._send(200, b"upstream proxy error page", {"Content-Type": "text/plain"})
                    return
                elif fault is not None and fault.empty_object:
                    data = b"{}"
                self._send(status, data, {**json_type, **(fault.headers if fault else {})})

        return Handler
