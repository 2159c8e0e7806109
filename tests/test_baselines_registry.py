"""Baseline backends and the model spec registry."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.errors import UsageError
from relreason.models.base import Capabilities
from relreason.models.baselines import BaselineBackend
from relreason.models.registry import BACKENDS, SPEC_FORMS, ModelOptions, load_backend
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


def test_a_built_backend_has_its_registry_lines_capabilities() -> None:
    """Capabilities are declared once, on the registry line; the backend built gets them."""
    assert BACKENDS["anthropic"].capabilities == Capabilities(logprobs=False, choice_scoring=False)
    backend = load_backend("first")
    assert backend.capabilities is BACKENDS["first"].capabilities
    assert backend.capabilities.logprobs and backend.capabilities.choice_scoring
    assert BaselineBackend("first").capabilities == Capabilities()  # built by hand: defaults


def test_no_backend_class_declares_capabilities_of_its_own() -> None:
    """The backend classes leave capabilities to their registry lines (no second declaration):
    read from the source, so that backends whose libraries are missing are checked too."""
    import ast

    import relreason.models as models

    folder = Path(models.__file__).parent
    declared = []
    for path in sorted(folder.rglob("*.py")):
        if path.name in ("base.py", "registry.py"):  # the contract and the declarations
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    targets = (
                        [stmt.target]
                        if isinstance(stmt, ast.AnnAssign)
                        else getattr(stmt, "targets", [])
                    )
                    names = {t.id for t in targets if isinstance(t, ast.Name)}
                    if names & {"capabilities", "supports_logprobs", "supports_choice_scoring"}:
                        declared.append(f"{path.name}:{node.name}")
    assert not declared


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
