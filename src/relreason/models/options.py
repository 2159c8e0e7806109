"""Every option that shapes how a backend is built, declared once.

The command line (``--base-url``, ``--api``, ...), sweep files (a model entry's keys) and the
Python API (``load_backend(spec, **options)``) all take these names; ``OPTION_HELP`` is the
help text each place shows. ``timeout`` and ``seed`` come from the run's ``--request-timeout``
and ``--seed`` on the command line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from relreason.errors import UsageError

OPTION_HELP: dict[str, str] = {
    "base_urls": "Server URL of an OpenAI-compatible or Anthropic server; repeat to spread "
    "requests over several servers.",
    "api": "Which OpenAI-compatible endpoint to call: chat or completions.",
    "chat_template": "Wrap prompts in the model's chat template (local models).",
    "device": "Where a local model runs: cpu | cuda | auto (cuda when a GPU is there, else cpu).",
    "dtype": "Weights' type of a local model: float32 | bfloat16 | float16.",
    "batch_size": "Prompts per forward pass of a local model (default: the backend's own);"
    " log-likelihood scoring through the prefix tree packs prompts by tokens instead.",
    "threads": "CPU threads of a local model (hf: torch's intra-op threads; gguf: llama.cpp's;"
    " default: the engine's own).",
    "max_model_len": "Context length of a local model in tokens (default: the model's own);"
    " longer prompts are cut from the left.",
    "tensor_parallel_size": "GPUs one vllm model is split over (tensor parallelism).",
    "data_parallel_size": "Copies of a vllm model, each serving a share of the requests"
    " (data parallelism).",
    "gpu_memory_utilization": "Share of GPU memory vllm may take for weights and key/value"
    " cache (on CPU: the share of RAM for the key/value cache); default vllm's own.",
    "enforce_eager": "vllm: run the model eagerly, without torch.compile or CUDA graphs (starts"
    " in seconds instead of minutes; each step is slower).",
    "timeout": "Seconds before one API request is abandoned (and retried).",
    "seed": "Seed for the model's sampling (where the backend takes one).",
}


@dataclass(frozen=True)
class ModelOptions:
    """Options that shape how a backend is built (recorded in the manifest; never secrets)."""

    base_urls: Sequence[str] = ()
    api: Literal["chat", "completions"] = "chat"
    chat_template: bool = False
    device: str = "cpu"
    dtype: str = "float32"
    batch_size: int | None = None
    threads: int | None = None
    max_model_len: int | None = None
    tensor_parallel_size: int = 1
    data_parallel_size: int = 1
    gpu_memory_utilization: float | None = None
    enforce_eager: bool = False
    timeout: float = 60.0
    seed: int = 0

    def to_json(self) -> dict[str, object]:
        """Return the options as a JSON-ready dict."""
        data: dict[str, object] = {f.name: getattr(self, f.name) for f in fields(self)}
        data["base_urls"] = list(self.base_urls)
        return data

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Return the option names."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelOptions:
        """Rebuild options written by :meth:`to_json` (unknown keys are ignored).

        Raises ``UsageError`` for an ``api`` other than chat or completions.
        """
        if data.get("api", "chat") not in ("chat", "completions"):
            raise UsageError(f"unknown api '{data['api']}'; valid: chat, completions")
        known = {k: v for k, v in data.items() if k in cls.names()}
        if "base_urls" in known and isinstance(known["base_urls"], list | tuple):
            known["base_urls"] = tuple(str(u) for u in known["base_urls"])
        return cls(**known)


def resolve_device(device: str) -> str:
    """``auto`` is ``cuda`` when torch sees a GPU, else ``cpu``; other names pass through."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"
