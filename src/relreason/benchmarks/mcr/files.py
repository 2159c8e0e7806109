"""MCR's official files: the question files of the MCR repository at a pinned commit, and its
exemplars, which are not a file upstream but the dict named ``examplars`` (sic) in ``main.py``.

The exemplars are extracted from ``main.py`` with ``ast`` (only that assignment's value is
evaluated, by ``ast.literal_eval``) and serialised as ``json.dumps(d, indent=2,
ensure_ascii=False)`` (no trailing newline), which reproduces the pinned file byte for byte.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from relreason.data.spec import DataFile, DataFiles
from relreason.errors import DataError

REPO = "zhaojinm/Multilingual_Composition_Relation_benchmark"
COMMIT = "23aaee66440a95eb7ffb2b3f396eed722038ad2e"
EXEMPLARS_FILE = "exemplars_official.json"
EXEMPLARS_NAME = "examplars"  # sic: the name used in the MCR main.py
MCR_MAIN_PY = "main.py"


def extract_exemplars(source: bytes, origin: str) -> dict[str, str]:
    """Return the ``examplars`` dict assigned at the top level of a Python source file.

    Only that assignment's value is evaluated, with ``ast.literal_eval``. Raises ``DataError``
    naming ``origin`` when the source does not parse, has no such assignment, or its value is
    not a literal dict of strings.
    """
    try:
        tree = ast.parse(source, filename=origin)
    except (SyntaxError, ValueError) as exc:
        raise DataError(origin, f"not valid Python: {exc}") from None
    found: ast.expr | None = None
    for node in tree.body:  # the last top-level assignment wins, as when Python runs the file
        if isinstance(node, ast.Assign):
            targets, value_node = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value_node = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == EXEMPLARS_NAME for t in targets):
            found = value_node
    if found is None:
        raise DataError(origin, f"no top-level assignment to {EXEMPLARS_NAME!r}")
    try:
        value: Any = ast.literal_eval(found)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise DataError(origin, "not a literal value", field=EXEMPLARS_NAME) from None
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise DataError(origin, "expected a dict of strings", field=EXEMPLARS_NAME)
    return value


def exemplars_json(exemplars: dict[str, str]) -> bytes:
    """Return the bytes of ``exemplars_official.json`` for an exemplar dict (key order kept)."""
    return json.dumps(exemplars, indent=2, ensure_ascii=False).encode("utf-8")


def exemplars_from_main_py(source: bytes, origin: str) -> bytes:
    """The bytes of ``exemplars_official.json`` derived from the MCR ``main.py`` source."""
    return exemplars_json(extract_exemplars(source, origin))


_PINS = {
    "composition_chinese.json": "ffffadb748f8ce41ec09f5eee1f0dd24fd35954ba564c69afb5e8ec987fe4106",
    "composition_english.json": "1df97dc056e79f975f59c8e224244a3e78da289a9c9c66c169646aacabfdbf87",
    "composition_french.json": "2a50d435b021a505f4b525e7b8177bbfa660cff6ec214345d8ea8d54b3c42978",
    "composition_japanese.json": "de60db0a4098fd4cca00f5927a2b1410bda6bba88265265330e660cdd16222cd",
    "composition_korean.json": "ccad5487b43f46e6ea272cca0aee8db3b0291031931541704895f39cefab4d8c",
}
_EXEMPLARS_SHA256 = "27aadd8621ad98d79fe69bae29570d2bc26370e775f7553f67970cf80beb730c"

FILES = DataFiles(
    folder="mcr",
    repo=REPO,
    commit=COMMIT,
    files=(
        *(DataFile(n, sha, f"dataset/composition/{n}") for n, sha in sorted(_PINS.items())),
        DataFile(EXEMPLARS_FILE, _EXEMPLARS_SHA256, MCR_MAIN_PY, exemplars_from_main_py),
    ),
)
"""The five question files and the exemplars under ``<data dir>/mcr/``."""
