"""Baseline backends and the model spec registry."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.errors import UsageError
from relreason.models.baselines import BaselineBackend
from relreason.models.registry import SPEC_FORMS, ModelOptions, load_backend
from relreason.types import ChoiceRequest, GenerationRequest

LETTERS = ("A", "B", "C", "D")


def _gen(backend: BaselineBackend, prompts: list[str], ref: str = "C") -> list[str | None]:
    requests = [GenerationRequest(p, choices=LETTERS, reference=ref) for p in prompts]
    return [r.text for r in asyncio.run(backend.generate(requests))]


@given(st.lists(st.text(max_size=40), min_size=1, max_size=20), st.integers(0, 10**6))
def test_random_is_deterministic_and_within_choices(prompts: list[str], seed: int) -> None:
    backend = BaselineBackend("random", seed=seed)
    first = _gen(backend, prompts)
    assert first == _gen(BaselineBackend("random", seed=seed), prompts)
    assert all(letter in LETTERS for letter in first)


def test_random_spreads_over_choices() -> None:
    answers = _gen(BaselineBackend("random", seed=1), [f"prompt {i}" for i in range(400)])
    counts = {letter: answers.count(letter) for letter in LETTERS}
    assert all(60 < c < 140 for c in counts.values()), counts


def test_first_and_oracle() -> None:
    assert set(_gen(BaselineBackend("first"), ["a", "b"])) == {"A"}
    assert set(_gen(BaselineBackend("oracle"), ["a", "b"], ref="D")) == {"D"}


def test_choice_scores_pick_one_letter() -> None:
    backend = BaselineBackend("oracle")
    request = ChoiceRequest("p", {"A": " A", "B": " B"}, reference="B")
    (response,) = asyncio.run(backend.score_choices([request]))
    assert response.choice_logprobs is not None
    assert max(response.choice_logprobs, key=response.choice_logprobs.__getitem__) == "B"


def test_registry_builds_baselines() -> None:
    assert load_backend("random:7").describe()["seed"] == 7
    assert load_backend("first").describe()["kind"] == "first"
    assert load_backend("random", seed=3).describe()["seed"] == 3


@pytest.mark.parametrize("spec", ["gpt-4", "hf:", "openai:", "random:x", "first:2", ""])
def test_unknown_spec_lists_valid_forms(spec: str) -> None:
    with pytest.raises(UsageError) as info:
        load_backend(spec)
    for form in SPEC_FORMS:
        assert form in str(info.value)


def test_model_options_round_trip() -> None:
    options = ModelOptions(base_urls=("http://a", "http://b"), api="completions", seed=4)
    assert ModelOptions.from_json(options.to_json()) == options
    with pytest.raises(UsageError, match="chat, completions"):
        ModelOptions.from_json({"api": "grpc"})
