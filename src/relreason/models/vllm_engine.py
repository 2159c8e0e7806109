"""One in-process vLLM engine (``vllm.LLM``): requests in, responses out, synchronously.

Prompts are tokenised here with the model's Hugging Face tokenizer exactly as the ``hf``
backend tokenises them (lm-eval's rules) and handed to vLLM as token ids, so the three local
engines see the same tokens. Automatic prefix caching is on. Choice scoring: when every
continuation is one token after the same context (a choice letter), one request per prompt
asks for the log-probabilities of just those tokens at the first generated position, which
reads the prefix cache; otherwise each continuation is one request with prompt
log-probabilities (which vLLM computes without reading the cache, to have every position).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from relreason.models.base import chat_messages, cut_at_stop
from relreason.models.lm_eval_rules import lm_eval_context, lm_eval_continuation, prompt_ids
from relreason.types import (
    ChoiceRequest,
    GenerationParams,
    GenerationRequest,
    Response,
    Turn,
    Usage,
)

LOGPROB_POSITIONS = 5
"""How many first generated positions get a ``top_logprobs`` entry (as ``hf``)."""


@dataclass(frozen=True)
class EngineSettings:
    """How the engine is built (picklable: data-parallel workers build theirs from it)."""

    dtype: str = "auto"
    chat_template: bool = False
    max_model_len: int | None = None
    tensor_parallel_size: int = 1
    gpu_memory_utilization: float | None = None
    enforce_eager: bool = False
    seed: int = 0


class VLLMEngine:
    """A ``vllm.LLM`` with prefix caching, and relreason's two operations on top of it."""

    def __init__(self, model: str, settings: EngineSettings) -> None:
        from vllm import LLM

        kwargs: dict[str, Any] = {
            "model": model,
            "dtype": settings.dtype,
            "tensor_parallel_size": settings.tensor_parallel_size,
            "seed": settings.seed,
            "enable_prefix_caching": True,
            "enforce_eager": settings.enforce_eager,
        }
        if settings.max_model_len is not None:
            kwargs["max_model_len"] = settings.max_model_len
        if settings.gpu_memory_utilization is not None:
            kwargs["gpu_memory_utilization"] = settings.gpu_memory_utilization
        self.llm = _start(LLM, kwargs)
        self.settings = settings
        self.tokenizer: Any = self.llm.get_tokenizer()
        self.max_model_len = int(self.llm.llm_engine.model_config.max_model_len)
        if settings.chat_template and not getattr(self.tokenizer, "chat_template", None):
            raise ValueError(f"model {model!r} has no chat template; drop chat_template")
        bos = self.tokenizer.bos_token_id
        self._empty_prefix: int = bos if bos is not None else self.tokenizer.eos_token_id

    def render(self, prompt: str, chat: tuple[Turn, ...] = ()) -> str:
        """Return the text the model sees for ``prompt`` (chat-wrapped when chat_template,
        as the conversation ``chat`` when given)."""
        if not self.settings.chat_template:
            return prompt
        messages = chat_messages(prompt, chat)
        text = self.tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True
        )
        return str(text)

    def render_pair(self, pair: tuple[str, tuple[Turn, ...]]) -> str:
        """:meth:`render` of a (prompt, chat) pair (a worker process's one-payload call)."""
        return self.render(*pair)

    def encode(self, text: str, *, special: bool | None = None) -> list[int]:
        """Token ids of ``text`` as the ``hf`` backend encodes them."""
        if special is None:
            special = not self.settings.chat_template
        return list(self.tokenizer(text, add_special_tokens=special)["input_ids"])

    # ------------------------------------------------------------------ generation

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Response]:
        """Greedy (or seeded sampled) continuations; one response per request."""
        from vllm import SamplingParams, TokensPrompt

        responses: dict[int, Response] = {}
        prompts: list[Any] = []
        params: list[Any] = []
        owners: list[int] = []
        for i, req in enumerate(requests):
            length = self.max_model_len
            try:
                ids = prompt_ids(self, req, length, self._empty_prefix, "max_model_len")
            except ValueError as exc:
                responses[i] = Response(error=str(exc))
                continue
            prompts.append(TokensPrompt(prompt_token_ids=ids))
            params.append(SamplingParams(**_sampling(req.params)))
            owners.append(i)
        if prompts:
            outputs = self.llm.generate(prompts, params, use_tqdm=False)
            for i, out in zip(owners, outputs, strict=True):
                responses[i] = self._generated(requests[i].params, out)
        return [responses[i] for i in range(len(requests))]

    def _generated(self, params: GenerationParams, out: Any) -> Response:
        completion = out.outputs[0]
        top = None
        if params.top_logprobs > 0 and completion.logprobs:
            top = tuple(
                self._top(position, params.top_logprobs)
                for position in completion.logprobs[:LOGPROB_POSITIONS]
            )
        return Response(
            text=cut_at_stop(completion.text, params.stop),
            top_logprobs=top,
            usage=Usage(len(out.prompt_token_ids), len(completion.token_ids)),
        )

    def _top(self, position: Mapping[int, Any], k: int) -> dict[str, float]:
        """Top-``k`` token text -> log-prob (the first of tokens with the same text wins)."""
        ranked = sorted(position.items(), key=lambda item: -float(item[1].logprob))[:k]
        entry: dict[str, float] = {}
        for tid, logprob in ranked:
            entry.setdefault(self.tokenizer.decode([tid]), float(logprob.logprob))
        return entry

    # ------------------------------------------------------------------ choice scoring

    def score(self, requests: Sequence[ChoiceRequest]) -> list[Response]:
        """Each request's continuation log-likelihoods (lm-eval style sums)."""
        from vllm import SamplingParams, TokensPrompt

        errors: dict[int, str] = {}
        jobs: list[tuple[int, str | None, list[int], list[int]]] = []  # owner, label, ids, cont
        prompt_tokens: dict[int, int] = {}
        all_conts: dict[int, dict[str, list[int]]] = {}
        for i, req in enumerate(requests):
            try:
                ctx, conts = self._choice_tokens(req)
            except ValueError as exc:
                errors[i] = str(exc)
                continue
            prompt_tokens[i], all_conts[i] = len(ctx), conts
            if all(len(c) == 1 for c in conts.values()):
                jobs.append((i, None, ctx[-(self.max_model_len - 1) :], []))
                continue
            for label, cont in conts.items():
                jobs.append((i, label, (ctx + cont)[-self.max_model_len :], cont))
        prompts = [TokensPrompt(prompt_token_ids=ids) for _, _, ids, _ in jobs]
        params = []
        for owner, job_label, _, _ in jobs:
            if job_label is None:
                wanted = sorted({c[0] for c in all_conts[owner].values()})
                params.append(SamplingParams(max_tokens=1, temperature=0, logprob_token_ids=wanted))
            else:
                params.append(SamplingParams(max_tokens=1, temperature=0, prompt_logprobs=0))
        scores: dict[int, dict[str, float]] = {i: {} for i in range(len(requests))}
        outputs = self.llm.generate(prompts, params, use_tqdm=False) if prompts else []
        for (owner, job_label, ids, cont), out in zip(jobs, outputs, strict=True):
            if job_label is None:
                first = out.outputs[0].logprobs[0]
                for name, tokens in all_conts[owner].items():
                    scores[owner][name] = float(first[tokens[0]].logprob)
            else:
                rows = out.prompt_logprobs[len(ids) - len(cont) :]
                total = sum(float(row[t].logprob) for row, t in zip(rows, cont, strict=True))
                scores[owner][job_label] = total
        responses = []
        for i, req in enumerate(requests):
            if i in errors:
                responses.append(Response(error=errors[i]))
                continue
            ordered = {label: scores[i][label] for label in req.continuations}
            responses.append(
                Response(choice_logprobs=ordered, usage=Usage(prompt_tokens=prompt_tokens[i]))
            )
        return responses

    def _choice_tokens(self, req: ChoiceRequest) -> tuple[list[int], dict[str, list[int]]]:
        """Context ids and each continuation's ids, by lm-eval's rules (as ``hf``)."""
        stripped, moved, ctx = lm_eval_context(self, req, self._empty_prefix)
        conts: dict[str, list[int]] = {}
        for label, cont in req.continuations.items():
            ids = lm_eval_continuation(self, stripped, moved, ctx, cont)
            if not ids:
                raise ValueError(f"continuation {label!r} adds no token to the prompt")
            if len(ids) >= self.max_model_len:
                raise ValueError(f"continuation {label!r} is over max_model_len")
            conts[label] = ids
        return ctx, conts


def _start(make: Any, kwargs: dict[str, Any]) -> Any:
    """``make(**kwargs)``, its output copied on and kept; a failure becomes a ``RuntimeError``
    with the engine's own reason (from the log its engine process printed when the exception
    says only "see root cause above")."""
    from relreason.models.engine_log import TeeOutput, root_cause

    tee = TeeOutput()
    try:
        with tee:
            return make(**kwargs)
    except Exception as exc:
        said = f"{type(exc).__name__}: {exc}"
        cause = root_cause(tee.lines()) if "root cause above" in said else None
        raise RuntimeError(cause or said) from exc


def _sampling(params: GenerationParams) -> dict[str, Any]:
    """vLLM ``SamplingParams`` keywords for relreason's generation parameters."""
    return {
        "max_tokens": params.max_new_tokens,
        "temperature": params.temperature,
        "seed": params.seed if params.temperature > 0 else None,
        "stop": list(params.stop) or None,
        "logprobs": params.top_logprobs or None,
        "skip_special_tokens": True,
    }
