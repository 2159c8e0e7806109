"""``vllm:MODEL``: a Hugging Face model folder (or hub name) served by vLLM in this process.

The engine (``vllm_engine``) runs greedy generation and choice scoring with automatic prefix
caching, ``--dtype``, ``--tensor-parallel-size``, ``--max-model-len``,
``--gpu-memory-utilization`` and the chat template. ``--data-parallel-size N`` starts N engine
processes (each on its own ``tensor_parallel_size`` GPUs when CUDA is there) and gives each a
contiguous share of every batch. vLLM starts worker processes: a script that builds this
backend must guard its entry point with ``if __name__ == "__main__":``.
``vllm:smollm2`` is the bundled SmolLM2 (its float32 conversion, as the ``smollm2`` backend).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Any

from relreason.errors import UsageError
from relreason.models.base import ModelBackend
from relreason.models.options import ModelOptions
from relreason.models.vllm_engine import EngineSettings, VLLMEngine
from relreason.types import ChoiceRequest, GenerationRequest, Response, Turn

BUNDLED = "smollm2"
DTYPES = ("auto", "float32", "bfloat16", "float16")


class VLLMBackend(ModelBackend):
    """vLLM, one engine in this process or ``data_parallel_size`` engine processes.

    ``batch_size`` is how many requests the runner hands over at once (vLLM batches them
    itself, continuously). On a CPU without ``gpu_memory_utilization`` set, the share picked
    by ``vllm_memory`` is used, said on stderr and recorded (``chosen_options``). Raises
    ``UsageError`` for bad options or a model vLLM cannot load or start (with vLLM's reason).
    """

    def __init__(
        self,
        model: str,
        *,
        spec: str | None = None,
        settings: EngineSettings | None = None,
        data_parallel_size: int = 1,
        batch_size: int = 256,
        model_name: str | None = None,
        revision: str | None = None,
    ) -> None:
        self.settings = settings or EngineSettings()
        self._chosen: dict[str, Any] = {}
        if self.settings.dtype not in DTYPES:
            raise UsageError(f"unknown dtype {self.settings.dtype!r}; use one of {DTYPES}")
        for label, value in (
            ("data_parallel_size", data_parallel_size),
            ("tensor_parallel_size", self.settings.tensor_parallel_size),
            ("batch_size", batch_size),
        ):
            if value < 1:
                raise UsageError(f"{label} must be at least 1, got {value}")
        self.spec = spec or f"vllm:{model}"
        self.model = model
        self.batch_size = batch_size
        self.model_name = model_name or model
        self.revision = revision
        self._lock = threading.Lock()
        self.data_parallel_size = data_parallel_size
        self._workers: list[_Worker] = []
        self._engine: VLLMEngine | None = None
        if self.settings.gpu_memory_utilization is None:
            self._pick_cpu_share(model)
        try:
            if data_parallel_size == 1:
                self._engine = VLLMEngine(model, self.settings)
            else:
                self._start_workers()
        except (OSError, ValueError, RuntimeError) as exc:
            self._stop_workers()
            raise UsageError(f"vLLM cannot load model {model!r}: {exc}") from exc

    def _pick_cpu_share(self, model: str) -> None:
        from relreason.models.vllm_memory import cpu_share

        picked = cpu_share(model, self.data_parallel_size)
        if picked is not None:
            share, said = picked
            print(said, file=sys.stderr, flush=True)
            self.settings = replace(self.settings, gpu_memory_utilization=share)
            self._chosen["gpu_memory_utilization"] = share

    def chosen_options(self) -> Mapping[str, Any]:
        """The memory share picked on a CPU (nothing when it was given or on a GPU)."""
        return dict(self._chosen)

    def _start_workers(self) -> None:
        self._workers = [
            _Worker(self.model, self.settings, rank) for rank in range(self.data_parallel_size)
        ]
        for worker in self._workers:
            worker.wait_ready()

    def describe(self) -> Mapping[str, Any]:
        """Return the backend's identity and every option that can change an output."""
        return {
            "backend": "vllm",
            "spec": self.spec,
            "model": self.model_name,
            "revision": self.revision,
            "dtype": self.settings.dtype,
            "chat_template": self.settings.chat_template,
            "max_model_len": self.settings.max_model_len,
            "tensor_parallel_size": self.settings.tensor_parallel_size,
            "prefix_caching": True,
            "batch_size": self.batch_size,
        }

    def sent_as(self, prompt: str, chat: tuple[Turn, ...] = ()) -> Any:
        """The chat-templated text when ``chat_template`` is on, else None (sent as is)."""
        if not self.settings.chat_template:
            return None
        if self._engine is not None:
            return self._engine.render(prompt, chat)
        return self._workers[0].call("render_pair", (prompt, chat))

    async def generate(self, requests: Sequence[GenerationRequest]) -> list[Response]:
        """Continue each prompt as text; one response per request."""
        return await asyncio.to_thread(self._call, "generate", list(requests))

    async def score_choices(self, requests: Sequence[ChoiceRequest]) -> list[Response]:
        """Return each request's continuation log-likelihoods (lm-eval style sums)."""
        return await asyncio.to_thread(self._call, "score", list(requests))

    def _call(self, method: str, requests: list[Any]) -> list[Response]:
        with self._lock:
            try:
                if self._engine is not None:
                    run: Callable[[list[Any]], list[Response]] = getattr(self._engine, method)
                    return run(requests)
                return self._spread(method, requests)
            except (RuntimeError, ValueError) as exc:
                error = f"vLLM failed: {type(exc).__name__}: {exc}"
                return [Response(error=error) for _ in requests]

    def _spread(self, method: str, requests: list[Any]) -> list[Response]:
        """Contiguous shares of the batch to the workers (neighbours share prefixes)."""
        if not self._workers:  # closed after an earlier run: start them again
            self._start_workers()
        n = len(self._workers)
        bounds = [len(requests) * k // n for k in range(n + 1)]
        busy = []
        for worker, start, end in zip(self._workers, bounds, bounds[1:], strict=False):
            if end > start:
                worker.send(method, requests[start:end])
                busy.append(worker)
        results: list[Response] = []
        for worker in busy:
            results.extend(worker.receive())
        return results

    def _stop_workers(self) -> None:
        for worker in self._workers:
            worker.stop()
        self._workers = []

    async def aclose(self) -> None:
        """Stop the data-parallel engine processes (started again if the backend is used
        again); the in-process engine is freed with the backend."""
        with self._lock:
            self._stop_workers()


class _Worker:
    """One data-parallel engine in a spawned process, driven over a pipe."""

    def __init__(self, model: str, settings: EngineSettings, rank: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=_serve, args=(child, model, settings, rank), daemon=False
        )
        self.process.start()
        child.close()

    def wait_ready(self) -> None:
        status, detail = self.conn.recv()
        if status != "ready":
            raise RuntimeError(detail)

    def send(self, method: str, payload: Any) -> None:
        self.conn.send((method, payload))

    def receive(self) -> Any:
        status, value = self.conn.recv()
        if status != "ok":
            raise RuntimeError(value)
        return value

    def call(self, method: str, payload: Any) -> Any:
        self.send(method, payload)
        return self.receive()

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(("stop", None))
        self.process.join(timeout=60)
        if self.process.is_alive():
            self.process.terminate()
        # the worker's own children (vLLM's engine core) would outlive it: a worker leaves by
        # os._exit, skipping vLLM's finalizers, so its whole process group goes with it
        if self.process.pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)


def _serve(conn: Connection, model: str, settings: EngineSettings, rank: int) -> None:
    """A data-parallel worker: its own GPUs, its own engine, requests until told to stop."""
    os.setpgrp()  # a process group of its own, which ``_Worker.stop`` ends whole
    gpus = settings.tensor_parallel_size
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    devices = visible.split(",") if visible else None
    if devices is not None or _has_cuda():
        devices = devices or [str(d) for d in range(_cuda_count())]
        os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(devices[rank * gpus : (rank + 1) * gpus])
    try:
        engine = VLLMEngine(model, settings)
    except Exception as exc:  # reported to the parent, which raises UsageError
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", None))
    while True:
        method, payload = conn.recv()
        if method == "stop":
            return
        try:
            conn.send(("ok", getattr(engine, method)(payload)))
        except Exception as exc:  # one failed batch is reported, the worker goes on
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


def _has_cuda() -> bool:
    return _cuda_count() > 0


def _cuda_count() -> int:
    import torch

    return int(torch.cuda.device_count())


def build(name: str, spec: str, options: ModelOptions) -> VLLMBackend:
    """Registry factory: ``vllm:MODEL`` (a model folder or hub name; ``smollm2``: bundled)."""
    settings = EngineSettings(
        dtype=options.dtype,
        chat_template=options.chat_template,
        max_model_len=options.max_model_len,
        tensor_parallel_size=options.tensor_parallel_size,
        gpu_memory_utilization=options.gpu_memory_utilization,
        enforce_eager=options.enforce_eager,
        seed=options.seed,
    )
    kwargs: dict[str, Any] = {"spec": spec, "settings": settings}
    kwargs["data_parallel_size"] = options.data_parallel_size
    if options.batch_size is not None:
        kwargs["batch_size"] = options.batch_size
    if name == BUNDLED and not os.path.exists(name):
        from relreason.models import smollm2

        kwargs["model_name"] = f"{smollm2.DISTRIBUTION}/{smollm2.GGUF_NAME}"
        kwargs["revision"] = smollm2.bundled_revision()
        return VLLMBackend(str(smollm2.converted_dir()), **kwargs)
    return VLLMBackend(name, **kwargs)
