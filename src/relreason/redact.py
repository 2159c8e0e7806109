"""Secrets never written: the one place that scrubs API keys from text and option mappings.

Every writer of text that may hold model output or an error passes it through here: record
lines (``records.folder.record_line``), cached responses (``run.cache``), the manifest
(``records.manifest``), warnings and error messages (``cli.app``, ``run.warnings``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from relreason.errors import UsageError

_SECRET_NAME = re.compile(r"(API_KEY|_TOKEN|_SECRET)$")
_SECRET_SHAPE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{8,})")
_SECRET_KEY = re.compile(r"key|secret|token|password", flags=re.IGNORECASE)


_names: list[Any] = [None, ()]  # [the environment's names when last read, the secret ones]


def _secret_names() -> tuple[str, ...]:
    """The names of ``*_API_KEY``/``*_TOKEN``/``*_SECRET`` environment variables, read again
    whenever the set of names changes (one C-level comparison per call: this is on every
    record's path, and decoding the whole environment per record cost more than the rest)."""
    data = getattr(os.environ, "_data", None)
    if data is None:  # not CPython's os.environ: read it every time
        return tuple(n for n in os.environ if _SECRET_NAME.search(n))
    if _names[0] is None or data.keys() != _names[0]:
        _names[0] = frozenset(data.keys())
        _names[1] = tuple(n for n in os.environ if _SECRET_NAME.search(n))
    names: tuple[str, ...] = _names[1]
    return names


def scrub_secrets(text: str) -> str:
    """Return ``text`` with the values of ``*_API_KEY``/``*_TOKEN``/``*_SECRET`` environment
    variables and anything shaped like an ``sk-...`` key replaced by ``***``."""
    for name in _secret_names():
        value = os.environ.get(name, "")
        if len(value) >= 6 and value in text:
            text = text.replace(value, "***")
    return _SECRET_SHAPE.sub("***", text) if "sk-" in text else text


def scrub_json(value: Any) -> Any:
    """Return ``value`` (JSON-ready data) with :func:`scrub_secrets` applied to every string in
    it, keys included."""
    if isinstance(value, str):
        return scrub_secrets(value)
    if isinstance(value, dict):
        return {scrub_json(k): scrub_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_json(v) for v in value]
    return value


def strip_secret_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``options`` without keys that name a secret (``api_key``, ``token``, ...)."""
    return {k: v for k, v in options.items() if not _SECRET_KEY.search(k)}


def refuse_secret_spec(spec: str) -> None:
    """Raise ``UsageError`` when a model spec holds what looks like an API key (an ``sk-...``
    shape, or the value of a ``*_API_KEY`` variable): the spec names run folders and is
    printed and written everywhere, so a key given as the model's name would leak. The
    message shows the spec scrubbed."""
    if scrub_secrets(spec) != spec:
        raise UsageError(
            f"the model spec '{scrub_secrets(spec)}' holds what looks like an API key: give "
            "the key in the backend's environment variable (OPENAI_API_KEY, "
            "ANTHROPIC_API_KEY), and the model's name in --model"
        )
