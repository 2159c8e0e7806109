"""Model spec strings -> backends.

Valid forms: ``smollm2`` (the bundled default), ``hf:PATH_OR_NAME``, ``openai:MODEL``,
``anthropic:MODEL``, and the baselines ``random[:SEED]``, ``first``, ``oracle``. Heavy libraries
(torch, SDKs) are imported only when their backend is asked for, so the core install stays light.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from relreason.errors import RelreasonError, UsageError
from relreason.models.base import ModelBackend

DEFAULT_MODEL = "smollm2"

SPEC_FORMS = (
    "smollm2",
    "hf:PATH_OR_NAME",
    "openai:MODEL",
    "anthropic:MODEL",
    "random[:SEED]",
    "first",
    "oracle",
)


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
    extra: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """Return the options as a JSON-ready dict."""
        return {
            "base_urls": list(self.base_urls),
            "api": self.api,
            "chat_template": self.chat_template,
            "device": self.device,
            "dtype": self.dtype,
            "batch_size": self.batch_size,
            "timeout": self.timeout,
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelOptions:
        """Rebuild options written by :meth:`to_json` (unknown keys are ignored).

        Raises ``UsageError`` for an ``api`` other than chat or completions.
        """
        if data.get("api", "chat") not in ("chat", "completions"):
            raise UsageError(f"unknown api '{data['api']}'; valid: chat, completions")
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__ and k != "extra"}
        if "base_urls" in known and isinstance(known["base_urls"], list):
            known["base_urls"] = tuple(str(u) for u in known["base_urls"])
        return cls(**known)


def _missing_extra(extra: str, error: ImportError) -> RelreasonError:
    return UsageError(
        f"this model needs the '{extra}' extra: pip install 'relreason[{extra}]' ({error})"
    )


def load_backend(spec: str, options: ModelOptions | None = None, **kwargs: Any) -> ModelBackend:
    """Build the backend a model spec names.

    Options come as a :class:`ModelOptions` or as keyword arguments with the same names
    (``base_urls``, ``api``, ``chat_template``, ``device``, ``dtype``, ``batch_size``,
    ``timeout``, ``seed``), e.g. the ``model_options`` recorded in a run manifest.

    Returns a ready :class:`ModelBackend`. Raises ``UsageError`` for an unknown spec (listing
    the valid forms) or when the backend's optional dependencies are not installed.
    """
    opts = options or ModelOptions.from_json(kwargs)
    kind, _, rest = spec.partition(":")
    if kind in ("random", "first", "oracle"):
        from relreason.models.baselines import BaselineBackend

        seed = opts.seed
        if rest:
            if kind != "random" or not rest.isdigit():
                raise UsageError(f"bad model spec '{spec}'; valid forms: {', '.join(SPEC_FORMS)}")
            seed = int(rest)
        return BaselineBackend(kind, seed=seed)
    if spec == "smollm2":
        try:
            from relreason.models.smollm2 import load_smollm2

            return load_smollm2(**_hf_kwargs(opts))
        except ImportError as error:
            raise _missing_extra("hf", error) from error
    if kind == "hf" and rest:
        try:
            from relreason.models.hf import HFBackend

            return HFBackend(rest, spec=spec, **_hf_kwargs(opts))
        except ImportError as error:
            raise _missing_extra("hf", error) from error
    if kind == "openai" and rest:
        try:
            from relreason.models.openai_backend import OpenAIBackend
        except ImportError as error:
            raise _missing_extra("openai", error) from error
        return OpenAIBackend(
            rest,
            base_urls=list(opts.base_urls) or None,
            api=opts.api,
            timeout=opts.timeout,
            spec=spec,
        )
    if kind == "anthropic" and rest:
        try:
            from relreason.models.anthropic_backend import AnthropicBackend
        except ImportError as error:
            raise _missing_extra("anthropic", error) from error
        base_url = opts.base_urls[0] if opts.base_urls else None
        return AnthropicBackend(rest, base_url=base_url, timeout=opts.timeout, spec=spec)
    raise UsageError(f"unknown model spec '{spec}'; valid forms: {', '.join(SPEC_FORMS)}")


def _hf_kwargs(opts: ModelOptions) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "device": opts.device,
        "dtype": opts.dtype,
        "chat_template": opts.chat_template,
    }
    if opts.batch_size is not None:
        kwargs["batch_size"] = opts.batch_size
    return kwargs
