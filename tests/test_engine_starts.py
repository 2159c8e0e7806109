"""Local engines start, or stop at once with exit 2 saying why and what to type (issue 30).

The command-line tests run the real ``relreason`` in a subprocess and check the exit code, the
one message and that no traceback is printed. llama.cpp is the real one with the bundled SmolLM2
GGUF; the crash of a non-portable llama-cpp-python build cannot be reproduced on a machine
whose build works, so those tests point the probe (``RELREASON_LLAMA_PROBE``) at a script that
kills itself with SIGSEGV, the way the crashing build dies. The vLLM cases are in
``test_vllm_backend.py`` (vLLM's own environment).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from relreason.errors import UsageError
from relreason.models import llama_check
from relreason.models.baselines import BaselineBackend
from relreason.models.devices import available, check_device, cuda_count, has_mps
from relreason.models.engine_log import TeeOutput, root_cause
from relreason.models.vllm_memory import FLOOR, pick_share, weights_bytes

REPO = Path(__file__).resolve().parents[1]
RUN = ("run", "compose", "--language", "en", "--method", "zs", "--scoring", "logprob")
RUN_SMALL = (*RUN, "--sample", "2")
CRASH = """import os, signal, sys
with open(os.environ["PROBE_COUNT"], "a") as f:
    f.write("x")
os.kill(os.getpid(), signal.SIGSEGV)
"""
FAILS = """import os, sys
with open(os.environ["PROBE_COUNT"], "a") as f:
    f.write("x")
sys.exit(3)
"""


def relreason(tmp: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The real command line, with its own cache folder under ``tmp``."""
    environ = {**os.environ, "RELREASON_CACHE_DIR": str(tmp / "cache"), **env}
    environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH")) if p
    )
    return subprocess.run(
        [sys.executable, "-m", "relreason", *args],
        capture_output=True,
        text=True,
        env=environ,
        timeout=600,
        check=False,
    )


def probe(tmp: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    """Point the llama.cpp probe at a script; return the file it counts its runs in."""
    script, count = tmp / "probe.py", tmp / "probe-runs"
    script.write_text(text, encoding="utf-8")
    monkeypatch.setenv(llama_check.PROBE_ENV, str(script))
    monkeypatch.setenv("PROBE_COUNT", str(count))
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp / "cache"))
    return count


def runs(count: Path) -> int:
    return len(count.read_text()) if count.exists() else 0


# ------------------------------------------------------------------ llama.cpp builds

needs_llama = pytest.mark.skipif(
    __import__("importlib").util.find_spec("llama_cpp") is None,
    reason="llama-cpp-python is not installed (the [gguf] extra)",
)


@needs_llama
def test_a_build_killed_by_a_signal_is_refused_with_the_rebuild_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    count = probe(tmp_path, monkeypatch, CRASH)
    version = llama_check.build_key().split("|")[0]
    for _ in range(2):
        with pytest.raises(UsageError) as caught:
            llama_check.check_build(tmp_path / "any.gguf")
        text = str(caught.value)
        assert "SIGSEGV" in text and "crashes on this CPU" in text
        assert llama_check.rebuild_command(version) in text
        assert "-DGGML_NATIVE=OFF" in text and "--no-cache-dir" in text
    assert runs(count) == 1, "the verdict is kept: the second check runs no probe"


@needs_llama
def test_a_probe_that_fails_otherwise_blocks_nothing_and_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    count = probe(tmp_path, monkeypatch, FAILS)
    llama_check.check_build(tmp_path / "any.gguf")
    llama_check.check_build(tmp_path / "any.gguf")
    assert runs(count) == 2
    assert not (tmp_path / "cache" / llama_check.VERDICTS_FILE).exists()


@needs_llama
@pytest.mark.model
def test_the_real_build_passes_once_and_is_not_probed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from relreason.models.smollm2 import gguf_path

    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    key = llama_check.build_key()
    version, library, mtime = key.split("|")
    stale = f"{version}|{library}|{int(mtime) + 1}"  # the same build before a reinstall
    verdicts = tmp_path / "cache" / llama_check.VERDICTS_FILE
    verdicts.parent.mkdir(parents=True)
    verdicts.write_text(json.dumps({stale: {"ok": False, "detail": "killed by SIGSEGV"}}))
    llama_check.check_build(gguf_path())  # the real probe: llama.cpp completes two tokens
    assert json.loads(verdicts.read_text())[key] == {"ok": True}
    count = probe(tmp_path, monkeypatch, CRASH)
    llama_check.check_build(gguf_path())
    assert runs(count) == 0, "a kept verdict costs no probe"


@needs_llama
def test_gguf_run_on_a_crashing_build_exits_2_naming_the_rebuild(tmp_path: Path) -> None:
    script = tmp_path / "crash.py"
    script.write_text(CRASH, encoding="utf-8")
    done = relreason(
        tmp_path,
        *RUN_SMALL,
        "--model",
        "gguf:smollm2",
        "--out",
        str(tmp_path / "run"),
        RELREASON_LLAMA_PROBE=str(script),
        PROBE_COUNT=str(tmp_path / "count"),
    )
    assert done.returncode == 2, done.stderr
    assert "crashes on this CPU (killed by SIGSEGV" in done.stderr
    assert "--no-binary llama-cpp-python llama-cpp-python==" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert not (tmp_path / "run").exists()


@needs_llama
@pytest.mark.model
def test_gguf_file_llama_cpp_cannot_load_exits_2_with_its_reason(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-model.gguf"
    bad.write_bytes(b"this is not a GGUF file\n" * 64)
    done = relreason(tmp_path, *RUN_SMALL, "--model", f"gguf:{bad}", "--out", str(tmp_path / "r"))
    assert done.returncode == 2, done.stderr
    assert f"cannot load GGUF file {bad}: llama.cpp says: " in done.stderr
    said = done.stderr.split("llama.cpp says: ", 1)[1]
    assert not said.startswith("Failed to load model"), "llama.cpp's own reason, not the wrapper's"
    assert "Traceback" not in done.stderr + done.stdout


# ------------------------------------------------------------------ transformers


@pytest.mark.model
def test_hf_folder_transformers_cannot_load_exits_2_with_its_reason(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    folder = tmp_path / "broken-model"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "no-such-architecture"}')
    done = relreason(tmp_path, *RUN_SMALL, "--model", f"hf:{folder}", "--out", str(tmp_path / "r"))
    assert done.returncode == 2, done.stderr
    assert f"cannot load model '{folder}'" in done.stderr
    assert "no-such-architecture" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


# ------------------------------------------------------------------ devices

no_gpu = pytest.mark.skipif(cuda_count() > 0, reason="this machine has a CUDA GPU")


def test_cpu_and_auto_are_always_there() -> None:
    check_device("cpu")
    check_device("auto")
    assert available()[0] == "cpu"


@no_gpu
@pytest.mark.parametrize("device", ["cuda", "cuda:0", "cuda:3"])
def test_cuda_without_a_gpu_is_refused_naming_what_is_there(device: str) -> None:
    with pytest.raises(UsageError, match="no CUDA GPU found") as caught:
        check_device(device)
    assert f"available here: {', '.join(available())}" in str(caught.value)


@pytest.mark.skipif(has_mps(), reason="this machine has Apple's GPU")
def test_mps_off_apple_silicon_is_refused() -> None:
    with pytest.raises(UsageError, match="device 'mps' is not available"):
        check_device("mps")


@pytest.mark.parametrize("device", ["gpu", "cpu:1", "cuda:x", "CUDA", ""])
def test_malformed_devices_are_refused_with_the_valid_forms(device: str) -> None:
    with pytest.raises(UsageError, match=r"unknown device .*valid forms: cpu, cuda, cuda:N"):
        check_device(device)


@no_gpu
@pytest.mark.parametrize(("model", "device"), [("smollm2", "cuda"), ("hf:gpt2", "cuda:3")])
def test_run_on_a_missing_device_exits_2_before_loading_anything(
    tmp_path: Path, model: str, device: str
) -> None:
    done = relreason(
        tmp_path, *RUN, "--model", model, "--device", device, "--out", str(tmp_path / "r")
    )
    assert done.returncode == 2, done.stderr
    assert f"device '{device}' is not available" in done.stderr
    assert "available here: cpu" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert not (tmp_path / "r").exists() and not (tmp_path / "cache" / "models").exists()


@no_gpu
@pytest.mark.model
def test_an_hf_backend_built_by_hand_refuses_the_device_before_loading(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from relreason.models.hf.backend import HFBackend

    with pytest.raises(UsageError, match="device 'cuda' is not available"):
        HFBackend(str(tmp_path / "no-model-here"), device="cuda")  # no load error: never read


# ------------------------------------------------------------------ what a backend chose


class _Chooses(BaselineBackend):
    """A real baseline that also reports an option it chose itself (as vllm: does on a CPU)."""

    def chosen_options(self) -> dict[str, Any]:
        return {"gpu_memory_utilization": 0.3}


@pytest.mark.parametrize(("given", "recorded"), [(None, 0.3), (0.5, 0.5)])
def test_options_a_backend_chose_are_recorded_unless_given(
    tmp_path: Path, given: float | None, recorded: float
) -> None:
    from relreason.run.runner import RunOptions, run_task
    from servers.fault_server import toy_task

    out = tmp_path / "run"
    run_task(
        toy_task(3),
        _Chooses("first"),
        out,
        RunOptions(use_cache=False),
        model_options={"gpu_memory_utilization": given},
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["model"]["options"]["gpu_memory_utilization"] == recorded


# ------------------------------------------------------------------ an engine's own reason

_TEXT = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=60)


def test_root_cause_is_the_engine_process_error_not_the_pointer_to_it() -> None:
    log = [
        "\x1b[1;36m(EngineCore pid=812)\x1b[0;0m ERROR [core.py:1] EngineCore failed to start.",
        "(EngineCore pid=812) Traceback (most recent call last):",
        '(EngineCore pid=812)   File "cpu_worker.py", line 83, in init_device',
        "(EngineCore pid=812) ValueError: Available memory on node 0 (1.0/2.0 GiB) is less than"
        " desired CPU memory utilization (0.99, 1.98 GiB).",
        "Exception: WorkerProc initialization failed due to an exception in a background process."
        " See stack trace for root cause.",
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core"
        " proc(s): {}",
    ]
    assert root_cause(log) == (
        "Available memory on node 0 (1.0/2.0 GiB) is less than desired CPU memory utilization"
        " (0.99, 1.98 GiB)."
    )
    assert root_cause(log[:3]) is None


@given(st.lists(_TEXT.filter(lambda t: "Error: " not in t and "Exception: " not in t)), _TEXT)
def test_root_cause_finds_the_last_error_line_after_any_log(before: list[str], said: str) -> None:
    assume(said.strip() and not any(g in said for g in ("root cause above", "initialization")))
    assert root_cause([*before, f"(EngineCore pid=7) pkg.mod.KeyError: {said}"]) == said.strip()
    assert root_cause(before) is None


def test_tee_keeps_what_a_started_process_writes_and_passes_it_on(
    capfd: pytest.CaptureFixture[str],
) -> None:
    tee = TeeOutput()
    with tee:
        code = "import sys; print('from the child'); sys.stderr.write('ValueError: it broke\\n')"
        subprocess.run([sys.executable, "-c", code], check=True)
    lines = tee.lines()
    assert "from the child" in lines and root_cause(lines) == "it broke"
    out, err = capfd.readouterr()
    assert "from the child" in out and "ValueError: it broke" in err


# ------------------------------------------------------------------ vLLM's share on a CPU

GIB = 1024**3


@given(
    st.integers(0, 400 * GIB),
    st.integers(GIB, 2048 * GIB),
    st.floats(0.0, 1.0),
)
def test_the_picked_share_fits_the_available_memory(weights: int, total: int, free: float) -> None:
    available = int(total * free)
    share = pick_share(weights, total, available)
    room = 0.9 * available / total
    assert 0.01 <= share <= 1.0
    assert share <= max(0.01, room)
    assert share >= min(FLOOR, room) - 0.01  # the floor, unless the memory is not there
    if room >= 1.0:
        assert share * total >= min(weights * 1.25 + 4 * GIB, total) - 0.01 * total


def test_the_share_counts_a_model_folders_weight_files(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"0" * 1000)
    (tmp_path / "config.json").write_text("{}")
    assert weights_bytes(str(tmp_path)) == 1000
    assert weights_bytes("Qwen/Qwen2.5-7B-Instruct") == 0  # a hub name: unknown here
