"""Time reading a run folder's records with every line checked (``records.load_typed_records``:
``json.loads`` + pydantic against ``Record``) against parsing the lines alone (``json.loads`` of
each line: the floor any reader pays), in one process, best of 5, with the load average before
and after. The records are a real run's (the ``random`` baseline on MCR items, made here),
repeated to N with fresh indices.

    python perf/bench_record_checks.py --data-dir ../shared/data [--n 50000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path


def best_of(fn: object, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--n", type=int, default=50_000)
    args = parser.parse_args()
    from relreason.records import load_typed_records

    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        command = [sys.executable, "-m", "relreason", "run", "mcr", "--language", "fr"]
        command += ["--method", "zs", "--model", "random:1", "--limit", "200", "--no-cache"]
        command += ["--no-progress", "--out", str(run), "--data-dir", args.data_dir]
        subprocess.run(command, check=True, capture_output=True)
        made = (run / "records.jsonl").read_text("utf-8").splitlines()
        folder = Path(tmp) / "big"
        folder.mkdir()
        lines = []
        for i in range(args.n):
            data = json.loads(made[i % len(made)])
            data["index"] = i
            lines.append(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
        (folder / "records.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
        raw = (folder / "records.jsonl").read_bytes()
        before = os.getloadavg()
        parse = best_of(lambda: [json.loads(line) for line in raw.split(b"\n") if line])
        checked = best_of(lambda: load_typed_records(folder))
        after = os.getloadavg()
    print(f"date: {datetime.now(UTC).isoformat(timespec='seconds')}")
    print(f"machine: {platform.node()} {platform.processor() or platform.machine()}")
    print(f"load average before/after: {before[0]:.1f} / {after[0]:.1f}")
    print(f"records: {args.n} ({len(raw) / 2**20:.1f} MiB)")
    print(f"json.loads of every line: {parse:.3f} s")
    print(f"load_typed_records (checked): {checked:.3f} s ({checked / parse:.2f}x)")
    print(f"per record, the check: {(checked - parse) / args.n * 1e6:.1f} us")


if __name__ == "__main__":
    main()
