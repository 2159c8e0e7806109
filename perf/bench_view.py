"""Time ``relreason view``'s pages over real runs (the ``random`` and ``first`` baselines on all
1,598 English MCR items, made here), served by a real ``relreason view`` child process and asked
over HTTP: the runs table when first read, each page again (the runs unchanged: kept), a
filtered item browser, an item, two runs side by side, and the item browser after a record is
appended (that run read again). The peer, measured in the same run: ``load_runs`` of the same
folder without its cache (what ``relreason report`` pays to read it). Prints a markdown row.

    python perf/bench_view.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx


def _timed(client: httpx.Client, url: str) -> float:
    start = time.perf_counter()
    reply = client.get(url)
    reply.raise_for_status()
    return time.perf_counter() - start


def _best(client: httpx.Client, url: str, runs: int = 5) -> float:
    return min(_timed(client, url) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "runs"
        env = {**os.environ, "RELREASON_CACHE_DIR": str(Path(tmp) / "cache")}
        for model in ("random", "first"):
            command = [sys.executable, "-m", "relreason", "run", "mcr", "--language", "en"]
            command += ["--method", "zs", "--model", model, "--no-progress"]
            command += ["--data-dir", args.data_dir, "--out", str(root / model)]
            subprocess.run(command, check=True, env=env, capture_output=True)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        load_before = os.getloadavg()[0]
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "relreason", "view", str(root), "--port", str(port)],
            stdout=subprocess.DEVNULL,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.05)
            started = time.perf_counter() - start
            with httpx.Client(base_url=base, timeout=60) as client:
                first = _timed(client, "/")
                again = _best(client, "/")
                browse = _best(client, "/run?id=random")
                filtered = _best(client, "/run?id=random&correct=0&label_categories=Positional")
                item = _best(client, "/item?run=random&index=800")
                compare = _best(client, "/compare?a=random&b=first&differ=1")
                line = (root / "random" / "records.jsonl").read_text("utf-8").splitlines()[0]
                added = dict(json.loads(line), index=99_999, item_id="en/added")
                with open(root / "random" / "records.jsonl", "a", encoding="utf-8") as file:
                    file.write(json.dumps(added) + "\n")
                reread = _timed(client, "/run?id=random")
        finally:
            child.terminate()
            child.wait(30)
        from relreason.analysis import load_runs

        peer = min(_peer(load_runs, root) for _ in range(3))
        load_after = os.getloadavg()[0]
    print(f"date {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.node()}, {os.cpu_count()} CPUs")
    print(f"load average {load_before:.1f} before, {load_after:.1f} after")
    print(
        "| start (to listening) | / first read | / again | item browser | filtered | item "
        "| side by side | browser after an append | load_runs (peer) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    cells = (started, first, again, browse, filtered, item, compare, reread, peer)
    print("| " + " | ".join(f"{c * 1000:.0f} ms" for c in cells) + " |")


def _peer(load_runs: object, root: Path) -> float:
    start = time.perf_counter()
    load_runs(root, cache=False)  # type: ignore[operator]
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
