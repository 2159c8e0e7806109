"""A real OpenAI-compatible HTTP server on 127.0.0.1 that fails on purpose (stdlib asyncio).

It answers ``POST /v1/chat/completions`` and ``POST /v1/completions`` deterministically from the
prompt (the answer letter is a hash of the prompt; the top log-probabilities favour it), and fails
a seeded share of requests with one of: 429 + Retry-After, 500, 503, a hang past the client's
time-out, a dropped connection, or a 200 whose JSON body is cut short. Whether a request fails
depends only on (seed, prompt, how many times that prompt was asked), so a run's faults are
reproducible, and a prompt fails at most ``max_faults_per_prompt`` times in a row.

It counts requests per prompt (``counts``; ``GET /stats`` gives them as JSON to another process)
and keeps every request body it parsed (``bodies``).

In a test::

    with FaultServer(fault_rate=0.25) as server:
        backend = OpenAIBackend("fake", base_urls=[server.url], timeout=0.5)

As a program (for load generators and subprocess tests)::

    python tests/servers/fault_server.py --port 8123 --fault-rate 0
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable
from types import TracebackType
from typing import Any

from relreason.types import EvalItem, Extraction, Response, Task

FAULTS = ("429", "500", "503", "hang", "drop", "truncated")


def toy_scorer(item: EvalItem, response: Response) -> Extraction:
    """Read a bare letter (what this server answers); anything else is unparseable."""
    text = (response.text or "").strip()
    scores = response.choice_logprobs
    if scores:
        text = max(scores, key=lambda letter: scores[letter])
    if text in item.choices:
        return Extraction(text, "correct" if text == item.gold else "wrong", "clean")
    return Extraction(None, "no_answer" if not text else "unparseable", "none")


def toy_task(n: int = 40, *, name: str = "toy", second_stage: bool = False) -> Task:
    """A small A/B task built by hand (no benchmark data needed), labelled by a fake relation."""
    items = tuple(
        EvalItem(
            index=i,
            item_id=f"toy/{i}",
            prompt=f"Question {i} of {name}: which is it?\nAnswer:",
            gold="AB"[(i * 7) % 3 % 2],
            choices=("A", "B"),
            choice_texts=("first", "second"),
            labels={"relation": f"rel{i % 3}", "tags": ["x", f"y{i % 2}"]},
        )
        for i in range(n)
    )
    stage = (
        (lambda item, out: f"{item.prompt} {out}\nTherefore the answer is")
        if second_stage
        else None
    )
    description = {"benchmark": "toy", "name": name, "n": n, "second_stage": second_stage}
    return Task("toy", name, description, items, toy_scorer, second_stage=stage)


def answer_letter(prompt: str, letters: str = "AB") -> str:
    """The letter the server answers for ``prompt`` (a hash of it, not the gold)."""
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    return letters[digest[0] % len(letters)]


def _unit(*parts: object) -> float:
    digest = hashlib.sha256("\x00".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _prompt_of(body: dict[str, Any]) -> str:
    if "messages" in body:
        messages = body.get("messages") or [{}]
        return str(messages[-1].get("content", ""))
    return str(body.get("prompt", ""))


class FaultServer:
    """The server, run in a background thread with its own event loop.

    ``fault_rate``: the share of requests that fail (0 for a clean server). ``kinds``: which
    faults to draw from. ``hang_s``: how long a hung request sleeps before the connection is
    dropped (make it longer than the client's time-out). ``retry_after``: the 429's header value.
    ``delay_s``: how long every answer takes (to make a run slow enough to kill midway).
    ``reply``: a script giving the chat reply to a prompt (default: the answer letter).
    ``mutate``: a script that may change the JSON body of an answer (prompt, body) before it is
    sent, e.g. to give a field the wrong type. ``refuse_logprobs``: answer HTTP 500 to every
    request that asks for log-probabilities (as llama.cpp's server without ``logits_all`` does).
    """

    def __init__(
        self,
        *,
        fault_rate: float = 0.25,
        seed: int = 0,
        kinds: tuple[str, ...] = FAULTS,
        retry_after: float = 0.2,
        hang_s: float = 2.0,
        max_faults_per_prompt: int = 2,
        letters: str = "AB",
        port: int = 0,
        delay_s: float = 0.0,
        reply: Callable[[str], str] | None = None,
        mutate: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None,
        refuse_logprobs: bool = False,
    ) -> None:
        self.fault_rate = fault_rate
        self.seed = seed
        self.kinds = kinds
        self.retry_after = retry_after
        self.hang_s = hang_s
        self.max_faults_per_prompt = max_faults_per_prompt
        self.letters = letters
        self.port = port
        self.delay_s = delay_s
        self.reply = reply
        self.mutate = mutate
        self.refuse_logprobs = refuse_logprobs
        self.counts: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []  # every POST's JSON body, in order
        self._streak: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def url(self) -> str:
        """The base URL clients use (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    # decisions ---------------------------------------------------------------------
    def _decide(self, prompt: str) -> str | None:
        """Count the request and return the fault to play, or None to answer."""
        with self._lock:
            self.counts[prompt] += 1
            nth = self.counts[prompt]
            fault = None
            if self._streak[prompt] < self.max_faults_per_prompt and (
                _unit(self.seed, prompt, nth) < self.fault_rate
            ):
                fault = self.kinds[int(_unit("kind", self.seed, prompt, nth) * len(self.kinds))]
            if fault is None:
                self._streak[prompt] = 0
                self.answered[prompt] += 1
            else:
                self._streak[prompt] += 1
                self.faults[fault] += 1
            return fault

    def stats(self) -> dict[str, Any]:
        """Return copies of the per-prompt request counts, answers and fault counts."""
        with self._lock:
            return {
                "counts": dict(self.counts),
                "answered": dict(self.answered),
                "faults": dict(self.faults),
            }

    # responses ---------------------------------------------------------------------
    def _completion(self, path: str, body: dict[str, Any], prompt: str) -> dict[str, Any]:
        letter = answer_letter(prompt, self.letters)
        others = [c for c in self.letters if c != letter]
        usage = {
            "prompt_tokens": max(1, len(prompt) // 4),
            "completion_tokens": 1,
            "total_tokens": max(1, len(prompt) // 4) + 1,
        }
        model = body.get("model", "fault-server")
        if path.endswith("/chat/completions"):
            choice: dict[str, Any] = {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": self.reply(prompt) if self.reply else letter,
                },
                "finish_reason": "stop",
                "logprobs": None,
            }
            if body.get("logprobs"):
                tops = [{"token": letter, "logprob": -0.1, "bytes": None}] + [
                    {"token": o, "logprob": -2.5 - i, "bytes": None} for i, o in enumerate(others)
                ]
                k = int(body.get("top_logprobs") or 1)
                entry = {"token": letter, "logprob": -0.1, "bytes": None, "top_logprobs": tops[:k]}
                choice["logprobs"] = {"content": [entry]}
            kind = "chat.completion"
        else:
            text = " " + letter
            choice = {"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}
            if body.get("logprobs"):
                top = {" " + letter: -0.1} | {" " + o: -2.5 - i for i, o in enumerate(others)}
                choice["logprobs"] = {
                    "tokens": [text],
                    "token_logprobs": [-0.1],
                    "top_logprobs": [dict(list(top.items())[: int(body["logprobs"])])],
                    "text_offset": [len(prompt)],
                }
            kind = "text_completion"
        return {
            "id": "fault-" + hashlib.sha256(prompt.encode()).hexdigest()[:12],
            "object": kind,
            "created": 0,
            "model": model,
            "choices": [choice],
            "usage": usage,
        }

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            keep_going = True
            while keep_going:
                keep_going = await self._one_request(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _one_request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Serve one request on a kept-alive connection; return whether to keep reading."""
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = [*lines[0].split(" "), "", ""][:3]
        headers = {
            k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if x)
        }
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        if method == "GET" and path.endswith("/stats"):
            await _send(writer, 200, json.dumps(self.stats()).encode())
            return True
        if method != "POST" or not path.endswith(("/chat/completions", "/completions")):
            await _send(writer, 404, b'{"error": {"message": "not found"}}')
            return True
        try:
            body = json.loads(raw)
        except ValueError:
            await _send(writer, 400, b'{"error": {"message": "bad JSON"}}')
            return True
        self.bodies.append(body)
        prompt = _prompt_of(body)
        if self.refuse_logprobs and body.get("logprobs"):
            message = b'{"error": {"message": "logits_all is not enabled", "type": "server"}}'
            await _send(writer, 500, message)
            return True
        fault = self._decide(prompt)
        if fault in ("429", "500", "503"):
            extra = {"Retry-After": f"{self.retry_after:g}"} if fault == "429" else {}
            message = json.dumps({"error": {"message": f"injected {fault}", "type": "fault"}})
            await _send(writer, int(fault), message.encode(), extra)
            return True
        if fault == "hang":
            await asyncio.sleep(self.hang_s)
            return False
        if fault == "drop":
            return False
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        answer = self._completion(path, body, prompt)
        if self.mutate is not None:
            answer = self.mutate(prompt, answer)
        data = json.dumps(answer).encode()
        if fault == "truncated":
            data = data[: len(data) // 2]
        await _send(writer, 200, data)
        return True

    # lifecycle ---------------------------------------------------------------------
    def _serve(self) -> None:
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", self.port, backlog=1024)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        self._server.close()
        pending = asyncio.all_tasks(self._loop)
        for task in pending:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self._loop.close()

    def start(self) -> FaultServer:
        """Start serving in a background thread; return self once the port is bound."""
        self._thread = threading.Thread(target=self._serve, name="fault-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fault server did not start")
        return self

    def stop(self) -> None:
        """Stop serving and join the thread."""
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests"}
_REASONS |= {500: "Internal Server Error", 503: "Service Unavailable"}


async def _send(
    writer: asyncio.StreamWriter, status: int, body: bytes, extra: dict[str, str] | None = None
) -> None:
    head = [
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: keep-alive",
        *(f"{k}: {v}" for k, v in (extra or {}).items()),
    ]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
    await writer.drain()


def main() -> None:
    """Serve until interrupted; print the base URL once listening."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--retry-after", type=float, default=0.2)
    parser.add_argument("--hang-s", type=float, default=2.0)
    args = parser.parse_args()
    server = FaultServer(
        fault_rate=args.fault_rate,
        seed=args.seed,
        retry_after=args.retry_after,
        hang_s=args.hang_s,
        port=args.port,
    ).start()
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
