"""Prices, user price files and the dry run (with a real local tokenizer and with chars/4)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.errors import DataError, UsageError
from relreason.run.cost import (
    DEFAULT_PRICES,
    FALLBACK_NAME,
    Price,
    chars_per_token_estimate,
    dry_run,
    estimate_cost,
    load_prices,
    price_for,
    tokenizer_counter,
)
from relreason.run.runner import RunOptions
from relreason.types import GenerationParams
from servers.fault_server import toy_task


def test_prices_by_longest_prefix_and_free_local_models() -> None:
    assert price_for("openai:gpt-4o-2024-08-06") == DEFAULT_PRICES["gpt-4o"]
    assert price_for("openai:gpt-4o-mini-2024-07-18") == DEFAULT_PRICES["gpt-4o-mini"]
    assert price_for("anthropic:claude-3-5-sonnet-20241022") == DEFAULT_PRICES["claude-3-5-sonnet"]
    for spec in ("smollm2", "hf:/models/x", "random:3", "oracle", "first"):
        assert price_for(spec) == Price(0.0, 0.0)
    assert price_for("openai:my-finetune") is None
    assert estimate_cost("openai:my-finetune", 10, 10) is None


def test_a_user_price_file_extends_and_overrides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    yaml_file = tmp_path / "prices.yaml"
    yaml_file.write_text("my-finetune: {input: 1.5, output: 3}\ngpt-4o: {input: 1, output: 2}\n")
    prices = load_prices(yaml_file)
    assert prices["my-finetune"] == Price(1.5, 3.0) and prices["gpt-4o"] == Price(1.0, 2.0)
    assert estimate_cost("openai:my-finetune", 2_000_000, 1_000_000, prices) == 6.0
    json_file = tmp_path / "prices.json"
    json_file.write_text(json.dumps({"other": {"input": 2, "output": 4}}))
    monkeypatch.setenv("RELREASON_PRICES", str(json_file))
    both = load_prices(yaml_file)
    assert both["other"] == Price(2.0, 4.0) and both["my-finetune"] == Price(1.5, 3.0)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("m: {input: -1, output: 2}", r"item m, field 'input'"),
        ("m: {input: 1}", r"item m, field 'output'"),
        ("m: 3", r"item m"),
        ("[1, 2]", "expected a mapping"),
        ("m: {input: [", "not valid"),
    ],
)
def test_malformed_price_files_name_the_model_and_field(
    tmp_path: Path, text: str, pattern: str
) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text(text)
    with pytest.raises(DataError, match=pattern):
        load_prices(path)
    with pytest.raises(UsageError, match="cannot read"):
        load_prices(tmp_path / "missing.yaml")


@given(st.integers(0, 10**9), st.integers(0, 10**9), st.floats(0, 100), st.floats(0, 100))
def test_cost_is_linear_and_never_negative(i: int, o: int, pin: float, pout: float) -> None:
    price = Price(pin, pout)
    cost = price.cost(i, o)
    assert cost >= 0
    assert math.isclose(cost, price.cost(i, 0) + price.cost(0, o), rel_tol=1e-9, abs_tol=1e-9)


def test_dry_run_counts_requests_tokens_and_cost_with_chars_over_4() -> None:
    task = toy_task(10, second_stage=True)
    options = RunOptions(params=GenerationParams(max_new_tokens=64))
    report = dry_run(task, "anthropic:claude-3-5-haiku", options)  # no tokenizer at hand
    assert report.requests == 20 and report.tokenizer == FALLBACK_NAME
    firsts = sum(math.ceil(len(i.prompt) / 4) for i in task.items)
    assert task.second_stage is not None
    seconds = sum(math.ceil(len(task.second_stage(i, "")) / 4) + 64 for i in task.items)
    assert report.input_tokens == firsts + seconds
    assert report.output_tokens == 10 * 64 + 10 * 32
    expected = DEFAULT_PRICES["claude-3-5-haiku"].cost(report.input_tokens, report.output_tokens)
    assert report.cost_usd == pytest.approx(expected)
    assert "20 requests" in str(report)
    logprob = dry_run(task, "oracle", RunOptions(scoring="logprob", limit=4))
    assert (logprob.requests, logprob.output_tokens, logprob.cost_usd) == (4, 4, 0.0)


def test_dry_run_uses_a_local_tokenizer_folder(tmp_path: Path) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    task = toy_task(6)
    words = sorted({w for item in task.items for w in item.prompt.split()})
    vocab = {"[UNK]": 0, **{w: i + 1 for i, w in enumerate(words)}}
    model = tokenizers.models.WordLevel(vocab, unk_token="[UNK]")
    tok = tokenizers.Tokenizer(model)
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]")
    folder = tmp_path / "tok"
    fast.save_pretrained(str(folder))
    count, name = tokenizer_counter("hf:" + str(folder))
    assert name == str(folder)
    assert count(task.items[0].prompt) == len(task.items[0].prompt.split())
    report = dry_run(task, "hf:" + str(folder), RunOptions(params=GenerationParams(8)))
    assert report.input_tokens == sum(len(i.prompt.split()) for i in task.items)
    assert report.tokenizer == str(folder) and report.cost_usd == 0.0
    fallback, fallback_name = tokenizer_counter("hf:" + str(tmp_path / "absent"))
    assert fallback_name == FALLBACK_NAME and fallback("abcdefgh") == 2
    assert "rough" in str(dry_run(task, "hf:" + str(tmp_path / "absent"), RunOptions()))


def test_openai_models_are_counted_with_tiktoken_or_a_labelled_fallback() -> None:
    """tiktoken counts OpenAI models' tokens when it can load its encoding; it fetches the
    encoding file from the internet once, so offline (as on CI here) the estimate must fall back
    to chars/4 and say so."""
    count, name = tokenizer_counter("openai:gpt-4o")
    text = "A est le fils de B. 甲是乙的儿子。"
    try:
        import tiktoken

        expected = tiktoken.encoding_for_model("gpt-4o")
        expected.encode("x")
    except Exception:  # not installed, or the encoding file cannot be fetched (offline)
        assert name == FALLBACK_NAME and count(text) == -(-len(text) // 4)
        return
    assert name == f"tiktoken {expected.name}" and count(text) == len(expected.encode(text))


@pytest.mark.model
def test_the_bundled_model_is_counted_with_its_own_tokenizer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("transformers")
    from relreason.models.smollm2 import gguf_path

    try:
        gguf = gguf_path()
    except Exception as error:
        pytest.skip(f"the bundled model is not installed: {error}")
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path))  # no converted folder: the GGUF
    count, name = tokenizer_counter("smollm2")
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    text = "甲是乙的儿子，乙是丙的儿子。丙是甲的什么人？"
    assert name == "SmolLM2 tokenizer"
    assert count(text) == len(tok(text, add_special_tokens=False)["input_ids"])
    assert count(text) > 2 * chars_per_token_estimate(text)  # chars/4 is far too low here
