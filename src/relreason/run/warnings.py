"""Warnings a run prints once each (to stderr), e.g. a cache that cannot be used."""

from __future__ import annotations

import sys

from relreason.redact import scrub_secrets

_shown: set[str] = set()


def warn(message: str) -> None:
    """Print ``message`` (secrets scrubbed) to stderr as a warning, once per process."""
    text = scrub_secrets(message)
    if text in _shown:
        return
    _shown.add(text)
    print(f"warning: {text}", file=sys.stderr, flush=True)
