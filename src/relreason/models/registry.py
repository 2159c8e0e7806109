"""Model spec strings -> backends: one line per backend in ``BACKENDS``.

Valid forms: ``smollm2`` (the bundled default), ``hf:PATH_OR_NAME``, ``gguf:FILE``,
``vllm:MODEL``, ``openai:MODEL``, ``anthropic:MODEL``, and the baselines ``random[:SEED]``,
``first``, ``oracle``. Each line declares the backend's capabilities (log-probabilities, choice
scoring, free of charge, APIs) and the options it reads; the runner checks capabilities before
any run folder is written. Heavy libraries (torch, SDKs) are imported only when their backend is
built.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from relreason.errors import UsageError
from relreason.install import extra_hint
from relreason.models.base import Capabilities, ModelBackend
from relreason.models.options import ModelOptions
from relreason.redact import refuse_secret_spec

DEFAULT_MODEL = "smollm2"


@dataclass(frozen=True)
class BackendInfo:
    """One backend: its spec form, what it can do, the options it reads, how to build it.

    ``factory`` names ``module:function``; the function takes ``(name, spec, options)`` where
    ``name`` is the part of the spec after ``kind:``. ``extra`` is the pip extra it needs.
    ``capabilities`` is the one declaration of what the backend can do: the built backend
    gets it.
    """

    kind: str
    form: str
    summary: str
    factory: str
    extra: str | None = None
    free: bool = False
    capabilities: Capabilities = field(default_factory=Capabilities)
    apis: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    needs_name: bool = True

    def build(self, name: str, spec: str, options: ModelOptions) -> ModelBackend:
        """Import the backend's module and build it; ``UsageError`` when its extra is missing."""
        module_name, _, function = self.factory.partition(":")
        try:  # the module, or a library the backend imports as it is built
            make: Callable[[str, str, ModelOptions], ModelBackend] = getattr(
                importlib.import_module(module_name), function
            )
            backend = make(name, spec, options)
        except ImportError as error:
            raise UsageError(
                f"this model needs the '{self.extra}' extra: {extra_hint(self.extra or '')} "
                f"({error})"
            ) from error
        backend.capabilities = self.capabilities
        return backend


_LOCAL = ("chat_template", "device", "dtype", "batch_size", "threads", "max_model_len")
_GGUF = ("chat_template", "batch_size", "threads", "max_model_len", "seed")
_VLLM = (
    "chat_template",
    "dtype",
    "batch_size",
    "max_model_len",
    "tensor_parallel_size",
    "data_parallel_size",
    "gpu_memory_utilization",
    "enforce_eager",
    "seed",
)
_ALL = Capabilities(logprobs=True)  # first-token log-probabilities and choice scoring
_NO_SCORES = Capabilities(logprobs=False, choice_scoring=False)  # text only
BACKENDS: dict[str, BackendInfo] = {
    "smollm2": BackendInfo("smollm2", "smollm2", "the bundled SmolLM2-135M-Instruct (CPU)",
                           "relreason.models.smollm2:build", "hf", True, _ALL, (), _LOCAL,
                           needs_name=False),
    "hf": BackendInfo("hf", "hf:PATH_OR_NAME", "a local Hugging Face model (causal or seq2seq)",
                      "relreason.models.hf.backend:build", "hf", True, _ALL, (), _LOCAL),
    "gguf": BackendInfo("gguf", "gguf:FILE", "a GGUF file in llama.cpp, in-process"
                        " (gguf:smollm2: the bundled one as shipped)",
                        "relreason.models.gguf:build", "gguf", True, _ALL, (), _GGUF),
    "vllm": BackendInfo("vllm", "vllm:MODEL", "a model folder or hub name in vLLM, in-process"
                        " (vllm:smollm2: the bundled one)",
                        "relreason.models.vllm_backend:build", "vllm", True, _ALL, (), _VLLM),
    "openai": BackendInfo("openai", "openai:MODEL", "OpenAI or any OpenAI-compatible server",
                          "relreason.models.openai.backend:build", "openai", False, _ALL,
                          ("chat", "completions"), ("base_urls", "api", "timeout")),
    "anthropic": BackendInfo("anthropic", "anthropic:MODEL", "Anthropic Messages API",
                             "relreason.models.anthropic_backend:build", "anthropic", False,
                             _NO_SCORES, ("messages",), ("base_urls", "timeout")),
    "random": BackendInfo("random", "random[:SEED]", "baseline: a seeded random choice",
                          "relreason.models.baselines:build", None, True, _ALL, (),
                          ("seed",), needs_name=False),
    "first": BackendInfo("first", "first", "baseline: always the first choice",
                         "relreason.models.baselines:build", None, True, _ALL, (), (),
                         needs_name=False),
    "oracle": BackendInfo("oracle", "oracle", "baseline: always the gold choice",
                          "relreason.models.baselines:build", None, True, _ALL, (), (),
                          needs_name=False),
}  # fmt: skip

SPEC_FORMS = tuple(info.form for info in BACKENDS.values())


def backend_info(spec: str) -> BackendInfo | None:
    """Return the registry line of a model spec's kind, or None for an unknown kind."""
    return BACKENDS.get(spec.partition(":")[0])


def is_free(spec: str) -> bool:
    """Return whether the spec's backend costs nothing (local models and baselines)."""
    info = backend_info(spec)
    return info is not None and info.free


_ALWAYS_GIVEN = ("timeout", "seed")  # from the run's own options, for every backend


def refuse_inapplicable(spec: str, options: ModelOptions) -> None:
    """Raise ``UsageError`` for a backend option set away from its default that the spec's
    backend does not take (e.g. ``--chat-template`` with ``openai:``: it would do nothing).

    An unknown spec is a ``UsageError`` too, naming the valid forms, and so is a spec that
    holds an API key (never written anywhere)."""
    refuse_secret_spec(spec)
    info = backend_info(spec)
    if info is None:
        raise UsageError(f"unknown model spec '{spec}'; valid forms: {', '.join(SPEC_FORMS)}")
    default = ModelOptions()
    takers: dict[str, list[str]] = {}
    for other in BACKENDS.values():
        for name in other.options:
            takers.setdefault(name, []).append(other.kind)
    for name in ModelOptions.names():
        if name in _ALWAYS_GIVEN or name in info.options:
            continue
        value, usual = getattr(options, name), getattr(default, name)
        if value == usual or (name == "base_urls" and not value):
            continue
        flag = "--" + ("base-url" if name == "base_urls" else name.replace("_", "-"))
        kinds = ", ".join(f"{k}:" for k in takers.get(name, [])) or "no backend"
        raise UsageError(
            f"{flag} ({name} in a sweep file) does nothing for {info.kind}: models (it applies "
            f"to {kinds}); remove it"
        )


def refuse_unavailable_device(spec: str, options: ModelOptions) -> None:
    """Raise ``UsageError`` when the spec's backend takes ``device`` and that device is not on
    this machine (``--device cuda`` without a GPU): in milliseconds, before anything loads."""
    info = backend_info(spec)
    if info is not None and "device" in info.options:
        from relreason.models.devices import check_device

        check_device(options.device)


def load_backend(spec: str, options: ModelOptions | None = None, **kwargs: Any) -> ModelBackend:
    """Build the backend a model spec names.

    Options come as a :class:`ModelOptions` or as keyword arguments with the same names
    (``base_urls``, ``api``, ``chat_template``, ``device``, ``dtype``, ``batch_size``,
    ``timeout``, ``seed``), e.g. the ``model_options`` recorded in a run manifest.

    Returns a ready :class:`ModelBackend`. Raises ``UsageError`` for an unknown spec (listing
    the valid forms), a device this machine does not have, when the backend's optional
    dependencies are not installed, or when its engine cannot start (the engine's own reason).
    """
    refuse_secret_spec(spec)
    opts = options or ModelOptions.from_json(kwargs)
    kind, sep, name = spec.partition(":")
    info = BACKENDS.get(kind)
    if info is None or (info.needs_name and not name):
        raise UsageError(f"unknown model spec '{spec}'; valid forms: {', '.join(SPEC_FORMS)}")
    if sep and not info.needs_name and not (kind == "random" and name.isdigit()):
        raise UsageError(f"bad model spec '{spec}'; valid forms: {', '.join(SPEC_FORMS)}")
    refuse_unavailable_device(spec, opts)
    return info.build(name, spec, opts)


__all__ = [
    "BACKENDS",
    "DEFAULT_MODEL",
    "SPEC_FORMS",
    "BackendInfo",
    "ModelOptions",
    "backend_info",
    "is_free",
    "load_backend",
    "refuse_inapplicable",
    "refuse_unavailable_device",
]
