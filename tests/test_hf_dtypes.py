"""hf: in bfloat16 and float16 on the CPU, through the prefix tree, against float32 and against
the same dtype one row at a time (the real bundled SmolLM2, real few-shot ConvRe prompts)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from relreason.benchmarks.convre.prompts import build_items
from relreason.models.hf.backend import HFBackend
from relreason.models.options import resolve_device
from relreason.types import ChoiceRequest

pytestmark = pytest.mark.model

TOLERANCE = {"bfloat16": 0.25, "float16": 0.05}
"""Per choice, the prefix tree in half precision vs the same dtype one row at a time (other
summation orders) and vs float32. Measured on 16 setting 9 items against float32: bfloat16 at
most 0.086 (mean 0.020), float16 at most 0.020 (mean 0.004); tree vs rows in bfloat16 0.108 on
the 3 items here (perf/RESULTS-engines.md)."""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from relreason.models.smollm2 import converted_dir

    root = tmp_path_factory.getbasetemp() / "relreason-cache"
    root.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RELREASON_CACHE_DIR", str(root))
        yield converted_dir()


def scores(backend: HFBackend, requests: list[ChoiceRequest]) -> list[dict[str, float]]:
    responses = asyncio.run(backend.score_choices(requests))
    for r in responses:
        assert r.error is None, r.error
    return [dict(r.choice_logprobs or {}) for r in responses]


def gap(a: list[dict[str, float]], b: list[dict[str, float]]) -> float:
    return max(abs(x[k] - y[k]) for x, y in zip(a, b, strict=True) for k in x)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_scores_through_the_prefix_tree(
    folder: Path, shared_data: Path, dtype: str
) -> None:
    """Packed siblings merge float32 log-sum-exps: the result must come back in the model's
    dtype (it once stayed float32 and the next projection refused it)."""
    items = build_items("re2text", 9, subset=True, data_dir=shared_data)[::40][:3]
    requests = [ChoiceRequest(it.prompt, {c: " " + c for c in it.choices}) for it in items]
    tree = HFBackend(str(folder), dtype=dtype, threads=1)
    rows = HFBackend(str(folder), dtype=dtype, threads=1, prefix_cache=False)
    full = HFBackend(str(folder), dtype="float32", threads=1)
    half = scores(tree, requests)
    assert gap(half, scores(rows, requests)) < TOLERANCE[dtype]
    assert gap(half, scores(full, requests)) < TOLERANCE[dtype]


def test_device_auto_is_cuda_only_where_torch_sees_a_gpu() -> None:
    import torch

    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_device("cpu") == "cpu" and resolve_device("cuda:1") == "cuda:1"
