"""Local Hugging Face transformers models (causal or seq2seq) as a relreason backend.

Prompts go to the model raw by default, as lm-eval's ``hf`` model sends them (no special tokens
added to causal prompts); ``chat_template=True`` wraps each prompt as one user message. Choice
scoring follows lm-eval's log-likelihood computation; see ``hf.choices`` for batching and the
shared-prefix cache, ``hf.generate`` for generation.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

from relreason.errors import UsageError
from relreason.models.base import ModelBackend, chat_messages, with_latency
from relreason.models.devices import check_device
from relreason.models.hf.choices import (
    CausalScorer,
    PrefixCache,
    Row,
    Seq2SeqScorer,
    causal_rows,
    run_rows,
)
from relreason.models.hf.generate import generate_batch
from relreason.models.hf.tree_scorer import PrefixTreeScorer
from relreason.models.lm_eval_rules import lm_eval_context, prompt_ids
from relreason.models.options import ModelOptions, resolve_device
from relreason.types import (
    ChoiceRequest,
    GenerationParams,
    GenerationRequest,
    Response,
    Turn,
    Usage,
)

DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "auto": "auto",
}
_UNSET_MAX_LENGTH = 1000000000000000019884624838656  # transformers' "no limit" sentinel
DEFAULT_MAX_LENGTH = 2048
# A request's prompt and continuations: rows prepare_choices tokenised are kept under it.
_RequestKey = tuple[str, tuple[tuple[str, str], ...], tuple[Turn, ...]]


class HFBackend(ModelBackend):
    """A transformers model run locally on ``device``.

    ``batch_size`` rows go through the model at once; ``prefix_cache`` reuses the key/value
    cache of the prompt prefix that a batch (and consecutive batches) share; ``threads`` sets
    torch's intra-op threads (None keeps torch's default, one per physical core).
    ``revision``/``model_name`` override what ``describe()`` reports (the bundled model).
    Raises ``UsageError`` when the model or tokenizer cannot be loaded or an option is bad.
    """

    def __init__(
        self,
        name_or_path: str,
        *,
        spec: str | None = None,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 8,
        chat_template: bool = False,
        max_length: int | None = None,
        prefix_cache: bool = True,
        threads: int | None = None,
        revision: str | None = None,
        model_name: str | None = None,
    ) -> None:
        if dtype not in DTYPES:
            raise UsageError(f"unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}")
        if batch_size < 1:
            raise UsageError(f"batch_size must be at least 1, got {batch_size}")
        if max_length is not None and max_length < 2:
            raise UsageError(f"max_length must be at least 2, got {max_length}")
        if threads is not None:
            if threads < 1:
                raise UsageError(f"threads must be at least 1, got {threads}")
            torch.set_num_threads(threads)
        check_device(device)  # before loading: a device this machine lacks is refused now
        self._device = torch.device(resolve_device(device))
        self.spec = spec or f"hf:{name_or_path}"
        self.name_or_path = name_or_path
        self.batch_size = batch_size
        self.chat_template = chat_template
        self.dtype = dtype
        self._lock = threading.Lock()
        self._load(name_or_path, DTYPES[dtype])
        self.max_length = max_length or self._default_max_length()
        self.revision = revision or getattr(self.config, "_commit_hash", None)
        self.model_name = model_name or name_or_path
        if chat_template and not getattr(self.tokenizer, "chat_template", None):
            raise UsageError(f"model {name_or_path!r} has no chat template; drop chat_template")
        self.prefix = PrefixCache() if prefix_cache and self._prefix_supported() else None
        self._scorer: CausalScorer | Seq2SeqScorer = (
            Seq2SeqScorer(self.model, self.pad_id)
            if self.encoder_decoder
            else CausalScorer(self.model, self.pad_id, self.prefix)
        )
        # With the prefix cache on, causal rows go through a prefix tree (hf.tree_scorer).
        self._tree = (
            PrefixTreeScorer(
                self.model,
                batch_size,
                self.pad_id,
                prefix_stats=self.prefix.stats,
                on_progress=self.report_work,
            )
            if self.prefix is not None
            else None
        )
        self._prepared_rows: dict[_RequestKey, list[tuple[list[Row], int]]] = {}

    def _load(self, name_or_path: str, dtype: Any) -> None:
        try:
            self.config = AutoConfig.from_pretrained(name_or_path)
            self.tokenizer = AutoTokenizer.from_pretrained(name_or_path)
            self.encoder_decoder = bool(getattr(self.config, "is_encoder_decoder", False))
            auto = AutoModelForSeq2SeqLM if self.encoder_decoder else AutoModelForCausalLM
            model: Any = auto.from_pretrained(name_or_path, dtype=dtype)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:  # transformers' reason
            raise UsageError(f"cannot load model {name_or_path!r}: {exc}") from exc
        self.model = model.to(self._device).eval()
        tok = self.tokenizer
        eos = self.model.generation_config.eos_token_id
        eos_ids = eos if isinstance(eos, list) else [eos] if eos is not None else []
        if tok.eos_token_id is not None and tok.eos_token_id not in eos_ids:
            eos_ids.append(tok.eos_token_id)
        self.eos_ids: list[int] = eos_ids
        pad = tok.pad_token_id if tok.pad_token_id is not None else (eos_ids or [0])[0]
        self.pad_id: int = pad
        start = tok.bos_token_id if tok.bos_token_id is not None else (eos_ids or [pad])[0]
        self._empty_prefix: int = start

    def _default_max_length(self) -> int:
        """lm-eval's rule: the model config's context size, else the tokenizer's, else 2048."""
        for attr in ("n_positions", "max_position_embeddings", "n_ctx"):
            value = getattr(self.config, attr, None)
            if isinstance(value, int) and value > 0:
                return value
        limit = getattr(self.tokenizer, "model_max_length", _UNSET_MAX_LENGTH)
        return DEFAULT_MAX_LENGTH if limit >= _UNSET_MAX_LENGTH else int(limit)

    def _prefix_supported(self) -> bool:
        """Prefix reuse is exact only for causal models whose every layer attends to all tokens."""
        if self.encoder_decoder or getattr(self.config, "sliding_window", None):
            return False
        layer_types = getattr(self.config, "layer_types", None) or ["full_attention"]
        return all(t == "full_attention" for t in layer_types)

    def describe(self) -> Mapping[str, Any]:
        """Return the backend's identity and every option that can change an output."""
        return {
            "backend": "hf",
            "spec": self.spec,
            "model": self.model_name,
            "revision": self.revision,
            "architecture": "seq2seq" if self.encoder_decoder else "causal",
            "dtype": self.dtype,
            "device": str(self._device),
            "chat_template": self.chat_template,
            "batch_size": self.batch_size,
            "max_length": self.max_length,
            "prefix_cache": self.prefix is not None,
        }

    def sent_as(self, prompt: str, chat: tuple[Turn, ...] = ()) -> Any:
        """The chat-templated text when ``chat_template`` is on, else None (sent as is)."""
        return self.render(prompt, chat) if self.chat_template else None

    def render(self, prompt: str, chat: tuple[Turn, ...] = ()) -> str:
        """Return the text the model sees for ``prompt`` (chat-wrapped when chat_template,
        as the conversation ``chat`` when given)."""
        if not self.chat_template:
            return prompt
        messages = chat_messages(prompt, chat)
        text = self.tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True
        )
        return str(text)

    def encode(self, text: str, *, special: bool | None = None) -> list[int]:
        """Return the token ids of ``text`` as lm-eval's ``hf`` model encodes them.

        By default the tokenizer adds its usual special tokens (a BOS for Llama, T5's closing
        ``</s>``, nothing for SmolLM2), except on chat-templated text, which already holds them.
        """
        if special is None:
            special = not self.chat_template
        return list(self.tokenizer(text, add_special_tokens=special)["input_ids"])

    async def generate(self, requests: Sequence[GenerationRequest]) -> list[Response]:
        """Continue each prompt as text (see ``hf.generate``); one response per request."""
        return await asyncio.to_thread(self._generate_sync, list(requests))

    async def score_choices(self, requests: Sequence[ChoiceRequest]) -> list[Response]:
        """Return each request's continuation log-likelihoods (lm-eval style sums)."""
        return await asyncio.to_thread(self._score_sync, list(requests))

    def _generate_sync(self, requests: list[GenerationRequest]) -> list[Response]:
        started = time.perf_counter()
        responses: list[Response | None] = [None] * len(requests)
        groups: dict[GenerationParams, list[tuple[int, list[int]]]] = {}
        for i, req in enumerate(requests):
            try:
                ids = prompt_ids(self, req, self.max_length, self._empty_prefix, "max_length")
            except ValueError as exc:
                responses[i] = Response(error=str(exc))
                continue
            groups.setdefault(req.params, []).append((i, ids))
        with self._lock:
            for params, members in groups.items():
                members.sort(key=lambda m: -len(m[1]))
                for start in range(0, len(members), self.batch_size):
                    chunk = members[start : start + self.batch_size]
                    self._generate_chunk(params, chunk, responses)
        elapsed = (time.perf_counter() - started) / max(len(requests), 1)
        return [with_latency(r, elapsed) for r in responses]

    def _generate_chunk(
        self,
        params: GenerationParams,
        chunk: list[tuple[int, list[int]]],
        responses: list[Response | None],
    ) -> None:
        try:
            outs = generate_batch(
                self.model,
                self.tokenizer,
                [ids for _, ids in chunk],
                params,
                encoder_decoder=self.encoder_decoder,
                eos_ids=self.eos_ids,
                pad_id=self.pad_id,
                on_step=self.report_work,
            )
        except (RuntimeError, ValueError) as exc:
            for i, _ in chunk:
                responses[i] = Response(error=f"generation failed: {type(exc).__name__}: {exc}")
            return
        for (i, _), out in zip(chunk, outs, strict=True):
            responses[i] = Response(
                text=out.text,
                top_logprobs=out.top_logprobs,
                usage=Usage(out.prompt_tokens, out.completion_tokens),
            )

    def _rows_for(self, owner: int, req: ChoiceRequest) -> tuple[list[Row], int]:
        """The rows scoring one request and its prompt token count; ValueError if unscorable.

        As lm-eval: the context's trailing whitespace moves onto the continuation; an empty
        context becomes the BOS (else EOS) token; seq2seq continuations get no special tokens.
        """
        stripped, moved, ctx = lm_eval_context(self, req, self._empty_prefix)
        if self.encoder_decoder:
            ctx = ctx[-self.max_length :]
            rows = []
            for label, cont in req.continuations.items():
                cont_ids = self.encode(moved + cont, special=False)[-self.max_length :]
                if not cont_ids:
                    raise ValueError(f"continuation {label!r} has no tokens")
                rows.append(Row(owner, ctx, {label: cont_ids}))
            return rows, len(ctx)
        pairs = {
            label: self.encode(stripped + moved + cont)
            if stripped
            else ctx + self.encode(moved + cont, special=False)
            for label, cont in req.continuations.items()
        }
        return causal_rows(owner, ctx, pairs, self.max_length), len(ctx)

    def _score_sync(self, requests: list[ChoiceRequest]) -> list[Response]:
        started = time.perf_counter()
        errors: dict[int, str] = {}
        rows: list[Row] = []
        prompt_tokens: dict[int, int] = {}
        for i, req in enumerate(requests):
            try:
                new_rows, prompt_tokens[i] = self._prepared_or_new_rows(i, req)
            except ValueError as exc:
                errors[i] = str(exc)
                continue
            rows.extend(new_rows)
        scores: dict[int, dict[str, float]] = {i: {} for i in range(len(requests))}
        with self._lock:
            try:
                if self._tree is not None:
                    results = self._tree.score(rows)
                else:
                    results = run_rows(self._scorer, rows, self.batch_size)
                for row, result in zip(rows, results, strict=True):
                    scores[row.owner].update(result)
            except RuntimeError as exc:
                for row in rows:
                    errors[row.owner] = f"scoring failed: {type(exc).__name__}: {exc}"
        elapsed = (time.perf_counter() - started) / max(len(requests), 1)
        responses = []
        for i, req in enumerate(requests):
            if i in errors:
                responses.append(Response(error=errors[i], latency_s=elapsed))
                continue
            ordered = {label: scores[i][label] for label in req.continuations}
            responses.append(
                Response(
                    choice_logprobs=ordered,
                    usage=Usage(prompt_tokens=prompt_tokens[i]),
                    latency_s=elapsed,
                )
            )
        return responses

    async def prepare_choices(self, requests: Sequence[ChoiceRequest]) -> bool:
        """Score all of a task's choice requests at once, ahead of time (the hook of
        ``ModelBackend.prepare_choices``; True: prepared, False: no prefix tree here).

        The whole task's rows go through one prefix tree; the results and the tokenised rows
        are kept until ``score_choices`` asks for the same request (they are then served from
        memory, not tokenised again, and dropped). Without the hook each ``score_choices``
        call is a tree of its own. Requests that cannot be scored are skipped here
        (``score_choices`` reports them); a model error only drops the prepared results.
        """
        return await asyncio.to_thread(self._prepare_sync, list(requests))

    def _prepare_sync(self, requests: list[ChoiceRequest]) -> bool:
        if self._tree is None:
            return False
        rows: list[Row] = []
        for i, req in enumerate(requests):
            try:
                new_rows, prompt_tokens = self._rows_for(i, req)
            except ValueError:
                continue
            rows.extend(new_rows)
            self._prepared_rows.setdefault(_request_key(req), []).append((new_rows, prompt_tokens))
        with self._lock:
            try:
                self._tree.prepare(rows)
            except RuntimeError:
                self._tree.memo.clear()
                self._prepared_rows.clear()
        return True

    def _prepared_or_new_rows(self, owner: int, req: ChoiceRequest) -> tuple[list[Row], int]:
        """``_rows_for``, taking (and dropping) the rows ``prepare_choices`` tokenised."""
        key = _request_key(req)
        waiting = self._prepared_rows.get(key)
        if not waiting:
            return self._rows_for(owner, req)
        rows, prompt_tokens = waiting.pop()
        if not waiting:
            del self._prepared_rows[key]
        return [replace(row, owner=owner) for row in rows], prompt_tokens

    async def aclose(self) -> None:
        """Drop the stored prefix caches (the model itself is freed with the backend)."""
        if self.prefix is not None:
            self.prefix.clear()
        if self._tree is not None:
            self._tree.clear()
        self._prepared_rows.clear()


def _request_key(req: ChoiceRequest) -> _RequestKey:
    """What a request's rows depend on: its prompt and its (label, continuation) pairs."""
    return req.prompt, tuple(req.continuations.items()), req.chat


def local_kwargs(options: ModelOptions) -> dict[str, Any]:
    """The ``HFBackend`` keyword options that ``ModelOptions`` sets."""
    kwargs: dict[str, Any] = {
        "device": options.device,
        "dtype": options.dtype,
        "chat_template": options.chat_template,
    }
    given = {"batch_size": options.batch_size, "threads": options.threads}
    given["max_length"] = options.max_model_len
    kwargs.update({key: value for key, value in given.items() if value is not None})
    return kwargs


def build(name: str, spec: str, options: ModelOptions) -> HFBackend:
    """Registry factory: ``hf:PATH_OR_NAME``."""
    return HFBackend(name, spec=spec, **local_kwargs(options))
