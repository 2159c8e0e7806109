"""Public faces that tell the truth: every name a package's docstring promises after "Public
face:", every name in its ``__all__``, and every name in the "public face" column of
docs/DESIGN.md's package table can be imported from where it is said to be."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import relreason

DESIGN = Path(__file__).resolve().parents[1] / "docs" / "DESIGN.md"
OPTIONAL = {"relreason.inspect"}  # needs the [inspect] extra


def _packages() -> list[str]:
    """Every relreason package (a folder with an ``__init__.py``)."""
    found = ["relreason"]
    for info in pkgutil.walk_packages(relreason.__path__, "relreason."):
        if info.ispkg:
            found.append(info.name)
    return sorted(found)


def _names(text: str) -> list[str]:
    """The double-backticked names in ``text``, call forms (``f(x)``) reduced to ``f``."""
    return re.findall(r"``([A-Za-z_]\w*)(?:\([^`]*\))?``", text)


def _import(name: str) -> object:
    try:
        return importlib.import_module(name)
    except ImportError as error:
        if name in OPTIONAL:
            pytest.skip(f"{name}: {error}")
        raise


@pytest.mark.parametrize("package", _packages())
def test_the_docstring_and_all_agree(package: str) -> None:
    module = _import(package)
    exported = getattr(module, "__all__", None)
    promised = (module.__doc__ or "").partition("Public face:")[2]
    if promised:
        assert exported is not None, f"{package} promises a public face but has no __all__"
        names = _names(promised.split("\n\n")[0])
        assert names, f"{package}: no names after 'Public face:'"
        missing = [n for n in names if n not in exported]
        assert not missing, f"{package} promises {missing} but does not export them"
    for name in exported or []:
        assert getattr(module, name, None) is not None, f"{package}.__all__ names {name!r}"


def _design_rows() -> list[tuple[list[str], list[str]]]:
    rows = []
    for line in DESIGN.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `"):
            continue
        cells = line.strip().strip("|").split(" | ")
        face = cells[-1].strip()
        if not face or face.startswith("see "):
            continue
        where = re.findall(r"`([^`]+)`", cells[0])
        rows.append((where, [re.sub(r"\(.*\)$", "", n) for n in re.findall(r"`([^`]+)`", face)]))
    return rows


def test_design_table_is_read() -> None:
    rows = _design_rows()
    assert len(rows) >= 10
    assert (
        ["run/"],
        ["run_task", "arun_task", "resume_run", "aresume_run", "resume_task", "RunOptions"],
    ) in rows


@pytest.mark.parametrize(("where", "names"), _design_rows(), ids=lambda v: ",".join(v))
def test_the_design_public_face_exists(where: list[str], names: list[str]) -> None:
    modules = []
    for path in where:
        dotted = "relreason." + path.removesuffix("/").removesuffix(".py").replace("/", ".")
        modules.append((path.endswith("/"), _import(dotted)))
    for name in names:
        homes = [
            m
            for is_package, m in modules
            if hasattr(m, name) and (not is_package or name in getattr(m, "__all__", ()))
        ]
        assert homes, (
            f"DESIGN.md names {name!r} as the public face of {where}, which do not export it"
        )
