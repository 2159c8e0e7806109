"""The core install needs no model library: prompts, scoring, baselines and the runner work
with torch, transformers, openai and anthropic made unimportable.

A fresh virtual environment without those packages cannot be built here in test time, so the
test blocks their import in a subprocess instead (a meta-path finder that refuses them).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BLOCKER = """
import sys
BLOCKED = {"torch", "transformers", "openai", "anthropic", "gguf", "accelerate", "llama_cpp"}
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is blocked: the core install must not need it")
        return None
sys.meta_path.insert(0, Block())
from relreason.cli import main
main(sys.argv[1:])
"""


def _relreason(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {"RELREASON_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-c", BLOCKER, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_core_commands_run_without_model_libraries(shared_data: Path, tmp_path: Path) -> None:
    data = ["--data-dir", str(shared_data)]
    prompts = _relreason(["prompts", "mcr", "--language", "fr", "--method", "zs", *data], tmp_path)
    assert prompts.returncode == 0, prompts.stderr
    assert len(prompts.stdout.splitlines()) == 1598
    out = tmp_path / "run"
    run = _relreason(
        [
            *("run", "convre", "--task", "re2text", "--setting", "2", "--model", "random:3"),
            *("--no-progress", "--out", str(out), *data),
        ],
        tmp_path,
    )
    assert run.returncode == 0, run.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n"] == 1240


def test_a_model_backend_without_its_extra_names_the_extra(
    shared_data: Path, tmp_path: Path
) -> None:
    args = ["run", "convre", "--task", "re2text", "--model", "smollm2", "--limit", "1"]
    done = _relreason([*args, "--data-dir", str(shared_data)], tmp_path)
    assert done.returncode == 2
    # the hint follows how relreason was installed (a checkout, a wheel): its extra is named
    assert "needs the 'hf' extra" in done.stderr and "[hf]" in done.stderr
    assert "Traceback" not in done.stderr
