"""The example sweep files are valid sweeps, and the names their --compare lines use are the
papers' model names and models of the sweep."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from relreason.report.paper import paper_models
from relreason.run.sweep import ModelEntry, load_sweep

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.yaml"))
_COMPARE = re.compile(r'--compare (?:"([^"]+=[^"]+)"|(\S+=\S+))')


def test_there_are_examples() -> None:
    names = {p.name for p in EXAMPLES}
    assert {"convre_table9.yaml", "convre_figure5.yaml", "mcr_table4.yaml"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_sweep(path: Path) -> None:
    sweep = load_sweep(path)
    specs = {m.spec if isinstance(m, ModelEntry) else m for m in sweep.models}
    valid = {name.lower() for name in paper_models()}
    text = path.read_text("utf-8")
    pairs = [a or b for a, b in _COMPARE.findall(text)]
    assert bool(pairs) == ("--compare " in text)
    for pair in pairs:
        spec, _, model = pair.rpartition("=")
        assert spec in specs, f"{path.name}: --compare {pair}: {spec} is not a model of the sweep"
        assert model.lower() in valid, f"{path.name}: --compare {pair}: unknown paper model"
