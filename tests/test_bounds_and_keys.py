"""Bounded waits and sizes, and keys never written: Retry-After and token accounting are capped,
impossible limits refused at start, huge answers cut and recorded as failed; a key echoed by a
server is scrubbed from records, cache and manifest; URLs and sweep files may not hold keys."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from clihelp import run_cli, tiny_args, tiny_registered
from relreason.errors import DataError, UsageError
from relreason.models.base import TransientError
from relreason.models.baselines import BaselineBackend
from relreason.models.errors_map import check_base_url
from relreason.records import load_records
from relreason.run.runner import RunOptions, run_task
from relreason.run.sweep import load_sweep
from relreason.types import GenerationRequest, Response, Usage
from servers.fault_server import toy_task
from test_runner import ScriptedBackend

KEY = "sk-test-PLANTED-0a1b2c3d4e5f60718293a4b5"


class Loud(ScriptedBackend):
    """Answers with absurd token usage (a hostile server's report)."""

    async def generate(self, requests: Sequence[GenerationRequest]) -> list[Response]:
        done = await super().generate(requests)
        return [Response(text=r.text, usage=Usage(10**12, 10**12)) for r in done]


def fast(**kw: object) -> RunOptions:
    base: dict[str, object] = {
        "use_cache": False,
        "retry_initial_wait": 0.01,
        "retry_max_wait": 0.05,
    }
    return RunOptions(**{**base, **kw})  # type: ignore[arg-type]


def test_retry_after_is_capped_by_max_wait(tmp_path: Path) -> None:
    def answer(request: GenerationRequest, attempt: int) -> str:
        if attempt == 1:
            raise TransientError("429", retry_after=100000)
        return request.reference or "A"

    start = time.monotonic()
    summary = run_task(
        toy_task(4), ScriptedBackend(answer), tmp_path / "r", fast(max_wait=0.3, concurrency=4)
    )
    assert summary.failed == 0 and time.monotonic() - start < 10


def test_absurd_reported_usage_cannot_stall_a_token_limit(tmp_path: Path) -> None:
    start = time.monotonic()
    summary = run_task(
        toy_task(3),
        Loud(),
        tmp_path / "r",
        fast(tokens_per_minute=60000, concurrency=1, max_wait=1.0),
    )
    assert summary.failed == 0 and time.monotonic() - start < 10


@pytest.mark.parametrize("tpm", [1e-7, 1.0])
def test_an_impossible_token_limit_is_refused_at_start(tmp_path: Path, tpm: float) -> None:
    with pytest.raises(UsageError, match=r"--tpm .* is too low"):
        run_task(toy_task(3), BaselineBackend("first"), tmp_path / "r", fast(tokens_per_minute=tpm))
    assert not (tmp_path / "r").exists()


def test_an_impossible_request_limit_is_refused() -> None:
    with pytest.raises(UsageError, match="requests_per_minute"):
        fast(requests_per_minute=1e-6).validate()


def test_a_huge_answer_is_cut_and_recorded_as_failed(tmp_path: Path) -> None:
    backend = ScriptedBackend(lambda request, attempt: "A" * 50_000)
    summary = run_task(
        toy_task(3),
        backend,
        tmp_path / "r",
        fast(max_answer_chars=1000, cache_path=tmp_path / "c.sqlite3", use_cache=True),
    )
    records = load_records(tmp_path / "r")
    assert summary.failed == 3
    assert all("over the cap of 1000" in r["error"] for r in records.values())
    assert (tmp_path / "r" / "records.jsonl").stat().st_size < 20_000
    assert b"AAAAAAAAAAAAAAAAAAAA" not in (tmp_path / "c.sqlite3").read_bytes()


def test_a_key_echoed_in_an_answer_is_written_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    backend = ScriptedBackend(lambda request, attempt: f"A (your key is {KEY})")
    out = tmp_path / "r"
    run_task(toy_task(5), backend, out, fast(use_cache=True, cache_path=tmp_path / "c.sqlite3"))
    for path in [*out.iterdir(), *tmp_path.glob("c.sqlite3*")]:
        assert KEY.encode() not in path.read_bytes(), path
    assert all("***" in r["output"] for r in load_records(out).values())


@pytest.mark.parametrize(
    "url",
    [
        f"http://127.0.0.1:8000/v1/{KEY}",
        "http://127.0.0.1:8000/v1#token=abc123",
        "http://127.0.0.1:8000/Abc123def456GHI789jkl012/v1",
    ],
)
def test_a_base_url_with_a_secret_looking_part_is_refused_unshown(url: str) -> None:
    with pytest.raises(UsageError) as caught:
        check_base_url(url)
    text = str(caught.value)
    assert "abc123" not in text and KEY not in text and "Abc123def456" not in text


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:99999/v1", "http://[::1/v1", "http://h:port/v1", "http://[zz]/v1"]
)
def test_malformed_base_urls_are_one_clear_message(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for _ in tiny_registered():
        args = tiny_args(tmp_path / "r", 3, "--model", "openai:m", "--base-url", url)
        code, _, err = run_cli(args, capsys)
    assert code == 2 and "base URL" in err and "Traceback" not in err, err


def test_ipv6_base_url_is_accepted() -> None:
    assert check_base_url("http://[::1]:8000/v1") == "http://[::1]:8000/v1"


def test_a_sweep_file_may_not_hold_keys(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        f"out: o\nmodels:\n  - {{spec: 'openai:m', api_key: '{KEY}'}}\nruns:\n"
        "  - {benchmark: convre}\n"
    )
    with pytest.raises(DataError, match=r"may not hold keys") as caught:
        load_sweep(path)
    assert KEY not in str(caught.value) and "models[0].api_key" in str(caught.value)


def test_cli_sweep_with_a_key_exits_2_without_echoing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(f"out: o\nmodels: [{{spec: m, token: {KEY}}}]\nruns: [{{benchmark: x}}]\n")
    code, out, err = run_cli(["sweep", str(path)], capsys)
    assert code == 2 and KEY not in out + err
