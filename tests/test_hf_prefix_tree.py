"""Prefix-tree choice scoring: the tree's shape (property tests) and, on the real bundled
SmolLM2, log-likelihoods equal to the unoptimised path (one full forward per row, every
position's logits) within 1e-4, through every kind of pass (lean Llama, segmented attention in
transformers' forward, block mask, padded rows)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.models.hf import tree_attention
from relreason.models.hf.backend import HFBackend
from relreason.models.hf.choices import CausalScorer, Row, run_rows
from relreason.models.hf.prefix_tree import Node, Read, build_tree, merge_small, rows_to_reads
from relreason.models.hf.tree_runner import TreeRunner
from relreason.models.hf.tree_scorer import PrefixTreeScorer
from relreason.types import ChoiceRequest, Response

TOLERANCE = 1e-4

# ---------------------------------------------------------------- the tree (no model)


def _walk(root: Node) -> Iterator[tuple[Node, list[int]]]:
    """Every node with the tokens of its path from the start (its own included)."""
    stack = [(root, list(root.tokens))]
    while stack:
        node, path = stack.pop()
        yield node, path
        stack.extend((c, path + c.tokens) for c in node.children)


sequences = st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=7), max_size=12)


@given(sequences, st.data(), st.sampled_from([0, 2, 4]))
def test_tree_holds_every_sequence_and_places_every_read(
    seqs: list[list[int]], data: st.DataObject, merge_below: int
) -> None:
    reads = []
    slot = 0
    for s in seqs:
        positions = data.draw(st.lists(st.integers(0, len(s) - 1), max_size=3))
        reads.append([Read(p, s[p], slot + k) for k, p in enumerate(positions)])
        slot += len(positions)
    owner = {r.slot: i for i, rs in enumerate(reads) for r in rs}
    root = merge_small(build_tree(seqs, reads), merge_below)
    ends = []
    placed = []
    for node, path in _walk(root):
        assert node.end == len(path)
        if node is not root:
            assert node.tokens, "only the root may be empty"
            if node.children and not node.reads:
                assert len(node.tokens) >= merge_below, "short shared runs are folded"
        if not merge_below:
            firsts = [c.tokens[0] for c in node.children]
            assert len(firsts) == len(set(firsts)), "siblings must differ at their first token"
        for c in node.children:
            assert c.start == node.end
        for r in node.reads:
            seq = seqs[owner[r.slot]]
            assert node.start <= r.pos < node.end
            assert path == seq[: node.end], "a read lies on its own sequence's path"
            placed.append(r.slot)
        ends.append(path)
    assert sorted(placed) == list(range(slot))
    for s, rs in zip(seqs, reads, strict=True):
        if not merge_below or any(r.pos == len(s) - 1 for r in rs):
            # (a sequence nothing is read from may be folded; real rows read their last token)
            assert s in ends, "every sequence ends at a node"
    if seqs:
        assert all(s[: root.end] == seqs[0][: root.end] for s in seqs)


@given(st.lists(st.integers(0, 50), min_size=1, max_size=6), st.integers(1, 3))
def test_reads_come_off_the_last_positions(tokens: list[int], k: int) -> None:
    ids = list(range(100, 100 + k))
    row = Row(0, tokens, {"X": ids, "Y": [7]})
    if k > len(tokens):
        with pytest.raises(ValueError, match="continuation"):
            rows_to_reads([row])
        return
    reads, slots = rows_to_reads([row])
    assert slots == [(0, "X"), (0, "Y")]
    n = len(tokens)
    assert [(r.pos, r.target, r.slot) for r in reads[0]] == [
        *((n - k + t, 100 + t, 0) for t in range(k)),
        (n - 1, 7, 1),
    ]


# ---------------------------------------------------------------- the real model

HEADER = "Read the instruction and then answer the question using A or B.\n"
RELATIONS = {
    "is a tributary of": "Instruction: (x, is a tributary of, y) means x flows into y.\n",
    "is the parent of": "Instruction: (x, is the parent of, y) means x is a parent of y.\n",
    "was born in": "Instruction: (x, was born in, y) means x was born in place y.\n",
}
PAIRS = [("the Ohio", "the Mississippi"), ("Ann", "Bob"), ("Turing", "London"), ("Rhine", "Aar")]


def _requests() -> list[ChoiceRequest]:
    """ConvRe-like prompts (a shared header, one instruction line per relation, the item),
    plus prompts that are prefixes of others, multi-token options and a duplicate."""
    out = []
    for rel, line in RELATIONS.items():
        for x, y in PAIRS:
            prompt = (
                f"{HEADER}{line}Question: ({x}, {rel}, {y})\n"
                f"A: {x} {rel} {y}.\nB: {y} {rel} {x}.\nAnswer:"
            )
            out.append(ChoiceRequest(prompt, {"A": " A", "B": " B"}))
    out.append(ChoiceRequest(HEADER, {"A": "Instruction", "B": " Question"}))
    out.append(ChoiceRequest(HEADER + "Instruction:", {"A": " (x", "B": " nothing at all here"}))
    out.append(ChoiceRequest(out[0].prompt, {"A": " A) the Ohio", "B": " B) Bob", "C": " C"}))
    out.append(out[1])
    return out


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
def plain(folder: Path) -> HFBackend:
    return HFBackend(str(folder), batch_size=4, prefix_cache=False)


def _rows(backend: HFBackend, requests: list[ChoiceRequest]) -> list[Row]:
    rows: list[Row] = []
    for i, req in enumerate(requests):
        rows.extend(backend._rows_for(i, req)[0])
    return rows


def _assert_close(a: list[dict[str, float]], b: list[dict[str, float]]) -> float:
    assert len(a) == len(b)
    worst = 0.0
    for x, y in zip(a, b, strict=True):
        assert list(x) == list(y)
        for key in x:
            worst = max(worst, abs(x[key] - y[key]))
    assert worst < TOLERANCE, worst
    return worst


def _scores(responses: list[Response]) -> list[dict[str, float]]:
    for r in responses:
        assert r.error is None, r.error
    return [dict(r.choice_logprobs or {}) for r in responses]


@pytest.mark.model
@pytest.mark.parametrize(("batch", "head_only"), [(1, True), (3, True), (8, False)])
def test_tree_scores_equal_the_unoptimised_path(
    plain: HFBackend, batch: int, head_only: bool
) -> None:
    rows = _rows(plain, _requests())
    assert any(len(ids) > 1 for r in rows for ids in r.targets.values())
    slow = run_rows(CausalScorer(plain.model, plain.pad_id, None), rows, 4)
    tree = PrefixTreeScorer(plain.model, batch, plain.pad_id, head_only=head_only)
    got = tree.score(rows)
    _assert_close(got, slow)
    assert all(v < 0 for s in got for v in s.values())
    # The header is run once, not once per row.
    assert tree.stats.computed_tokens < tree.stats.row_tokens / 2
    assert tree.stats.read_positions < tree.stats.computed_tokens


def _lean_off(runner: TreeRunner) -> None:
    runner.lean = None


def _masked(runner: TreeRunner) -> None:
    runner.lean, runner.segmented = None, False


def _padded(runner: TreeRunner) -> None:
    runner.lean, runner.segmented, runner.mask_kind = None, False, None


PATHS = {
    "lean-llama": lambda runner: None,
    "segmented-transformers": _lean_off,
    "block-mask": _masked,
    "padded-rows": _padded,
}


@pytest.fixture(scope="module")
def unoptimised(plain: HFBackend) -> list[dict[str, float]]:
    return run_rows(CausalScorer(plain.model, plain.pad_id, None), _rows(plain, _requests()), 4)


@pytest.mark.model
@pytest.mark.parametrize("path", PATHS)
def test_every_pass_kind_scores_like_the_unoptimised_path(
    plain: HFBackend, unoptimised: list[dict[str, float]], path: str
) -> None:
    tree = PrefixTreeScorer(plain.model, 3, plain.pad_id)
    assert tree.runner.lean is not None, "SmolLM2 (Llama) on the CPU takes the lean path"
    PATHS[path](tree.runner)
    _assert_close(tree.score(_rows(plain, _requests())), unoptimised)
    assert tree.stats.computed_tokens < tree.stats.row_tokens / 2


@pytest.mark.model
def test_without_the_flash_kernel_siblings_fall_back_to_the_block_mask(
    plain: HFBackend, unoptimised: list[dict[str, float]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tree_attention, "_FLASH", None)  # as on a torch without the kernel
    tree = PrefixTreeScorer(plain.model, 3, plain.pad_id)
    assert tree.runner.lean is None and tree.runner.segmented
    _assert_close(tree.score(_rows(plain, _requests())), unoptimised)
    assert not tree.runner.segmented, "the first packed pass found it out and switched"
    assert plain.model.config._attn_implementation == "sdpa", "the model is left as it was"


@pytest.mark.model
def test_a_model_whose_layers_ignore_the_segments_is_caught_and_masked(
    plain: HFBackend, unoptimised: list[dict[str, float]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A layer with attention code of its own would attend without the segments (every
    sibling seeing every other): the pass is detected by its call count and redone masked."""
    from transformers import AttentionInterface
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    def ignores_segments(*args: Any, **kwargs: Any) -> Any:
        kwargs.pop(tree_attention.SEGMENTS_KWARG)
        return sdpa_attention_forward(*args, **kwargs)

    mapping = AttentionInterface._global_mapping
    monkeypatch.setitem(mapping, tree_attention.ATTENTION_NAME, ignores_segments)
    tree = PrefixTreeScorer(plain.model, 3, plain.pad_id)
    tree.runner.lean = None  # through transformers' forward, where the interface is used
    _assert_close(tree.score(_rows(plain, _requests())), unoptimised)
    assert not tree.runner.segmented


@pytest.mark.model
def test_prepared_task_is_served_from_memory_and_equals_the_plain_backend(
    folder: Path, plain: HFBackend
) -> None:
    requests = _requests()
    want = _scores(asyncio.run(plain.score_choices(requests)))
    backend = HFBackend(str(folder), batch_size=4)
    assert backend._tree is not None
    asyncio.run(backend.prepare_choices(requests))
    computed = backend._tree.stats.computed_tokens
    encoded: list[str] = []
    real_encode = backend.encode

    def counting_encode(text: str, **kwargs: Any) -> list[int]:
        encoded.append(text)
        return real_encode(text, **kwargs)

    backend.encode = counting_encode  # type: ignore[method-assign]
    got: list[dict[str, float]] = []
    for i in range(0, len(requests), 5):  # the runner's calls: a few items at a time
        got += _scores(asyncio.run(backend.score_choices(requests[i : i + 5])))
    _assert_close(got, want)
    assert not encoded, "prepared requests are not tokenised again"
    assert not backend._prepared_rows, "every prepared request's rows were taken once"
    assert backend._tree.stats.computed_tokens == computed, "nothing is run twice"
    assert backend._tree.stats.memo_hits == len(_rows(plain, requests))  # the duplicate too
    assert not backend._tree.memo, "every prepared result was served once"
    assert backend.prefix is not None and backend.prefix.stats.reused_tokens > 0


@pytest.mark.model
def test_calls_without_prepare_reuse_the_previous_trunk(folder: Path, plain: HFBackend) -> None:
    requests = _requests()[:12]
    backend = HFBackend(str(folder), batch_size=8)
    assert backend._tree is not None
    first = _scores(asyncio.run(backend.score_choices(requests[:4])))
    before = backend._tree.stats.computed_tokens
    second = _scores(asyncio.run(backend.score_choices(requests[4:8])))
    with_trunk = backend._tree.stats.computed_tokens - before
    backend._tree.runner.clear()  # the same call again, with no stored trunk
    before = backend._tree.stats.computed_tokens
    again = _scores(asyncio.run(backend.score_choices(requests[4:8])))
    without = backend._tree.stats.computed_tokens - before
    header = len(plain.encode(HEADER.rstrip()))
    assert without - with_trunk >= header, "the header came from the stored trunk"
    _assert_close(second, again)
    _assert_close(first + second, _scores(asyncio.run(plain.score_choices(requests[:8]))))


@pytest.mark.model
def test_truncated_prompts_score_like_the_unoptimised_path(folder: Path) -> None:
    requests = _requests()[:6]
    short = HFBackend(str(folder), batch_size=4, max_length=24)
    slow = HFBackend(str(folder), batch_size=4, max_length=24, prefix_cache=False)
    assert all(len(r.tokens) <= 24 for r in _rows(short, requests))
    _assert_close(
        _scores(asyncio.run(short.score_choices(requests))),
        _scores(asyncio.run(slow.score_choices(requests))),
    )


@pytest.mark.model
def test_the_runner_prepares_a_whole_slice_and_changes_no_score(
    tmp_path: Path, shared_data: Path
) -> None:
    """Through the runner: log-prob scoring with the backend's prepare_choices hook (the whole
    slice through one prefix tree) gives the same choice log-likelihoods as without it."""
    from relreason.benchmarks import get
    from relreason.models.smollm2 import load_smollm2
    from relreason.records import load_records
    from relreason.run.runner import RunOptions, run_task

    convre = get("convre")
    task = convre.build_task(convre.params(task="re2text", setting=3, subset=True), shared_data)
    options = RunOptions(scoring="logprob", use_cache=False, limit=12)
    backend = load_smollm2()
    prepared: list[int] = []
    real = backend.prepare_choices

    async def counting(requests: Any) -> bool:
        prepared.append(len(requests))
        return await real(requests)

    backend.prepare_choices = counting  # type: ignore[method-assign]
    run_task(task, backend, tmp_path / "with", options, close_backend=False)
    plain = load_smollm2(prefix_cache=False)  # no tree: the unoptimised path
    run_task(task, plain, tmp_path / "without", options)
    assert prepared == [12]
    with_hook, without = load_records(tmp_path / "with"), load_records(tmp_path / "without")
    for index, record in with_hook.items():
        for letter, value in record["choice_logprobs"].items():
            assert abs(value - without[index]["choice_logprobs"][letter]) < TOLERANCE


@pytest.mark.model
def test_the_lean_pass_takes_only_a_float32_llama_body(plain: HFBackend) -> None:
    import copy

    import torch

    from relreason.models.hf.lean_llama import LeanLlama

    body = plain.model.model
    assert LeanLlama.for_model(body) is not None
    assert LeanLlama.for_model(plain.model) is None, "the causal LM itself is not a Llama body"
    assert LeanLlama.for_model(copy.deepcopy(body).to(torch.bfloat16)) is None


@pytest.mark.model
def test_segmented_siblings_group_by_tokens_and_masked_ones_by_batch(plain: HFBackend) -> None:
    from relreason.models.hf import tree_runner

    children = [Node(4, [1] * 50) for _ in range(10)]
    runner = TreeRunner(plain.model, 3, plain.pad_id)
    assert [len(g) for g in runner._groups(children)] == [10], "500 tokens: one pass"
    big = [Node(4, [1] * (tree_runner.SEGMENT_TOKENS // 2)) for _ in range(3)]
    assert [len(g) for g in runner._groups(big)] == [2, 1], "the token limit still holds"
    _masked(runner)
    assert [len(g) for g in runner._groups(children)] == [3, 3, 3, 1]
