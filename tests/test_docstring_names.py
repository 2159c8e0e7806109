"""Docstrings cite only what exists: every dotted ``relreason.<x>.<y>`` name in a docstring of
relreason's source or tests names a module of the package, or a name defined in one (read from
the source with :mod:`ast`, so modules whose libraries are missing are checked too)."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
DOTTED = re.compile(r"(?<![\w./-])relreason(?:\.[A-Za-z_]\w*)+")


def _module_file(dotted: str) -> Path | None:
    base = SRC.joinpath(*dotted.split("."))
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


@cache
def _defined(path: Path) -> dict[str, ast.AST]:
    """The names a module defines at its top level (functions, classes, assignments, imports,
    and the names of ``__all__``, which a lazy ``__getattr__`` may serve)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node
                    if target.id == "__all__" and isinstance(node.value, ast.List | ast.Tuple):
                        for elt in node.value.elts:
                            if isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                                names.setdefault(elt.value, node)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = node
    return names


def exists(dotted: str) -> bool:
    """Whether ``dotted`` is a relreason module, or a module followed by names it defines (a
    class's attribute included)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        path = _module_file(".".join(parts[:cut]))
        if path is None:
            continue
        rest = parts[cut:]
        if not rest:
            return True
        node = _defined(path).get(rest[0])
        if node is None:
            return False
        if len(rest) > 1 and isinstance(node, ast.ClassDef):
            members = {getattr(n, "name", None) for n in node.body} | {
                t.id
                for n in node.body
                if isinstance(n, ast.Assign | ast.AnnAssign)
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                if isinstance(t, ast.Name)
            }
            return rest[1] in members
        return True
    return False


def _docstrings(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                found.append((getattr(node, "lineno", 1), doc))
    return found


def test_exists_tells_real_names_from_missing_ones() -> None:
    assert exists("relreason.run.runner")
    assert exists("relreason.run.runner.resume_run")
    assert exists("relreason.models.base.ModelBackend.prepare_choices")
    assert exists("relreason.evaluate")  # in relreason.__all__, served by __getattr__
    assert not exists("relreason.run.engine")
    assert not exists("relreason.tasks")
    assert not exists("relreason.run.runner.no_such_function")


def test_every_dotted_name_in_a_docstring_exists() -> None:
    missing = []
    for folder in (SRC / "relreason", ROOT / "tests", ROOT / "perf"):
        for path in sorted(folder.rglob("*.py")):
            for line, doc in _docstrings(path):
                for name in DOTTED.findall(doc):
                    if not exists(name.rstrip(".")):
                        missing.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert not missing, "docstrings name what does not exist:\n" + "\n".join(missing)


def test_every_document_a_docstring_names_is_in_the_repository() -> None:
    """A project document a docstring cites (an upper-case Markdown name: README, DESIGN,
    VOCABULARY, ...) is a file of this repository; the papers and the official repositories'
    files are cited by section and path, not through a document kept elsewhere."""
    held = {p.name for p in ROOT.rglob("*.md") if ".git" not in p.parts}
    missing = []
    for folder in (SRC / "relreason", ROOT / "tests", ROOT / "perf"):
        for path in sorted(folder.rglob("*.py")):
            for line, doc in _docstrings(path):
                for name in re.findall(r"\b([A-Z][A-Z_-]*\.md)\b", doc):
                    if name not in held:
                        missing.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert not missing, "docstrings cite documents the repository does not hold:\n" + "\n".join(
        missing
    )
