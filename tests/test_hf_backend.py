"""The local transformers backend, on the real bundled SmolLM2 and on real benchmark prompts.

Every log-likelihood is checked against an independent computation: one plain forward pass of
the same model over ``prompt + continuation`` (lm-eval's definition), so batching, left padding
and the shared-prefix cache must not change what is computed.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from relreason.benchmarks.convre.prompts import build_items
from relreason.errors import UsageError
from relreason.models.hf.backend import HFBackend
from relreason.models.hf.choices import common_prefix_len, split_pair
from relreason.models.hf.generate import cut_at_stop
from relreason.types import ChoiceRequest, GenerationParams, GenerationRequest, Response

TOLERANCE = 1e-3
N_ITEMS = 20  # items per setting for the real-model tests
N_LONG = 8  # 6-shot items (about 600 tokens each) where every one is run several ways
N_REFERENCE = 6  # items also recomputed the slow way, one full forward per continuation


# ---------------------------------------------------------------- pure helpers (no model)


@given(st.lists(st.integers(0, 3), max_size=12), st.lists(st.integers(0, 3), max_size=12))
def test_common_prefix_len_is_the_longest_shared_start(a: list[int], b: list[int]) -> None:
    n = common_prefix_len(a, b)
    assert a[:n] == b[:n]
    assert n == min(len(a), len(b)) or a[n] != b[n]


@given(
    st.lists(st.integers(0, 9), min_size=1, max_size=10),
    st.lists(st.integers(0, 9), min_size=1, max_size=5),
    st.integers(2, 20),
)
def test_split_pair_scores_the_continuation_from_the_last_positions(
    context: list[int], cont: list[int], max_length: int
) -> None:
    if len(cont) > max_length:
        with pytest.raises(ValueError, match="max_length"):
            split_pair(context, context + cont, max_length)
        return
    tokens, got = split_pair(context, context + cont, max_length)
    assert got == cont
    assert len(tokens) <= max_length
    assert tokens == (context + cont)[:-1][-max_length:]
    with pytest.raises(ValueError, match="no token"):
        split_pair(context, list(context), max_length)


@given(st.text(alphabet="ab\n.", max_size=30), st.lists(st.sampled_from(["\n", ".", "ab", ""])))
def test_cut_at_stop_keeps_the_text_before_the_first_stop(text: str, stops: list[str]) -> None:
    cut = cut_at_stop(text, stops)
    assert text.startswith(cut)
    assert not any(s and s in cut for s in stops)
    if cut != text:
        assert any(s and text[len(cut) :].startswith(s) for s in stops)


# ---------------------------------------------------------------- the real model


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """SmolLM2 converted into a private cache shared with test_smollm2 (converted once)."""
    from relreason.models.smollm2 import converted_dir

    root = tmp_path_factory.getbasetemp() / "relreason-cache"
    root.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RELREASON_CACHE_DIR", str(root))
        yield converted_dir()


@pytest.fixture(scope="module")
def backend(folder: Path) -> HFBackend:
    return HFBackend(str(folder), batch_size=8)


@pytest.fixture(scope="module")
def unbatched(folder: Path) -> HFBackend:
    return HFBackend(str(folder), batch_size=1)


@pytest.fixture(scope="module")
def convre1(shared_data: Path) -> list[ChoiceRequest]:
    items = build_items("re2text", 1, subset=True, data_dir=shared_data)[::16][:N_ITEMS]
    return [ChoiceRequest(it.prompt, {c: " " + c for c in it.choices}) for it in items]


@pytest.fixture(scope="module")
def convre9(shared_data: Path) -> list[ChoiceRequest]:
    items = build_items("re2text", 9, subset=True, data_dir=shared_data)[::40][:N_LONG]
    return [ChoiceRequest(it.prompt, {c: " " + c for c in it.choices}) for it in items]


def mcr_zero_shot(shared_data: Path, n: int) -> list[tuple[str, list[str]]]:
    """MCR English zero-shot prompts built straight from the official ``main.py``'s formula,
    with their options."""
    questions = json.loads((shared_data / "mcr" / "composition_english.json").read_text())
    result = []
    for q in questions[::79][:n]:
        letters = "ABCDEFG"[: len(q["options"])]
        listed = "".join(f"{L}) {o} " for L, o in zip(letters, q["options"], strict=True))
        x = "Q: " + q["question"].strip() + " Answer choices: " + listed + "\nA:"
        result.append((x + " Among options, the answer is", list(q["options"])))
    return result


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def reference(model_backend: HFBackend, prompt: str, cont: str) -> float:
    """Log-likelihood of ``cont`` after ``prompt`` from one unbatched full forward pass."""
    tok = model_backend.tokenizer
    text = model_backend.render(prompt)
    special = not model_backend.chat_template
    ctx = tok(text, add_special_tokens=special)["input_ids"]
    whole = tok(text + cont, add_special_tokens=special)["input_ids"]
    logprobs = _full_forward(model_backend, tuple(whole[:-1]))
    return float(sum(logprobs[j - 1, whole[j]] for j in range(len(ctx), len(whole))))


_FORWARDS: dict[tuple[int, tuple[int, ...]], torch.Tensor] = {}


def _full_forward(model_backend: HFBackend, tokens: tuple[int, ...]) -> torch.Tensor:
    """Log-softmax of one plain forward pass over ``tokens`` (memoised: the choices of one
    prompt share it when each continuation is a single token)."""
    key = (id(model_backend.model), tokens)
    if key not in _FORWARDS:
        with torch.inference_mode():
            logits = model_backend.model(torch.tensor([tokens])).logits[0].float()
        _FORWARDS[key] = torch.log_softmax(logits, dim=-1)
    return _FORWARDS[key]


def references(b: HFBackend, requests: Sequence[ChoiceRequest]) -> list[dict[str, float]]:
    """The reference log-likelihood of every continuation of every request."""
    return [{k: reference(b, r.prompt, c) for k, c in r.continuations.items()} for r in requests]


def scores(responses: Sequence[Response]) -> list[dict[str, float]]:
    for r in responses:
        assert r.error is None, r.error
        assert r.choice_logprobs is not None
    return [dict(r.choice_logprobs or {}) for r in responses]


def assert_close(a: list[dict[str, float]], b: list[dict[str, float]]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert list(x) == list(y)
        for key in x:
            assert abs(x[key] - y[key]) < TOLERANCE, (key, x[key], y[key])


@pytest.mark.model
def test_convre_choice_scores_match_a_full_forward_pass(
    backend: HFBackend, convre1: list[ChoiceRequest]
) -> None:
    got = scores(run(backend.score_choices(convre1)))
    want = [
        {k: reference(backend, r.prompt, c) for k, c in r.continuations.items()} for r in convre1
    ]
    assert_close(got, want)
    assert all(v < 0 and math.isfinite(v) for s in got for v in s.values())


@pytest.mark.model
def test_batch_size_does_not_change_scores(
    backend: HFBackend, unbatched: HFBackend, convre9: list[ChoiceRequest]
) -> None:
    assert_close(
        scores(run(backend.score_choices(convre9))), scores(run(unbatched.score_choices(convre9)))
    )


@pytest.mark.model
def test_prefix_cache_is_used_and_changes_nothing(
    folder: Path, backend: HFBackend, convre9: list[ChoiceRequest]
) -> None:
    plain = HFBackend(str(folder), batch_size=8, prefix_cache=False)
    assert plain.prefix is None and plain.describe()["prefix_cache"] is False
    assert backend.prefix is not None
    before = backend.prefix.stats.reused_tokens
    cached = scores(run(backend.score_choices(convre9)))
    # Six shots make a prefix of hundreds of tokens shared by every item.
    assert backend.prefix.stats.reused_tokens - before > 300
    assert_close(cached, scores(run(plain.score_choices(convre9))))


@pytest.mark.model
def test_mcr_zero_shot_scores_every_option(backend: HFBackend, shared_data: Path) -> None:
    prompts = mcr_zero_shot(shared_data, N_ITEMS)
    requests = [
        ChoiceRequest(p, {L: " " + L for L in "ABCDEFG"[: len(opts)]}) for p, opts in prompts
    ]
    got = scores(run(backend.score_choices(requests)))
    assert [list(s) for s in got] == [list(r.continuations) for r in requests]
    want = [
        {k: reference(backend, r.prompt, c) for k, c in r.continuations.items()}
        for r in requests[:5]
    ]
    assert_close(got[:5], want)


@pytest.mark.model
def test_multi_token_continuations_match_the_reference(
    backend: HFBackend, unbatched: HFBackend, shared_data: Path
) -> None:
    prompts = mcr_zero_shot(shared_data, 2)
    requests = [
        ChoiceRequest(p, {L: f" {L}) {o}" for L, o in zip("ABCDEFG", opts, strict=False)})
        for p, opts in prompts
    ]
    got = scores(run(backend.score_choices(requests)))
    want = [
        {k: reference(backend, r.prompt, c) for k, c in r.continuations.items()} for r in requests
    ]
    assert_close(got, want)
    assert_close(got, scores(run(unbatched.score_choices(requests))))


@pytest.mark.model
def test_bad_requests_fail_alone(backend: HFBackend, convre1: list[ChoiceRequest]) -> None:
    good = convre1[0]
    out = run(backend.score_choices([ChoiceRequest("x", {}), good, ChoiceRequest("x", {"A": ""})]))
    assert out[0].error and "no continuations" in out[0].error
    assert out[2].error and "empty" in out[2].error
    assert out[1].error is None and out[1].choice_logprobs is not None
    too_long = GenerationParams(max_new_tokens=backend.max_length)
    gen = run(backend.generate([GenerationRequest("x", too_long)]))
    assert gen[0].error and "max_length" in gen[0].error and gen[0].text is None


@pytest.mark.model
def test_generate_returns_text_top_logprobs_and_usage(
    backend: HFBackend, unbatched: HFBackend, convre1: list[ChoiceRequest]
) -> None:
    params = GenerationParams(max_new_tokens=6, top_logprobs=3)
    requests = [GenerationRequest(r.prompt, params) for r in convre1[:6]]
    out = run(backend.generate(requests))
    for req, resp in zip(requests, out, strict=True):
        assert resp.error is None and isinstance(resp.text, str)
        assert resp.usage.prompt_tokens == len(backend.tokenizer(req.prompt)["input_ids"])
        assert 1 <= resp.usage.completion_tokens <= 6
        assert resp.top_logprobs is not None
        assert 1 <= len(resp.top_logprobs) <= min(5, resp.usage.completion_tokens)
        for entry in resp.top_logprobs:
            assert 1 <= len(entry) <= 3 and all(v <= 0 for v in entry.values())
        greedy_first = max(resp.top_logprobs[0], key=lambda t: resp.top_logprobs[0][t])
        assert resp.text.startswith(greedy_first) or not resp.text
    alone = run(unbatched.generate(requests))
    assert [r.text for r in alone] == [r.text for r in out]


@pytest.mark.model
def test_stop_strings_end_the_text(backend: HFBackend) -> None:
    prompt = "List three colours, one per line:\n1."
    free = run(backend.generate([GenerationRequest(prompt, GenerationParams(max_new_tokens=24))]))
    text = free[0].text or ""
    assert "\n" in text, "the model should write several lines here"
    params = GenerationParams(max_new_tokens=24, stop=("\n",))
    stopped = run(backend.generate([GenerationRequest(prompt, params)]))[0]
    assert stopped.text == text.split("\n")[0]
    assert stopped.usage.completion_tokens < free[0].usage.completion_tokens


@pytest.mark.model
def test_chat_template_wraps_the_prompt(
    folder: Path, backend: HFBackend, convre1: list[ChoiceRequest]
) -> None:
    chat = HFBackend(str(folder), batch_size=8, chat_template=True)
    assert chat.describe()["chat_template"] is True
    requests = convre1[:4]
    rendered = chat.render(requests[0].prompt)
    assert rendered.startswith("<|im_start|>") and rendered.endswith("<|im_start|>assistant\n")
    got = scores(run(chat.score_choices(requests)))
    assert_close(got, references(chat, requests))
    raw = scores(run(backend.score_choices(requests)))
    assert any(abs(got[i]["A"] - raw[i]["A"]) > TOLERANCE for i in range(len(requests)))
    chat_out = run(chat.generate([GenerationRequest(requests[0].prompt, GenerationParams(4))]))
    raw_out = run(backend.generate([GenerationRequest(requests[0].prompt, GenerationParams(4))]))
    assert chat_out[0].usage.prompt_tokens > raw_out[0].usage.prompt_tokens


def test_unloadable_model_and_bad_options_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot load model"):
        HFBackend(str(tmp_path / "no-such-model"))
    with pytest.raises(UsageError, match="dtype"):
        HFBackend(str(tmp_path), dtype="float8")
    with pytest.raises(UsageError, match="batch_size"):
        HFBackend(str(tmp_path), batch_size=0)


# ---------------------------------------------------------------- seq2seq


WORDS = ["Q:", "A", "B", "C", "D", "the", "answer", "is", "Among", "options", ",", "?", ".", ")"]
WORDS += ["sky", "blue", "grass", "green", "yes", "no"]


@pytest.fixture(scope="module")
def tiny_t5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny randomly initialised T5 and a word-level tokenizer, saved to a folder.

    It stands in for Flan-T5: no seq2seq weights can be downloaded here and no installable
    package ships any, so the seq2seq path is checked on a real (random) T5 architecture.
    """
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    vocab = {w: i for i, w in enumerate(["<pad>", "</s>", "<unk>", *WORDS])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", special_tokens=[("</s>", 1)]
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="</s>", pad_token="<pad>", unk_token="<unk>"
    )
    torch.manual_seed(0)
    config = T5Config(
        vocab_size=len(vocab),
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=2,
        num_heads=4,
        pad_token_id=0,
        eos_token_id=1,
        decoder_start_token_id=0,
    )
    folder = tmp_path_factory.mktemp("tiny-t5")
    T5ForConditionalGeneration(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def seq2seq_reference(b: HFBackend, prompt: str, cont: str) -> float:
    """lm-eval's seq2seq log-likelihood: encoder = prompt, labels = continuation tokens."""
    ids = b.tokenizer(prompt)["input_ids"]
    labels = b.tokenizer(cont, add_special_tokens=False)["input_ids"]
    with torch.inference_mode():
        out = b.model(input_ids=torch.tensor([ids]), labels=torch.tensor([labels]))
    logprobs = torch.log_softmax(out.logits[0].float(), dim=-1)
    return float(sum(logprobs[j, t] for j, t in enumerate(labels)))


def test_seq2seq_scores_and_generates(tiny_t5: Path) -> None:
    one = HFBackend(str(tiny_t5), batch_size=1)
    four = HFBackend(str(tiny_t5), batch_size=4)
    assert one.describe()["architecture"] == "seq2seq" and one.prefix is None
    prompts = [
        "Q: sky blue ? the answer is",
        "Q: grass green , yes no ? Among options the answer is",
        "Q: A B C ?",
        "the answer is",
        "Q: blue green sky grass yes no A B C D ?",
    ]
    requests = [ChoiceRequest(p, {"A": " A", "B": " B", "C": " yes no"}) for p in prompts]
    got = scores(run(four.score_choices(requests)))
    want = [
        {k: seq2seq_reference(one, r.prompt, c) for k, c in r.continuations.items()}
        for r in requests
    ]
    assert_close(got, want)
    assert_close(got, scores(run(one.score_choices(requests))))
    params = GenerationParams(max_new_tokens=5, top_logprobs=2)
    out = run(four.generate([GenerationRequest(p, params) for p in prompts]))
    alone = run(one.generate([GenerationRequest(p, params) for p in prompts]))
    for resp in out:
        assert resp.error is None and isinstance(resp.text, str)
        assert 0 <= resp.usage.completion_tokens <= 5
        assert resp.top_logprobs is not None and len(resp.top_logprobs[0]) <= 2
    assert [r.text for r in out] == [r.text for r in alone]
