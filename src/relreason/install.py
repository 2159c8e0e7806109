"""How relreason was installed, so that a missing extra's hint is a command that works.

``pip install 'relreason[openai]'`` only works where relreason is on a package index, and it is
not on PyPI. PEP 610's ``direct_url.json`` says where an installed relreason came from: an
editable checkout (``pip install -e "PATH[openai]"``), a folder or a wheel file (``pip install
"FILE[openai]"``). Failing that, the hint names the extra's own packages, which always work.
"""

from __future__ import annotations

import json
import re
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlsplit

DISTRIBUTION = "relreason"


def _origin() -> tuple[str, Path, bool] | None:
    """(kind, path, editable) of where relreason was installed from, or None when unknown
    (an index, or no metadata at all). ``kind`` is ``dir`` or ``wheel``."""
    try:
        text = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
        data = json.loads(text) if text else None
    except (metadata.PackageNotFoundError, ValueError, OSError):
        return None
    if not isinstance(data, dict) or not str(data.get("url", "")).startswith("file://"):
        return None
    path = Path(unquote(urlsplit(str(data["url"])).path))
    if isinstance(data.get("dir_info"), dict):
        return "dir", path, bool(data["dir_info"].get("editable"))
    return "wheel", path, False


def extra_packages(extra: str) -> list[str]:
    """The requirements the extra ``extra`` adds (``[]`` when unknown)."""
    try:
        requires = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return []
    marker = re.compile(rf"""extra\s*==\s*["']{re.escape(extra)}["']""")
    return [r.split(";")[0].strip() for r in requires if marker.search(r)]


def extra_hint(extra: str) -> str:
    """The command that installs relreason's extra ``extra`` the way relreason was installed."""
    origin = _origin()
    packages = " ".join(f"'{p}'" for p in extra_packages(extra))
    also = f" (or its packages: pip install {packages})" if packages else ""
    if origin is not None:
        kind, path, editable = origin
        if kind == "dir":
            return f'pip install {"-e " if editable else ""}"{path}[{extra}]"{also}'
        if path.is_file():
            return f'pip install "{path}[{extra}]"{also}'
    if packages:
        return f"pip install {packages}"
    return (
        f"install relreason's '{extra}' extra from the checkout or wheel relreason came from "
        f'(from a checkout: pip install -e ".[{extra}]")'
    )
