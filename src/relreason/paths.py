"""Where relreason keeps things on disk: the one owner of the cache root and its variables.

``RELREASON_CACHE_DIR`` overrides the user cache folder (``platformdirs``); the response cache,
the downloaded data and the converted bundled model all live under it.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_DIR_ENV = "RELREASON_CACHE_DIR"
DATA_DIR_ENV = "RELREASON_DATA_DIR"


def cache_root() -> Path:
    """Return ``$RELREASON_CACHE_DIR``, else the user cache folder of relreason."""
    root = os.environ.get(CACHE_DIR_ENV, "")
    if not root:
        import platformdirs

        root = platformdirs.user_cache_dir("relreason")
    return Path(root).expanduser()


def default_cache_path() -> Path:
    """Return the response cache file: ``<cache root>/cache.sqlite3``."""
    return cache_root() / "cache.sqlite3"
