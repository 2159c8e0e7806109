"""GGUF files (llama.cpp, Ollama, LM Studio) run in-process through llama-cpp-python.

``gguf:FILE`` loads a GGUF file; ``gguf:smollm2`` is the bundled SmolLM2 as shipped (Q4_1).
Prompts are tokenised and truncated as the ``hf`` backend does (lm-eval's rules): greedy
generation stops at an end-of-generation token, a stop string or ``max_new_tokens``; choice
scoring sums each continuation's token log-probabilities after the prompt. llama.cpp keeps one
key/value cache: each sequence reuses the longest prefix it shares with the one evaluated before
(requests are sorted by tokens first), so a prompt is evaluated once for all its choices and a
few-shot prefix once for a whole batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import itertools
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from llama_cpp import Llama, llama_chat_format, llama_cpp

from relreason.errors import UsageError
from relreason.models.base import ModelBackend, chat_messages, cut_at_stop
from relreason.models.llama_check import check_build
from relreason.models.lm_eval_rules import lm_eval_context, lm_eval_continuation, prompt_ids
from relreason.models.options import ModelOptions
from relreason.types import ChoiceRequest, GenerationRequest, Response, Turn, Usage

LOGPROB_POSITIONS = 5
"""How many first generated positions get a ``top_logprobs`` entry (as ``hf``)."""
BUNDLED = "smollm2"


class GGUFBackend(ModelBackend):
    """A GGUF model in llama.cpp, on the CPU.

    ``n_ctx`` is the context length (default: the model's training context, as ``hf`` takes
    its config's); ``threads`` llama.cpp's threads, for single-token steps and prompt batches
    alike (None: every CPU this process may run on, :func:`cpu_threads`). ``model_name`` and
    ``revision`` override what ``describe()`` reports (the bundled model). Raises
    ``UsageError`` when the file cannot be loaded (with llama.cpp's own reason), when the
    installed llama-cpp-python build crashes on this CPU (``llama_check``: with the command
    that rebuilds it) or when an option is bad.
    """

    def __init__(
        self,
        path: str,
        *,
        spec: str | None = None,
        chat_template: bool = False,
        n_ctx: int | None = None,
        threads: int | None = None,
        batch_size: int = 16,
        seed: int = 0,
        model_name: str | None = None,
        revision: str | None = None,
    ) -> None:
        for label, value in (("n_ctx", n_ctx), ("threads", threads), ("batch_size", batch_size)):
            if value is not None and value < 1:
                raise UsageError(f"{label} must be at least 1, got {value}")
        file = Path(path)
        if not file.is_file():
            raise UsageError(f"GGUF file not found: {path}")
        check_build(file)
        n_threads = threads or cpu_threads()
        with _llama_errors() as said:
            try:
                self.llm = Llama(
                    str(file),
                    n_ctx=n_ctx or 0,
                    n_threads=n_threads,
                    n_threads_batch=n_threads,
                    seed=seed,
                    logits_all=False,
                    verbose=False,
                )
            except (ValueError, RuntimeError) as exc:
                reason = said[0] if said else str(exc)  # the first error is the cause
                raise UsageError(f"cannot load GGUF file {path}: llama.cpp says: {reason}") from exc
        self.spec = spec or f"gguf:{path}"
        self.path = file
        self.batch_size = batch_size
        self.chat_template = chat_template
        self.threads = threads
        self.n_ctx = int(self.llm.n_ctx())
        self.model_name = model_name or file.name
        self.revision = revision
        self._vocab = llama_cpp.llama_model_get_vocab(self.llm.model)
        self._n_vocab = int(self.llm.n_vocab())
        bos, eos = int(self.llm.token_bos()), int(self.llm.token_eos())
        self._empty_prefix = bos if bos >= 0 else eos
        self._last: tuple[int, np.ndarray] | None = None  # (n_tokens, log-probs there)
        self._lock = threading.Lock()
        self._formatter = self._chat_formatter() if chat_template else None

    def _chat_formatter(self) -> llama_chat_format.Jinja2ChatFormatter:
        template = self.llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise UsageError(f"model {self.path} has no chat template; drop chat_template")
        bos, eos = self.llm.token_bos(), self.llm.token_eos()
        return llama_chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=self._piece(eos, special=True) if eos >= 0 else "",
            bos_token=self._piece(bos, special=True) if bos >= 0 else "",
        )

    def describe(self) -> Mapping[str, Any]:
        """Return the backend's identity and every option that can change an output."""
        return {
            "backend": "gguf",
            "spec": self.spec,
            "model": self.model_name,
            "revision": self.revision,
            "file_size": self.path.stat().st_size,
            "chat_template": self.chat_template,
            "n_ctx": self.n_ctx,
            "batch_size": self.batch_size,
        }

    def sent_as(self, prompt: str, chat: tuple[Turn, ...] = ()) -> Any:
        """The chat-templated text when ``chat_template`` is on, else None (sent as is)."""
        return self.render(prompt, chat) if self.chat_template else None

    def render(self, prompt: str, chat: tuple[Turn, ...] = ()) -> str:
        """Return the text the model sees for ``prompt`` (chat-wrapped when chat_template,
        as the conversation ``chat`` when given)."""
        if self._formatter is None:
            return prompt
        messages: Any = chat_messages(prompt, chat)
        return str(self._formatter(messages=messages).prompt)

    def encode(self, text: str, *, special: bool | None = None) -> list[int]:
        """Token ids of ``text``: the model's BOS when it adds one, except on chat text (as hf)."""
        bos = (not self.chat_template) if special is None else special
        if not text:
            return []
        return list(self.llm.tokenize(text.encode("utf-8"), add_bos=bos, special=True))

    def _piece(self, token: int, *, special: bool = False) -> str:
        return bytes(self.llm.detokenize([token], special=special)).decode("utf-8", "replace")

    async def generate(self, requests: Sequence[GenerationRequest]) -> list[Response]:
        """Continue each prompt as text; one response per request."""
        return await asyncio.to_thread(self._run, list(requests), self._generate_one)

    async def score_choices(self, requests: Sequence[ChoiceRequest]) -> list[Response]:
        """Return each request's continuation log-likelihoods (lm-eval style sums)."""
        return await asyncio.to_thread(self._run, list(requests), self._score_one)

    def _run(self, requests: list[Any], one: Any) -> list[Response]:
        """Run ``one`` on each request, sorted by prompt so neighbours share prefixes."""
        started = time.perf_counter()
        responses: list[Response] = [Response()] * len(requests)
        order = sorted(
            range(len(requests)), key=lambda i: self.render(requests[i].prompt, requests[i].chat)
        )
        with self._lock:
            for i in order:
                try:
                    responses[i] = one(requests[i])
                except (ValueError, RuntimeError) as exc:
                    responses[i] = Response(error=f"{type(exc).__name__}: {exc}")
        elapsed = (time.perf_counter() - started) / max(len(requests), 1)
        return [
            Response(
                text=r.text,
                top_logprobs=r.top_logprobs,
                choice_logprobs=r.choice_logprobs,
                usage=r.usage,
                latency_s=elapsed,
                error=r.error,
            )
            for r in responses
        ]

    # ------------------------------------------------------------------ the key/value cache

    def _advance(self, tokens: list[int]) -> np.ndarray:
        """Log-probabilities of the token after ``tokens``, reusing the cached shared prefix."""
        llm = self.llm
        n = llm.n_tokens
        shared = 0
        limit = min(n, len(tokens))
        current = llm.input_ids
        while shared < limit and current[shared] == tokens[shared]:
            shared += 1
        if shared == len(tokens) == n and self._last is not None and self._last[0] == n:
            return self._last[1]
        llm.n_tokens = min(shared, len(tokens) - 1)
        return self._eval(tokens[llm.n_tokens :])

    def _eval(self, tokens: Sequence[int]) -> np.ndarray:
        """Evaluate ``tokens`` after the cached ones; the log-probabilities after the last."""
        self._last = None
        self.llm.eval(tokens)
        pointer = llama_cpp.llama_get_logits_ith(self.llm.ctx, -1)
        logits = np.ctypeslib.as_array(pointer, shape=(self._n_vocab,)).astype(np.float64)
        top = logits.max()
        logprobs: np.ndarray = logits - (top + np.log(np.exp(logits - top).sum()))
        self._last = (self.llm.n_tokens, logprobs)
        return logprobs

    # ------------------------------------------------------------------ choice scoring

    def _score_one(self, req: ChoiceRequest) -> Response:
        """The log-likelihood of each continuation, as ``hf`` computes it (lm-eval's rules):
        the context's trailing whitespace moves onto the continuation; the input is
        ``(context + continuation)[:-1]`` cut from the left to the context length."""
        stripped, moved, ctx = lm_eval_context(self, req, self._empty_prefix)
        scores: dict[str, float] = {}
        for label, cont in req.continuations.items():
            cont_ids = lm_eval_continuation(self, stripped, moved, ctx, cont)
            if not cont_ids:
                raise ValueError("the continuation adds no token to the prompt")
            if len(cont_ids) > self.n_ctx:
                raise ValueError(f"the continuation has {len(cont_ids)} tokens, over {self.n_ctx}")
            row = (ctx + cont_ids)[:-1][-self.n_ctx :]
            head = row[: len(row) - len(cont_ids) + 1]
            logprobs = self._advance(head)
            total = float(logprobs[cont_ids[0]])
            for previous, token in itertools.pairwise(cont_ids):
                total += float(self._eval([previous])[token])
            scores[label] = total
        return Response(choice_logprobs=scores, usage=Usage(prompt_tokens=len(ctx)))

    # ------------------------------------------------------------------ generation

    def _generate_one(self, req: GenerationRequest) -> Response:
        """Greedy (or seeded sampled) continuation of one prompt, as ``hf`` generates it."""
        params = req.params
        ids = prompt_ids(self, req, self.n_ctx, self._empty_prefix, "the context length")
        rng = np.random.default_rng(params.seed if params.seed is not None else 0)
        logprobs = self._advance(ids)
        kept: list[int] = []
        top: list[dict[str, float]] = []
        produced = 0
        text = ""
        while produced < params.max_new_tokens:
            if params.top_logprobs > 0 and produced < LOGPROB_POSITIONS:
                top.append(self._top(logprobs, params.top_logprobs))
            token = self._pick(logprobs, params.temperature, rng)
            produced += 1
            if llama_cpp.llama_vocab_is_eog(self._vocab, token):
                break
            kept.append(token)
            text = bytes(self.llm.detokenize(kept)).decode("utf-8", "ignore")
            if any(s and s in text for s in params.stop) or produced == params.max_new_tokens:
                break
            logprobs = self._eval([token])
        return Response(
            text=cut_at_stop(text, params.stop),
            top_logprobs=tuple(top) if top else None,
            usage=Usage(len(ids), produced),
        )

    def _pick(self, logprobs: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
        if temperature <= 0:
            return int(np.argmax(logprobs))
        scaled = logprobs / temperature
        probs = np.exp(scaled - scaled.max())
        return int(rng.choice(len(probs), p=probs / probs.sum()))

    def _top(self, logprobs: np.ndarray, k: int) -> dict[str, float]:
        """Top-``k`` token text -> log-prob (the first of tokens with the same text wins)."""
        entry: dict[str, float] = {}
        for tid in np.argsort(-logprobs, kind="stable")[:k]:
            entry.setdefault(self._piece(int(tid), special=True), float(logprobs[tid]))
        return entry

    async def aclose(self) -> None:
        """Forget the cached sequence (the runner closes a backend after each run, and it may
        be used again); the model and context are freed with the backend."""
        with self._lock:
            self.llm.n_tokens = 0  # what Llama.reset() does
            self._last = None


def cpu_threads() -> int:
    """The CPUs this process may run on: ``gguf:``'s threads when none are given, as torch
    (``hf:``) takes every core. llama-cpp-python's own default gives single-token steps
    (generation, and scoring a prompt one token past the one before) half the CPUs: one of
    two on a 2-core machine."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # pragma: no cover - no affinity outside Linux
        return os.cpu_count() or 1


@contextlib.contextmanager
def _llama_errors() -> Iterator[list[str]]:
    """llama.cpp's error lines while the block runs (``verbose=False`` sends them nowhere):
    its own reason a file does not load, e.g. ``invalid magic characters``. Levels are ggml's
    ``ggml_log_level``: 4 is ERROR, 5 continues the line before."""
    said: list[str] = []
    last = [0]

    def keep(level: int, text: bytes, _: ctypes.c_void_p) -> None:
        if level == 4 or (level == 5 and last[0] == 4):
            line = text.decode("utf-8", "replace").strip()
            if line:
                said.append(line)
        last[0] = level if level != 5 else last[0]

    callback = llama_cpp.llama_log_callback(keep)  # kept referenced while it is set
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
    try:
        yield said
    finally:
        from llama_cpp import _logger

        llama_cpp.llama_log_set(_logger.llama_log_callback, ctypes.c_void_p(0))


def build(name: str, spec: str, options: ModelOptions) -> GGUFBackend:
    """Registry factory: ``gguf:FILE``, or ``gguf:smollm2`` for the bundled SmolLM2 GGUF."""
    kwargs: dict[str, Any] = {
        "spec": spec,
        "chat_template": options.chat_template,
        "n_ctx": options.max_model_len,
        "threads": options.threads,
        "seed": options.seed,
    }
    if options.batch_size is not None:
        kwargs["batch_size"] = options.batch_size
    if name == BUNDLED and not Path(name).exists():
        from relreason.models import smollm2

        kwargs["model_name"] = f"{smollm2.DISTRIBUTION}/{smollm2.GGUF_NAME}"
        kwargs["revision"] = smollm2.bundled_revision()
        return GGUFBackend(str(smollm2.gguf_path()), **kwargs)
    return GGUFBackend(name, **kwargs)
