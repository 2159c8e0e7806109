"""Every option that shapes how a backend is built, declared once: ``ModelOptions``.

The command line (``--base-url``, ``--api``, ...), sweep files (a model entry's keys) and the
Python API (``load_backend(spec, **options)``, ``relreason.evaluate``) take these names; each
field's description is the help text every place shows (``OPTION_HELP``), its bounds and
choices are checked everywhere. ``timeout`` and ``seed`` come from the run's
``--request-timeout`` and ``--seed`` on the command line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from relreason.declare import Cli
from relreason.errors import UsageError


class ModelOptions(BaseModel):
    """Options that shape how a backend is built (recorded in the manifest; never secrets)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    base_urls: Annotated[
        tuple[str, ...],
        Cli(flags=("--base-url",)),
        Field(
            description="Server URL of an OpenAI-compatible or Anthropic server; repeat to "
            "spread requests over several servers."
        ),
    ] = ()
    api: Annotated[
        Literal["chat", "completions"],
        Cli(flags=("--api",)),
        Field(description="Which OpenAI-compatible endpoint to call: chat or completions."),
    ] = "chat"
    chat_template: Annotated[
        bool,
        Cli(
            extra_help="Off by default: the model sees the prompt exactly as `relreason "
            "prompts` prints it (the papers' text, byte for byte)."
        ),
        Field(description="Wrap prompts in the model's chat template (local models)."),
    ] = False
    device: Annotated[
        str,
        Field(
            description="Where a local model runs: cpu | cuda | cuda:N | mps | auto (cuda when "
            "a GPU is there, else cpu); a device this machine lacks is refused before loading."
        ),
    ] = "cpu"
    dtype: Annotated[
        str, Field(description="Weights' type of a local model: float32 | bfloat16 | float16.")
    ] = "float32"
    batch_size: Annotated[
        int | None,
        Field(
            ge=1,
            description="Prompts per forward pass of a local model (default: the backend's "
            "own); log-likelihood scoring through the prefix tree packs prompts by tokens "
            "instead.",
        ),
    ] = None
    threads: Annotated[
        int | None,
        Field(
            ge=1,
            description="CPU threads of a local model (hf: torch's intra-op threads, default "
            "torch's own; gguf: llama.cpp's, default every CPU this process may use). On a "
            "machine busy with other work, 1 can be faster.",
        ),
    ] = None
    max_model_len: Annotated[
        int | None,
        Field(
            ge=2,
            description="Context length of a local model in tokens (default: the model's "
            "own); longer prompts are cut from the left.",
        ),
    ] = None
    tensor_parallel_size: Annotated[
        int,
        Field(ge=1, description="GPUs one vllm model is split over (tensor parallelism)."),
    ] = 1
    data_parallel_size: Annotated[
        int,
        Field(
            ge=1,
            description="Copies of a vllm model, each serving a share of the requests (data "
            "parallelism).",
        ),
    ] = 1
    gpu_memory_utilization: Annotated[
        float | None,
        Field(
            ge=0.01,
            le=1.0,
            description="Share of GPU memory vllm may take for weights and key/value cache (on "
            "CPU: the share of RAM for the key/value cache); default vllm's own.",
        ),
    ] = None
    enforce_eager: Annotated[
        bool,
        Cli(flags=("--enforce-eager",)),
        Field(
            description="vllm: run the model eagerly, without torch.compile or CUDA graphs "
            "(starts in seconds instead of minutes; each step is slower)."
        ),
    ] = False
    timeout: Annotated[
        float,
        Cli(hidden=True),
        Field(gt=0, description="Seconds before one API request is abandoned (and retried)."),
    ] = 60.0
    seed: Annotated[
        int,
        Cli(hidden=True),
        Field(description="Seed for the model's sampling (where the backend takes one)."),
    ] = 0

    def to_json(self) -> dict[str, object]:
        """Return the options as a JSON-ready dict."""
        data: dict[str, object] = self.model_dump()
        data["base_urls"] = list(self.base_urls)
        return data

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Return the option names."""
        return tuple(cls.model_fields)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelOptions:
        """Rebuild options written by :meth:`to_json` (unknown keys are ignored).

        Raises ``UsageError`` naming the first bad option (e.g. an ``api`` other than chat or
        completions).
        """
        if data.get("api", "chat") not in ("chat", "completions"):
            raise UsageError(f"unknown api '{data['api']}'; valid: chat, completions")
        known = {k: v for k, v in data.items() if k in cls.model_fields}
        if isinstance(known.get("base_urls"), str):
            known["base_urls"] = (known["base_urls"],)
        try:
            return cls.model_validate(known)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise UsageError(f"model option {where}: {first['msg']}") from None


DEFAULT_TIMEOUT: float = ModelOptions.model_fields["timeout"].default
"""Seconds before one API request is abandoned unless given (a run's ``--request-timeout``)."""
OPTION_HELP: dict[str, str] = {
    name: info.description or "" for name, info in ModelOptions.model_fields.items()
}
"""Each option's help, as its field declares it (``relreason list``, ``translate``)."""


def resolve_device(device: str) -> str:
    """``auto`` is ``cuda`` when torch sees a GPU, else ``cpu``; other names pass through."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"
