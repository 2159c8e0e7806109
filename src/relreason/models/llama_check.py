"""Whether the installed llama-cpp-python build runs on this CPU, asked once per build.

A llama-cpp-python wheel built natively on another CPU, or with instructions this machine's
kernel does not allow (AMX tiles), dies by SIGSEGV or SIGILL at its first forward pass: no
Python exception, no message. Before ``gguf:`` loads a model, :func:`check_build` runs a
two-token completion in a subprocess (``python -m relreason.models.llama_check [FILE]``: the
bundled SmolLM2 GGUF when it is installed, else the file asked for) and keeps the verdict in the
user cache, keyed by llama-cpp-python's version and the path and mtime of its library: one
subprocess per installed build, nothing after. A build that dies is refused with the command
that rebuilds it portably (exit 2). A probe that fails otherwise (no memory, a bad file) is not
kept and blocks nothing: the load itself then says what is wrong.

``RELREASON_LLAMA_PROBE`` names another Python script to run as the probe, given the model file
(the tests point it at one that kills itself with SIGSEGV: a crashing build cannot be made on a
machine whose build works).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from relreason.errors import UsageError
from relreason.paths import cache_root

PROBE_ENV = "RELREASON_LLAMA_PROBE"
PORTABLE_CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
"""A build for any x86-64 CPU with AVX2 (no native tuning, no AMX)."""
PROBE_TIMEOUT_S = 300
VERDICTS_FILE = "llama-cpp-builds.json"


def rebuild_command(version: str) -> str:
    """The command that rebuilds llama-cpp-python ``version`` portably, bypassing pip's cache
    (which may hold the crashing wheel)."""
    return (
        f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" pip install --force-reinstall --no-cache-dir '
        f"--no-deps --no-binary llama-cpp-python llama-cpp-python=={version}"
    )


def build_key() -> str:
    """``VERSION|LIBRARY|MTIME_NS`` of the installed llama-cpp-python (located, not imported)."""
    version = importlib.metadata.version("llama-cpp-python")
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or spec.origin is None:
        raise UsageError("llama-cpp-python is installed but its llama_cpp package is not found")
    package = Path(spec.origin).parent
    library = next(iter(sorted(package.glob("lib/libllama*"))), Path(spec.origin))
    return f"{version}|{library}|{library.stat().st_mtime_ns}"


def check_build(model: Path) -> None:
    """Run the probe once per installed build; raise ``UsageError`` when the build dies by a
    signal, naming the signal and the portable rebuild command."""
    key = build_key()
    verdicts = _read_verdicts()
    verdict = verdicts.get(key)
    if verdict is None:
        verdict = _probe(_probe_file(model))
        if verdict is None:  # inconclusive: not kept, the load says what is wrong
            return
        verdicts[key] = verdict
        _write_verdicts(verdicts)
    if not verdict.get("ok"):
        version = key.split("|", 1)[0]
        raise UsageError(
            f"llama-cpp-python {version} crashes on this CPU ({verdict.get('detail')} at its "
            "first forward pass): it was built for another processor, or with instructions "
            "this machine does not allow (such as AMX tiles). Rebuild it portably (about 10 "
            f"minutes on 2 cores): {rebuild_command(version)}   Then remove the crashing wheel "
            "from pip's cache, so that no later install takes it: pip cache remove "
            "'llama_cpp_python*'"
        )


def _probe_file(model: Path) -> Path:
    """The bundled SmolLM2 GGUF (small, quick) when installed, else ``model``."""
    from relreason.errors import RelreasonError
    from relreason.models.smollm2 import gguf_path

    try:
        return gguf_path()
    except RelreasonError:
        return model


def _probe(model: Path) -> dict[str, Any] | None:
    """Run the probe subprocess: ``{"ok": True}``, ``{"ok": False, "detail": ...}`` when it
    died by a signal, None when it failed otherwise or ran out of time."""
    script = os.environ.get(PROBE_ENV)
    command = [sys.executable, *([script] if script else ["-m", __name__]), str(model)]
    env = dict(os.environ)
    source = str(Path(__file__).resolve().parents[2])  # where this relreason is imported from
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source, env.get("PYTHONPATH")) if p)
    try:
        done = subprocess.run(
            command, capture_output=True, timeout=PROBE_TIMEOUT_S, env=env, check=False
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode == 0:
        return {"ok": True}
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        return {"ok": False, "detail": f"killed by {name}"}
    return None


def _read_verdicts() -> dict[str, dict[str, Any]]:
    try:
        data = json.loads((cache_root() / VERDICTS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_verdicts(verdicts: dict[str, dict[str, Any]]) -> None:
    """Write atomically; a cache that cannot be written only costs a probe next time."""
    path = cache_root() / VERDICTS_FILE
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(verdicts, indent=1), encoding="utf-8")
        temporary.replace(path)


def _main(model: str | None) -> int:
    """The probe: load ``model`` (default: the bundled SmolLM2 GGUF) and complete two tokens
    (a crashing build dies here). ``scripts/test.sh`` runs it too."""
    from llama_cpp import Llama

    from relreason.models.smollm2 import gguf_path

    llm = Llama(model or str(gguf_path()), n_ctx=64, n_threads=1, n_threads_batch=1, verbose=False)
    out: Any = llm.create_completion("Answer with A or B:", max_tokens=2)
    print("llama-cpp-python works:", repr(out["choices"][0]["text"]))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1] if len(sys.argv) > 1 else None))
