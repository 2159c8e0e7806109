"""The SQLite response cache: keys, round trips, concurrent writers, and its use by the runner."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from relreason.models.baselines import BaselineBackend
from relreason.records import load_records
from relreason.run.cache import ResponseCache, cache_key, stable_identity
from relreason.run.runner import RunOptions, run_task
from relreason.types import Response, Usage
from servers.fault_server import toy_task

IDENTITY = {"backend": "openai", "model": "m", "api": "chat"}
PARAMS = {"max_new_tokens": 64, "temperature": 0.0, "top_logprobs": 5, "stop": [], "seed": None}

finite = st.floats(min_value=-1e6, max_value=0, allow_nan=False)
responses = st.builds(
    Response,
    text=st.one_of(st.none(), st.text(max_size=50)),
    top_logprobs=st.one_of(
        st.none(), st.lists(st.dictionaries(st.text(max_size=4), finite, max_size=3), max_size=3)
    ).map(lambda v: None if v is None else tuple(v)),
    choice_logprobs=st.one_of(st.none(), st.dictionaries(st.sampled_from("ABCD"), finite)),
    usage=st.builds(Usage, st.integers(0, 10**6), st.integers(0, 10**6)),
    latency_s=st.floats(0, 100),
)


@given(responses)
@settings(max_examples=80, deadline=None)
def test_responses_round_trip_through_the_database(response: Response) -> None:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="relreason-cache-") as folder:
        cache = ResponseCache(Path(folder) / "c.sqlite3")
        key = cache_key(IDENTITY, "generate", "prompt", {"params": PARAMS})
        cache.put_many([(key, response)])
        if response.text is None and response.choice_logprobs is None:
            assert cache.get(key) is None  # not an answer: never stored
        else:
            assert cache.get(key) == response
        cache.close()


@given(
    st.text(max_size=30),
    st.sampled_from(sorted(PARAMS)),
    st.sampled_from(["batch_size", "timeout"]),
)
@settings(max_examples=60)
def test_keys_change_with_every_parameter_but_not_with_volatile_fields(
    prompt: str, param: str, volatile: str
) -> None:
    key = cache_key(IDENTITY, "generate", prompt, {"params": PARAMS})
    changed = {**PARAMS, param: ["x"] if param == "stop" else 999}
    assert cache_key(IDENTITY, "generate", prompt, {"params": changed}) != key
    assert cache_key(IDENTITY, "generate", prompt + "!", {"params": PARAMS}) != key
    assert cache_key(IDENTITY, "score_choices", prompt, {"params": PARAMS}) != key
    assert cache_key({**IDENTITY, "model": "n"}, "generate", prompt, {"params": PARAMS}) != key
    noisy = stable_identity({**IDENTITY, volatile: ["http://a", 3]})
    assert cache_key(noisy, "generate", prompt, {"params": PARAMS}) == key


def test_failed_responses_are_not_cached(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite3")
    assert cache.put_many([("a", Response(error="boom")), ("b", Response(text="B"))]) == 1
    assert cache.get_many(["a", "b", "c"]) == {"b": Response(text="B")}


def test_many_keys_are_read_in_chunks(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite3")
    entries = [(f"k{i}", Response(text=str(i))) for i in range(1700)]
    cache.put_many(entries)
    found = cache.get_many([k for k, _ in entries] + ["missing"])
    assert len(found) == 1700 and found["k1234"].text == "1234"
    assert cache.hits == 1700 and cache.misses == 1


def _writer(path: str, worker: int, n: int) -> None:
    cache = ResponseCache(Path(path))
    for i in range(n):
        cache.put_many([(f"w{worker}-{i}", Response(text=f"{worker}:{i}"))])
    cache.close()


def test_several_processes_write_at_once(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    ResponseCache(path).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(str(path), w, 150)) for w in range(4)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(60)
    assert [p.exitcode for p in workers] == [0, 0, 0, 0]
    cache = ResponseCache(path)
    assert len(cache) == 600
    assert cache.get("w3-149") == Response(text="3:149")


def test_a_second_run_is_served_from_the_cache(tmp_path: Path) -> None:
    task = toy_task(25)
    options = RunOptions(cache_path=tmp_path / "cache.sqlite3")
    first = run_task(task, BaselineBackend("random", seed=1), tmp_path / "a", options)
    assert first.cached == 0
    second = run_task(task, BaselineBackend("random", seed=1), tmp_path / "b", options)
    assert second.cached == 25 and second.correct == first.correct
    records = load_records(tmp_path / "b")
    assert all(r["cached"] and r["attempts"] == 0 for r in records.values())
    other_seed = run_task(task, BaselineBackend("random", seed=2), tmp_path / "c", options)
    assert other_seed.cached == 0  # another model identity: another key


def test_refresh_ignores_reads_but_writes_and_no_cache_touches_nothing(tmp_path: Path) -> None:
    task = toy_task(10)
    db = tmp_path / "cache.sqlite3"
    run_task(task, BaselineBackend("first"), tmp_path / "a", RunOptions(cache_path=db))
    refreshed = run_task(
        task, BaselineBackend("first"), tmp_path / "b", RunOptions(cache_path=db, refresh=True)
    )
    assert refreshed.cached == 0 and len(ResponseCache(db)) == 10
    other = tmp_path / "unused.sqlite3"
    off = RunOptions(cache_path=other, use_cache=False)
    assert run_task(task, BaselineBackend("first"), tmp_path / "c", off).cached == 0
    assert not other.exists()
