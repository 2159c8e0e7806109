"""Response bodies are capped as they arrive: relreason run as a separate process against a
real hostile server on 127.0.0.1 (an endless body, a 100 MB body, an endless error body, a
gzip bomb, an encoding it does not read) keeps its peak memory (``VmHWM`` of that process)
under 300 MB, and the run ends with the item failed and a message saying why. A cached answer
over ``--max-answer-chars`` is not served: the item is asked again."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from relreason.run.cache import ResponseCache
from relreason.types import Response
from servers.hostile_server import HostileServer

PEAK_RSS_LIMIT = 300 * 1024 * 1024


def peak_rss(pid: int) -> int:
    """The high-water mark of a live process's resident memory in bytes (``VmHWM``: its own,
    since its ``exec``; ``ru_maxrss`` would include the forking test process's), or 0."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def _run(model: str, url: str, out: Path, data: Path, cache: Path) -> tuple[int, str, int]:
    """``relreason run`` (one MCR item) as a child process; its exit code, stderr and peak
    RSS in bytes (polled every 10 ms until it exits)."""
    args = [sys.executable, "-m", "relreason", "run", "mcr", "--language", "fr"]
    args += ["--method", "zs", "--model", model, "--base-url", url, "--limit", "1"]
    args += ["--max-retries", "0", "--request-timeout", "60", "--no-progress"]
    args += ["--out", str(out), "--data-dir", str(data)]
    env = {**os.environ, "RELREASON_CACHE_DIR": str(cache)}
    env.pop("OPENAI_API_KEY", None)
    env.pop("ANTHROPIC_API_KEY", None)
    errors = out.parent / "stderr.txt"
    peak = 0
    with open(errors, "wb") as sink:
        child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=sink, env=env)
        try:
            deadline = time.monotonic() + 120
            while child.poll() is None and time.monotonic() < deadline:
                peak = max(peak, peak_rss(child.pid))
                time.sleep(0.01)
        finally:
            if child.poll() is None:
                child.kill()
            child.wait(10)
    return child.returncode, errors.read_text("utf-8", "replace"), peak


@pytest.mark.parametrize(
    ("mode", "model", "said"),
    [
        ("endless", "openai:hostile", "over the cap"),
        ("huge", "openai:hostile", "over the cap"),
        ("endless-error", "openai:hostile", "over the cap"),
        ("gzip-bomb", "openai:hostile", "over the cap"),
        ("brotli", "openai:hostile", "'br'"),
        ("endless", "anthropic:hostile", "over the cap"),
        ("endless-error", "anthropic:hostile", "over the cap"),
    ],
)
def test_a_hostile_body_fails_its_item_in_bounded_memory(
    mode: str, model: str, said: str, shared_data: Path, tmp_path: Path
) -> None:
    if not Path("/proc/self/status").is_file():
        pytest.skip("the peak memory is read from /proc (Linux)")
    out = tmp_path / "run"
    with HostileServer(mode) as server:
        url = server.url if model.startswith("openai") else server.url.removesuffix("/v1")
        code, err, peak = _run(model, url, out, shared_data, tmp_path / "cache")
        requests, sent = server.requests, server.sent
    print(f"{model} {mode}: peak RSS {peak / 2**20:.0f} MiB, server sent {sent / 2**20:.1f} MiB")
    assert 0 < peak < PEAK_RSS_LIMIT, f"peak RSS {peak / 2**20:.0f} MiB"
    assert code == 3, err  # the run ended with a failed item
    assert "Traceback" not in err
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["failed"]
    assert said in records[0]["error"], records[0]["error"]
    assert requests == 1  # a refused body is not asked again
    assert json.loads((out / "manifest.json").read_text())["status"] != "running"


def test_a_cached_answer_over_the_cap_is_asked_again(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite3", max_bytes=1000)
    cache.put_many([("big", Response(text="x" * 5000))])
    cache.put_many([("small", Response(text="y"))])
    try:
        assert set(cache.get_many(["big", "small"])) == {"small"}
        assert cache.oversized == 1
    finally:
        cache.close()


@pytest.mark.parametrize("client", ["DefaultAsyncHttpxClient", "DefaultAioHttpClient"])
@pytest.mark.parametrize("mode", ["endless", "endless-error", "gzip-bomb"])
def test_the_cap_holds_on_either_http_client_of_the_sdk(client: str, mode: str) -> None:
    openai = pytest.importorskip("openai")
    if client == "DefaultAioHttpClient":
        pytest.importorskip("aiohttp")
    from relreason.models.body_cap import BodyRefusedError, capped_client
    from relreason.models.errors_map import APIRequestError, translate

    async def ask(url: str) -> BaseException:
        http = capped_client(getattr(openai, client), lambda: 1_000_000)
        sdk = openai.AsyncOpenAI(api_key="x", base_url=url, max_retries=0, http_client=http)
        try:
            await sdk.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "q"}]
            )
        except Exception as error:
            return error
        finally:
            await sdk.close()
        raise AssertionError("the hostile body was read")

    with HostileServer(mode) as server:
        error = asyncio.run(ask(server.url))
        sent = server.sent
    mapped = translate(error, sdk=openai, service="server")
    assert isinstance(mapped, APIRequestError) and not mapped.fatal, repr(error)
    assert "over the cap" in str(mapped)
    seen: BaseException | None = error
    while seen is not None and not isinstance(seen, BodyRefusedError):
        seen = seen.__cause__ or seen.__context__
    assert seen is not None
    assert sent < 64 * 2**20  # the client stopped reading (the socket buffers hold the rest)
