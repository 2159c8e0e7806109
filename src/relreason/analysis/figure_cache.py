"""The report's figures kept as drawn: a figure's inline SVG under the cache root
(``<cache root>/report-figures/<key>.svg``), keyed on what it is drawn from, so that a second
report over unchanged runs draws nothing (matplotlib's layout is most of a report's time).

The key (:func:`figure_key`) hashes the drawing code (``figures.py``, the module of the
function that draws, its name and code; relreason's and matplotlib's versions), the values it
closes over (e.g. the papers' figures beside the runs) and the table's data, written as JSON.
A value that cannot be written so gives no key: that figure is drawn each time. Written
atomically; an unreadable entry is drawn again."""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from relreason.errors import UsageError
from relreason.files import atomic_write_bytes
from relreason.paths import cache_root

CACHE_VERSION = 1


@cache
def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from relreason.version import __version__

    try:
        drawing = version("matplotlib")
    except PackageNotFoundError:
        drawing = "?"
    return f"relreason {__version__} matplotlib {drawing}"


@cache
def _source_hash(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def figure_key(draw: Callable[..., Any], data: Any) -> str | None:
    """A hash of everything ``draw(data)`` depends on; None when some of it cannot be hashed."""
    try:
        code = draw.__code__
        name = f"{CACHE_VERSION} {_versions()} {draw.__module__}.{draw.__qualname__}"
        digest = hashlib.sha256(f"{name} {code.co_firstlineno}".encode())
        digest.update(code.co_code)
        digest.update(_source_hash(str(Path(__file__).with_name("figures.py"))).encode())
        source = inspect.getsourcefile(draw)
        if source is not None:
            digest.update(_source_hash(source).encode())
        closed = [cell.cell_contents for cell in draw.__closure__ or ()]
        text = json.dumps([closed, data], default=key_value, ensure_ascii=False, allow_nan=True)
        digest.update(text.encode("utf-8", "surrogatepass"))
    except (TypeError, ValueError, AttributeError, OSError):
        return None
    return digest.hexdigest()


def key_value(value: Any) -> Any:
    """A frame as its columns, types and rows; a NumPy value as Python's; else TypeError."""
    if hasattr(value, "to_dict") and hasattr(value, "dtypes"):  # a pandas DataFrame
        return {"dtypes": [str(t) for t in value.dtypes], **value.to_dict(orient="split")}
    if hasattr(value, "tolist"):  # NumPy scalars and arrays
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not hashed for a figure's key")


def _path(key: str) -> Path:
    return cache_root() / "report-figures" / f"{key[:40]}.svg"


def load_svg(key: str) -> str | None:
    """The SVG kept under ``key``, or None."""
    try:
        return _path(key).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, UsageError):
        return None


def keep_svg(key: str, svg: str) -> None:
    """Keep ``svg`` under ``key`` (an unwritable cache only costs time)."""
    with contextlib.suppress(UsageError, ValueError, OSError):
        atomic_write_bytes(_path(key), svg.encode("utf-8"), make_parents=True)
