"""No import circle among relreason's modules, counting module-level imports and the imports
inside functions alike (a lazy import that closes a loop is a loop all the same); and, one level
up, relreason's packages stand on floors (``FLOORS``, declared here once): a package imports
only packages on the floors below its own, so no package-level circle and no import that
climbs back up; ``analysis/`` (the library under the benchmarks) names no benchmark.

The graph is built from the source with :mod:`ast`, so the test imports nothing it checks.
An edge ``a -> b`` means module ``a`` imports ``b``; importing ``relreason.<x>.<y>`` (or anything
from it) also runs every package ``__init__`` on the way, so it adds the edges ``a ->
relreason.<x>`` and ``a -> relreason`` too, except for the packages ``a`` itself lies in (they
are already running when ``a`` runs). ``from relreason.<x> import y`` where ``y`` is a submodule
adds ``a -> relreason.<x>.<y>``; naming a package itself (``from relreason.<x> import name``) is an
edge to its ``__init__`` even from inside the package, since that is where ``name`` lives.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "relreason"

FLOORS: tuple[tuple[str, ...], ...] = (
    # the base: single modules, which may import one another (without a circle)
    ("errors", "types", "version", "paths", "files", "redact", "untrusted", "install", "declare"),
    ("records", "data", "scoring", "models"),
    ("generate", "analysis"),  # analysis: the generic library (statistics, tables, figures)
    ("benchmarks",),  # each benchmark's own analyses and report sections in its package
    ("run",),
    ("translate", "bridges", "report"),  # report: what loops over the benchmark registry
    ("view",),  # the web viewer over run folders (reads them with records/ and analysis/)
    ("api", "cli", "inspect"),
    (PACKAGE, "__main__"),  # the package's __init__ (its lazy names reach the API)
)
"""relreason's top-level packages and modules, bottom floor first. A package imports only
packages on lower floors (the base floor's modules also one another); a new package gets a
floor here."""
BENCHMARK_NAMES = ("convre", "mcr", "compose")


def _modules() -> dict[str, Path]:
    """Every module under ``src/relreason`` by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _with_parents(name: str, modules: dict[str, Path]) -> list[str]:
    """``name`` and the packages above it that importing it runs (the relreason ones only)."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in modules]


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module a ``from ... import`` names, relative forms resolved."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph() -> dict[str, set[str]]:
    """Module -> the relreason modules it imports (at module level or inside a function)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        # the packages above a module have already started running when it runs: reaching
        # them on the way to a sibling is no edge, naming one itself (``from . import x``
        # where ``x`` is defined in the ``__init__``) is
        own = set(_with_parents(module, modules)[: None if is_package else -1])
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, module, is_package)
                subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
                # ``from package import submodule`` imports the submodule; any other name
                # comes from the package's ``__init__``
                targets = subs if len(subs) == len(node.names) else [base, *subs]
            for target in targets:
                if target == PACKAGE or target.startswith(PACKAGE + "."):
                    graph[module].update(
                        name
                        for name in _with_parents(target, modules)
                        if name == target or name not in own
                    )
        graph[module].discard(module)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return found


def _loop(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One concrete loop inside a strongly connected component, for the failure message."""
    members = set(component)
    start = component[0]
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        node = frontier.pop(0)
        for nxt in sorted(graph[node] & members):
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(parents[path[-1]])
                return [*reversed(path), start]
            if nxt not in parents:
                parents[nxt] = node
                frontier.append(nxt)
    return component


def test_the_graph_sees_lazy_and_relative_imports() -> None:
    graph = import_graph()
    # cli/__init__ imports cli.app inside main(): a lazy import is an edge
    assert "relreason.cli.app" in graph["relreason.cli"]
    # importing relreason.x.y runs relreason.x's __init__
    assert "relreason.benchmarks" in graph["relreason.cli.app"]


def test_cycles_finds_a_loop() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert _loop(["a", "b", "c"], graph) == ["a", "b", "c", "a"]


def test_no_import_circle() -> None:
    graph = import_graph()
    loops = [
        " -> ".join(_loop(c, graph)) + f"  (all in the circle: {', '.join(c)})"
        for c in cycles(graph)
    ]
    assert not loops, "import circles:\n" + "\n".join(loops)


def floor_of(module: str) -> tuple[str, int]:
    """The top-level package (or module) ``module`` belongs to, and its floor."""
    top = module.split(".")[1] if "." in module else module
    for number, floor in enumerate(FLOORS):
        if top in floor:
            return top, number
    raise AssertionError(f"{top} is on no floor: add it to FLOORS in {Path(__file__).name}")


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Top-level package -> the top-level packages its modules import."""
    packages: dict[str, set[str]] = {floor_of(m)[0]: set() for m in graph}
    for module, targets in graph.items():
        packages[floor_of(module)[0]].update(floor_of(t)[0] for t in targets)
    for name, targets in packages.items():
        targets.discard(name)
    return packages


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Each module import that reaches a package on its own floor or above (except between
    the base floor's modules)."""
    found = []
    for module, targets in sorted(graph.items()):
        (top, floor) = floor_of(module)
        for target in sorted(targets):
            (other, other_floor) = floor_of(target)
            if other != top and other_floor >= floor and other_floor > 0:
                found.append(f"{module} -> {target} (floor {floor} -> {other_floor})")
    return found


def test_every_package_is_on_one_floor() -> None:
    names = [name for floor in FLOORS for name in floor]
    assert len(names) == len(set(names))
    for module in import_graph():
        floor_of(module)


def test_upward_finds_a_climb() -> None:
    graph = {
        "relreason.analysis.load": {"relreason.records"},
        "relreason.records": {"relreason.analysis.load"},
    }
    assert upward(graph) == ["relreason.records -> relreason.analysis.load (floor 1 -> 2)"]
    assert cycles(package_graph(graph)) == [["analysis", "records"]]


def test_no_package_circle_and_no_import_climbs_up() -> None:
    graph = import_graph()
    packages = package_graph(graph)
    loops = [" -> ".join(_loop(c, packages)) for c in cycles(packages)]
    assert not loops, "package circles:\n" + "\n".join(loops)
    climbs = upward(graph)
    assert not climbs, "imports that climb up the floors:\n" + "\n".join(climbs)


def test_analysis_imports_only_records_and_the_base() -> None:
    graph = import_graph()
    allowed = {"analysis", "records", *FLOORS[0]}
    found = [
        f"{module} -> {target}"
        for module, targets in sorted(graph.items())
        if floor_of(module)[0] == "analysis"
        for target in sorted(targets)
        if floor_of(target)[0] not in allowed
    ]
    assert not found, "analysis/ imports above records and the base:\n" + "\n".join(found)


def test_analysis_names_no_benchmark() -> None:
    """No string in ``analysis/`` code (docstrings aside) names a benchmark: each benchmark's
    analyses live in its package."""
    found = []
    for path in sorted((ROOT / PACKAGE / "analysis").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and any(name in node.value.lower() for name in BENCHMARK_NAMES)
            ):
                found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    assert not found, "benchmark names in analysis/:\n" + "\n".join(found)
