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
    "device": "Where a local model runs: cpu | cuda.",
    "dtype": "Weights' type of a local model: float32 | bfloat16 | float16.",
    "batch_size": "Prompts per forward pass of a local model (default: the backend's own);"
    " log-likelihood scoring through the prefix tree packs prompts by tokens instead.",
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
