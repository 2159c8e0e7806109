"""The audit's adversary: hand rules and trained probes must be able to fail a leaky set."""

from __future__ import annotations

import copy
from typing import Any

from relreason.generate.audit import audit_items
from relreason.generate.compose import ComposeOptions, compose
from relreason.generate.probes import FAMILIES, probe_scores


def _items(domain: str, seed: int, count: int) -> list[dict[str, Any]]:
    return compose(ComposeOptions(language="en", domains=(domain,), seed=seed, count=count))


def _row(result: Any, name: str) -> Any:
    return next(row for row in result.rows if row.heuristic == name)


def test_an_identity_set_stating_its_answers_fails_the_audit() -> None:
    leaky = []
    for item in _items("identity", 3, 60):
        item = copy.deepcopy(item)
        if item["answer"] != "uncertain":  # the answer stated outright
            item["premises"].append([item["query"][0], "is", item["answer"]])
        leaky.append(item)
    result = audit_items(leaky, "leaky", trained=False)
    assert not result.passed
    assert not _row(result, "identity: asked is-sentence, else Uncertain").holds_chance


def test_a_probe_learns_a_marker_on_the_right_option_and_the_audit_fails() -> None:
    def marked(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for item in items:
            item = copy.deepcopy(item)
            i = item["options"].index(item["correct"])
            item["options"][i] = item["correct"] = item["correct"] + " zq"
            out.append(item)
        return out

    train, test = marked(_items("containment", 1, 80)), marked(_items("containment", 2, 80))
    scores = probe_scores(train, test, FAMILIES["probe: words of premises and options"])
    assert sum(scores) / len(scores) > 0.9
    result = audit_items(test, "marked", train=train)
    assert not _row(result, "probe: words of premises and options").holds_chance
    assert not result.passed


def test_a_probe_without_a_signal_stays_near_chance() -> None:
    """Gold slots follow shuffled blocks: the position probe learns nothing from another seed."""
    train, test = _items("containment", 1, 120), _items("containment", 2, 120)
    scores = probe_scores(train, test, FAMILIES["probe: option position and length"])
    assert 0.1 < sum(scores) / len(scores) < 0.45
