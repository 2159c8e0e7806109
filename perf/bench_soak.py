"""Soak test of relreason's hardening (a benchmark, not a test): kills, signals, concurrent
writers, hostile answers and malformed inputs, with real processes against the real local fault
server (tests/servers/fault_server.py) and the real OpenAI backend (official SDK).

Reports:
- kills survived: SIGKILLs at random moments and at every atomic rename (``os.replace``) of a
  run, each followed by a resume (which may itself be killed); survived = the folder resumes and
  ends equal to an uninterrupted run;
- items lost and duplicate records in the final folders;
- requests re-sent beyond in-flight ones: requests after a kill for items whose record was
  already on disk at the kill;
- SIGINT/SIGTERM stops that were clean (exit 130, manifest ``interrupted``, resume command shown);
- concurrent writers: processes racing on one folder (duplicates, lost items, refusals);
- key leaks: a planted key (in the environment, and echoed back by a hostile server) found in
  any file written or any output printed;
- malformed inputs that end in one clear message (exit 2, no traceback).

Usage: ``python perf/bench_soak.py [--kills 40] [--items 150] [--seed 1]``; prints a
Markdown report (see perf/RESULTS-soak.md).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from relreason.records import comparable, load_records  # noqa: E402
from servers.fault_server import FaultServer, toy_task  # noqa: E402

KEY = "sk-soak-PLANTED-9f8e7d6c5b4a39281706f5e4"

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from servers.fault_server import toy_task
    from relreason.cli.app import fail
    from relreason.errors import RelreasonError
    from relreason.models.openai.backend import OpenAIBackend
    from relreason.run.runner import RunOptions, resume_run, run_task

    url, out, mode, n = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    kill_at, cache = int(sys.argv[5]), Path(sys.argv[6])
    if kill_at:  # kill at rename number kill_at // 10, before (0) or after (1) it
        real_replace, calls = os.replace, [0]
        nth, after = kill_at // 10, kill_at % 10
        def replace(src, dst, *a, **k):
            calls[0] += 1
            if calls[0] == nth and not after:
                os.kill(os.getpid(), signal.SIGKILL)
            real_replace(src, dst, *a, **k)
            if calls[0] == nth:
                os.kill(os.getpid(), signal.SIGKILL)
        os.replace = replace
    backend = OpenAIBackend("fault-model", base_urls=[url], timeout=2)
    options = RunOptions(cache_path=cache, concurrency=4, request_timeout=3, max_retries=6,
                         retry_initial_wait=0.05, retry_max_wait=0.3, show_progress=False)
    try:
        if mode == "run":
            summary = run_task(toy_task(n), backend, out, options)
        else:
            summary = resume_run(out, task=toy_task(n), backend=backend)
        print(summary)
    except RelreasonError as error:
        fail(str(error), error.exit_code, interrupted=error.exit_code == 130)
    """
)


def child_env() -> dict[str, str]:
    """The environment of every child: the planted key, relreason's source first."""
    src = str(ROOT / "src")
    return {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": src}


class Soak:
    """Runs the scenarios in one scratch folder and keeps the figures."""

    def __init__(self, work: Path, items: int, rng: random.Random) -> None:
        self.work = work
        self.items = items
        self.rng = rng
        self.script = work / "child.py"
        self.script.write_text(CHILD.format(tests=str(ROOT / "tests")))
        self.outputs: list[str] = []
        self.figures: Counter[str] = Counter()
        self.notes: list[str] = []

    def spawn(self, url: str, out: Path, mode: str, kill_at: int = 0) -> subprocess.Popen[str]:
        """Start a child run or resume of ``out``."""
        args = [sys.executable, str(self.script), url, str(out), mode, str(self.items)]
        args += [str(kill_at), str(self.work / f"{out.name}.sqlite3")]
        return subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env()
        )

    def finish(self, child: subprocess.Popen[str], timeout: float = 300) -> int:
        """Wait for a child; keep what it printed (searched for the key later)."""
        out, err = child.communicate(timeout=timeout)
        self.outputs += [out, err]
        return int(child.returncode)

    # scenarios -----------------------------------------------------------------------
    def reference(self, server: FaultServer) -> dict[int, dict[str, Any]]:
        """An uninterrupted run's records (no cache shared with the others)."""
        out = self.work / "reference"
        code = self.finish(self.spawn(server.url, out, "run"))
        assert code == 0, "the reference run failed"
        return load_records(out)

    def kill_cycle(
        self, server: FaultServer, name: str, kills: list[tuple[str, float | int]]
    ) -> tuple[Path, int]:
        """Run a folder through ``kills`` (("time", seconds) or ("rename", k)), resuming after
        each; then resume to the end. Returns the folder and the re-sent request count."""
        out = self.work / name
        resent = 0
        for kind, when in kills:
            # a user reruns the command when no manifest was written yet, else resumes
            mode = "resume" if (out / "manifest.json").is_file() else "run"
            child = self.spawn(server.url, out, mode, int(when) if kind == "rename" else 0)
            if kind == "time":
                time.sleep(float(when))
                if child.poll() is None:
                    child.send_signal(signal.SIGKILL)
            code = self.finish(child)
            self.figures["kills"] += 1
            if code != -signal.SIGKILL:
                self.figures["kills that came too late"] += 1
            time.sleep(0.2)  # let the server take in what the dead client had sent
            resent += self.resent_after(server, out)
        mode = "resume" if (out / "manifest.json").is_file() else "run"
        code = self.finish(self.spawn(server.url, out, mode))
        if code != 0:
            said = self.outputs[-1].strip().splitlines()[-1:] if self.outputs else []
            self.notes.append(f"{name}: final resume exited {code}: {said}")
        resent += self.resent_after(server, out)
        return out, resent

    def resent_after(self, server: FaultServer, out: Path) -> int:
        """Start counting requests for items already on disk; counted at the next call."""
        counts = server.stats()["counts"]
        prompts = {item.index: item.prompt for item in toy_task(self.items).items}
        previous = getattr(self, "_watch", {})
        resent = sum(1 for p, c in previous.items() if counts.get(p, 0) != c)
        try:
            done = {i for i, r in load_records(out).items() if r.get("status") != "failed"}
        except Exception:  # a folder the kill left unreadable counts as not survived later
            done = set()
        self._watch = {prompts[i]: counts.get(prompts[i], 0) for i in done}
        return resent

    def judge(self, out: Path, reference: dict[int, dict[str, Any]]) -> bool:
        """Count lost items and duplicates in a finished folder; return whether it survived."""
        self._watch = {}
        try:
            records = load_records(out)
            lines = (out / "records.jsonl").read_text("utf-8").splitlines()
            manifest = json.loads((out / "manifest.json").read_text("utf-8"))
        except Exception as error:
            self.notes.append(f"{out.name}: unreadable ({error})")
            self.figures["items lost"] += self.items
            return False
        indices = [json.loads(line)["index"] for line in lines]
        self.figures["duplicate records"] += len(indices) - len(set(indices))
        lost = [i for i in reference if comparable(records.get(i, {})) != comparable(reference[i])]
        self.figures["items lost"] += len(lost)
        return not lost and manifest.get("status") == "complete"

    def signals(self, server: FaultServer, rounds: int) -> None:
        """SIGINT/SIGTERM at random moments: a clean stop, then a clean resume."""
        for number in range(rounds):
            out = self.work / f"signal-{number}"
            child = self.spawn(server.url, out, "run")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and child.poll() is None:
                records = out / "records.jsonl"  # signal a run that is under way
                if records.exists() and records.read_bytes().count(b"\n") >= 5:
                    break
                time.sleep(0.05)
            time.sleep(self.rng.uniform(0.0, 1.5))
            sig = signal.SIGINT if number % 2 else signal.SIGTERM
            sent = time.monotonic()
            child.send_signal(sig)
            out_text, err = child.communicate(timeout=60)
            self.outputs += [out_text, err]
            took = time.monotonic() - sent
            self.figures["signals sent"] += 1
            try:
                manifest = json.loads((out / "manifest.json").read_text("utf-8"))
            except (OSError, ValueError) as error:
                self.notes.append(f"{out.name}: no manifest after the signal ({error})")
                manifest = {}
            clean = (
                child.returncode == 130
                and manifest.get("status") == "interrupted"
                and f"relreason run --resume {out}" in err
                and "Traceback" not in err
            )
            self.figures["clean signal stops"] += clean or child.returncode == 0
            self.figures["slowest signal stop (ms)"] = max(
                self.figures["slowest signal stop (ms)"], int(took * 1000)
            )

    def racers(self, server: FaultServer, rounds: int, reference: dict[int, Any]) -> None:
        """Three processes start on one folder at once; one writes, the others are refused."""
        for number in range(rounds):
            out = self.work / f"race-{number}"
            children = [self.spawn(server.url, out, "run") for _ in range(3)]
            codes = [self.finish(c) for c in children]
            self.figures["racing processes"] += 3
            self.figures["racers refused"] += sum(c == 2 for c in codes)
            self.judge(out, reference)

    def hostile_echo(self) -> None:
        """A server that echoes the key inside a successful answer (a scripted backend in-process:
        no real server does this on cue)."""
        from relreason.models.base import ModelBackend
        from relreason.run.runner import RunOptions, run_task
        from relreason.types import Response

        class Echo(ModelBackend):
            spec = "echo"

            def describe(self) -> dict[str, Any]:
                return {"backend": "echo"}

            async def generate(self, requests: Any) -> list[Response]:
                return [Response(text=f"A. Your key: {KEY}") for _ in requests]

            async def score_choices(self, requests: Any) -> list[Response]:
                raise NotImplementedError

        os.environ["OPENAI_API_KEY"] = KEY
        run_task(
            toy_task(20),
            Echo(),
            self.work / "echo",
            RunOptions(cache_path=self.work / "echo.sqlite3"),
        )

    def leaks(self) -> int:
        """Files and printed outputs holding the planted key."""
        found = [
            f"output: ...{t[t.index(KEY) - 80 : t.index(KEY)]!r}" for t in self.outputs if KEY in t
        ]
        inputs = {self.script, *(self.work / "malformed").glob("*.yaml")}  # written by us
        for path in self.work.rglob("*"):
            if path.is_file() and path not in inputs and KEY.encode() in path.read_bytes():
                found.append(str(path))
        self.notes += [f"leak: {where}" for where in found]
        return len(found)


MALFORMED = {
    "manifest option of the wrong type": ("manifest", lambda d: d["options"].update(seed="x")),
    "manifest parameter of the wrong type": (
        "manifest",
        lambda d: d["options"]["params"].update(max_new_tokens=[1]),
    ),
    "manifest model options a list": ("manifest", lambda d: d["model"].update(options=[1])),
    "manifest a list": ("manifest-text", "[1]"),
    "manifest deeply nested": ("manifest-text", "[" * 100_000 + "]" * 100_000),
    "manifest not JSON": ("manifest-text", "{oops"),
    "record index of 5000 digits": ("records-text", '{"index": ' + "9" * 5000 + "}\n{}\n"),
    "record deeply nested": ("records-text", "[" * 100_000 + "]" * 100_000 + "\n{}\n"),
    "record index outside the task": ("records-text", '{"index": 9999}\n'),
}


def malformed(work: Path, reference_folder: Path) -> tuple[int, int, list[str]]:
    """Each malformed input through the real CLI: (clear errors, cases, the unclear ones)."""
    cases: list[tuple[str, list[str]]] = []
    for name, (kind, change) in MALFORMED.items():
        folder = work / "malformed" / name.replace(" ", "-")
        shutil.copytree(reference_folder, folder)
        if kind == "manifest":
            data = json.loads((folder / "manifest.json").read_text())
            change(data)  # type: ignore[operator]
            (folder / "manifest.json").write_text(json.dumps(data))
        elif kind == "manifest-text":
            (folder / "manifest.json").write_text(str(change))
        else:
            (folder / "records.jsonl").write_text(str(change))
        cases.append((name, ["run", "--resume", str(folder)]))
    for url in [
        "http://127.0.0.1:99999/v1",
        "http://[::1/v1",
        "http://h:x/v1",
        f"http://h/v1/{KEY}",
        "http://h/v1#token",
    ]:
        cases.append(
            (
                f"base URL {url[:24]}",
                ["run", "convre", "--model", "openai:m", "--base-url", url, "--no-progress"],
            )
        )
    sweeps = {
        "sweep with an api_key": f"out: o\nmodels: [{{spec: m, api_key: {KEY}}}]\nruns: []\n",
        "sweep with duplicate keys": "out: o\nout: p\nmodels: [oracle]\nruns: []\n",
        "sweep alias bomb": "\n".join(
            ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
            + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
        )
        + "\n",
        "sweep not YAML": "out: [\n",
    }
    for name, text in sweeps.items():
        path = work / "malformed" / f"{name.replace(' ', '-')}.yaml"
        path.write_text(text)
        cases.append((name, ["sweep", str(path), "--no-progress"]))
    responses = work / "malformed" / "responses.jsonl"
    responses.write_text('{"index": ' + "9" * 5000 + ', "output": "A"}\n')
    cases.append(
        (
            "responses with a huge index",
            [
                "score",
                "convre",
                "--responses",
                str(responses),
                "--out",
                str(work / "malformed" / "scored.jsonl"),
            ],
        )
    )
    summary_dir = work / "malformed" / "report"
    shutil.copytree(reference_folder, summary_dir / "run")
    (summary_dir / "run" / "summary.json").write_text("{broken")
    cases.append(("corrupt summary under report", ["report", str(summary_dir)]))
    unclear = []
    for name, args in cases:
        done = subprocess.run(
            [sys.executable, "-c", "from relreason.cli import main; main()", *args],
            capture_output=True,
            text=True,
            env=child_env(),
            timeout=120,
        )
        ok = done.returncode == 2 and "Traceback" not in done.stderr and KEY not in done.stderr
        if not ok:
            unclear.append(f"{name} (exit {done.returncode}: {done.stderr.strip()[-160:]!r})")
    return len(cases) - len(unclear), len(cases), unclear


def main() -> None:
    """Run every scenario and print the Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=40, help="random-moment SIGKILLs")
    parser.add_argument("--items", type=int, default=150)
    parser.add_argument("--signals", type=int, default=6)
    parser.add_argument("--races", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="relreason-soak-"))
    soak = Soak(work, args.items, rng)
    survived = total = 0
    with FaultServer(fault_rate=0.2, hang_s=2.5, retry_after=0.2, delay_s=0.02) as server:
        reference = soak.reference(server)
        # random moments: cycles of 1-3 kills each
        left, cycle = args.kills, 0
        while left > 0:
            n = min(left, rng.randint(1, 3))
            kills = [("time", rng.uniform(0.3, 4.0)) for _ in range(n)]
            out, resent = soak.kill_cycle(server, f"kill-{cycle}", kills)
            soak.figures["requests re-sent"] += resent
            ok = soak.judge(out, reference)
            survived += ok * n
            total += n
            left -= n
            cycle += 1
        # every atomic rename of a run (manifest, records, summary writes), before and after
        renames = 0
        for nth in range(1, 7):
            for after in (0, 1):
                late = soak.figures["kills that came too late"]
                out, resent = soak.kill_cycle(
                    server, f"rename-{nth}-{after}", [("rename", nth * 10 + after)]
                )
                if soak.figures["kills that came too late"] > late:  # fewer renames than nth
                    soak.figures["kills that came too late"] = late
                    soak.figures["kills"] -= 1
                    soak.judge(out, reference)
                    continue
                soak.figures["requests re-sent"] += resent
                survived += soak.judge(out, reference)
                total += 1
                renames += 1
        soak.signals(server, args.signals)
        soak.racers(server, args.races, reference)
    soak.hostile_echo()
    clear, cases, unclear = malformed(work, work / "reference")
    soak.outputs += unclear
    leaks = soak.leaks()
    figures = soak.figures
    rows = [
        ("kills survived (SIGKILL, then resume)", f"{survived}/{total}"),
        ("  of which at an atomic rename (before/after `os.replace`)", str(renames)),
        ("  kills that came after the run had ended", str(figures["kills that came too late"])),
        ("items lost", str(figures["items lost"])),
        ("duplicate records", str(figures["duplicate records"])),
        ("requests re-sent beyond in-flight ones", str(figures["requests re-sent"])),
        (
            "clean SIGINT/SIGTERM stops",
            f"{figures['clean signal stops']}/{figures['signals sent']}",
        ),
        ("slowest signal stop", f"{figures['slowest signal stop (ms)']} ms"),
        ("racing writers refused", f"{figures['racers refused']}/{figures['racing processes']}"),
        ("key leaks (files written, output printed)", str(leaks)),
        ("malformed inputs with a clear error", f"{clear}/{cases}"),
    ]
    print(f"# relreason soak ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)\n")
    print(
        f"{args.items} items per run, fault rate 0.2, seed {args.seed}; "
        f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores; "
        f"{time.monotonic() - started:.0f} s\n"
    )
    print("| measure | result |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    for line in soak.notes + [f"unclear: {u}" for u in unclear]:
        print(f"\n- {line}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
