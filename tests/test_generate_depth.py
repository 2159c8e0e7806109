"""Proof depth: the least number of premises that decide an item's answer, and ``--hops``."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from relreason.generate.compose import DOMAINS, ComposeOptions, compose
from relreason.generate.depth import ATTRIBUTES, decides, proof_depth
from relreason.generate.lexicon import LANGUAGES


def _proofs(item: dict, size: int) -> list[list[tuple[str, ...]]]:
    """Every subset of ``size`` relational premises (attributes beside) giving the answer."""
    premises = [tuple(p) for p in item["premises"]]
    attributes = [p for p in premises if p[1] in ATTRIBUTES]
    relational = [p for p in premises if p[1] not in ATTRIBUTES]
    gold = _gold(item)
    return [
        list(subset)
        for subset in itertools.combinations(relational, size)
        if decides([*attributes, *subset], item["query"], item["language"], item["domain"], gold)
    ]


def _gold(item: dict) -> str:
    from relreason.generate.depth import expected
    from relreason.generate.solver import solve

    found = expected(item["language"], item["domain"], solve(item["premises"], item["query"]))
    assert found is not None
    return found


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    language=st.sampled_from(LANGUAGES),
    domain=st.sampled_from(DOMAINS),
    hops=st.integers(2, 4),
)
def test_depth_is_hops_and_every_premise_of_a_least_proof_is_needed(
    seed: int, language: str, domain: str, hops: int
) -> None:
    options = ComposeOptions(language=language, domains=(domain,), hops=(hops,), seed=seed, count=2)
    for item in compose(options):
        assert item["hops"] == hops
        assert proof_depth(item["premises"], item["query"], language, domain) == hops
        if item["answer"] == "uncertain":
            continue
        proofs = _proofs(item, hops)
        assert proofs, "no proof of the recorded depth"
        assert not _proofs(item, hops - 1), "a smaller proof exists"
        attributes = [tuple(p) for p in item["premises"] if p[1] in ATTRIBUTES]
        for proof in proofs:  # removing any premise of a least proof leaves the gold undecided
            for i in range(len(proof)):
                rest = [*attributes, *proof[:i], *proof[i + 1 :]]
                assert not decides(rest, item["query"], language, domain, _gold(item))


def test_a_stated_answer_has_depth_one_and_filler_does_not_count() -> None:
    query = ["letter", "?", "Ben|Carl|Dan"]
    stated = [["letter", "is", "Ben"], ["cat", "is_not", "Carl"], ["cat", "is", "dinner"]]
    assert proof_depth(stated, query, "en", "identity") == 1
    eliminated = [["letter", "is_not", "Ben"], ["letter", "is", "cat"], ["cat", "is_not", "Dan"]]
    assert proof_depth(eliminated, query, "en", "identity") == 3
    assert proof_depth(eliminated[:2], query, "en", "identity") == 2  # undetermined: linked


def test_exchange_depth_is_the_asked_path_not_the_premise_count() -> None:
    rates = [["P0", "worth:2", "P1"], ["P1", "worth:3", "P2"], ["P3", "worth:2", "P4"]]
    assert proof_depth(rates, ["P0", "?", "P2"], "en", "quantity") == 2
    assert proof_depth(rates, ["P0", "?", "P1"], "en", "quantity") == 1
    assert proof_depth(rates, ["P0", "?", "P4"], "en", "quantity") == 2  # undetermined
