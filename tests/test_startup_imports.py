"""The command line and the path of a run on an API model (``openai:``) import none of the heavy
libraries (torch, pandas, matplotlib, transformers): they cost seconds of start-up and only
local models, analyses and figures need them. A structural check in a fresh interpreter (a
subprocess reads its own ``sys.modules``); the start-up time itself is measured in
perf/bench_startup.py, never asserted here.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("torch", "pandas", "matplotlib", "transformers")
ROOT = Path(__file__).resolve().parents[1]
SHOW_HEAVY = f"print('HEAVY', sorted(m for m in {HEAVY!r} if m in sys.modules))"


def heavy_after(code: str, *args: str, show: str = SHOW_HEAVY) -> list[str]:
    """The heavy modules loaded after running ``code`` (then ``show``, which prints them) in a
    fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\n{show}", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("HEAVY ")]
    assert lines, f"no HEAVY line (exit {done.returncode}):\n{done.stdout}\n{done.stderr[-3000:]}"
    return list(ast.literal_eval(lines[-1].removeprefix("HEAVY ")))


def test_the_command_line_and_the_openai_path_import_nothing_heavy() -> None:
    code = (
        "import sys\n"
        "import relreason.cli, relreason.cli.app, relreason.run.runner\n"
        "from relreason.models.registry import load_backend\n"
        "load_backend('openai:bench', base_urls=['http://127.0.0.1:9/v1'])\n"
    )
    assert heavy_after(code) == []


def test_building_the_command_line_imports_no_generator() -> None:
    """``generate/``'s package imports all of it (compose, verify, audit: ~30 ms); the command
    line (compose's listing, the ``generate`` commands) imports it only when a command uses it."""
    code = "import sys\nfrom relreason.cli.app import build_app\nbuild_app()\n"
    show = "print('HEAVY', sorted(m for m in sys.modules if m.startswith('relreason.generate')))"
    assert heavy_after(code, show=show) == []


def test_a_whole_run_on_a_local_openai_server_imports_nothing_heavy(tmp_path: Path) -> None:
    """The real command (``relreason run compose``, its bundled set) against a real local
    OpenAI-compatible server (tests/servers/fault_server.py, no faults)."""
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "servers" / "fault_server.py"), "--fault-rate", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        code = (
            "import sys\n"
            "sys.argv = ['relreason', *sys.argv[1:]]\n"
            "from relreason.cli import main\n"
            "try:\n"
            "    main()\n"
            "except SystemExit as stop:\n"
            "    assert not stop.code, stop.code\n"
        )
        args = ["run", "compose", "--model", "openai:bench", "--base-url", url]
        args += ["--limit", "2", "--no-cache", "--no-progress", "--out", str(tmp_path / "run")]
        assert heavy_after(code, *args) == []
        assert (tmp_path / "run" / "summary.json").is_file()
    finally:
        server.terminate()
        server.wait(10)
