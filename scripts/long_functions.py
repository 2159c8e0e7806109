"""List the functions in a tree longer than a limit (default 80 lines), longest first.

Usage: python scripts/long_functions.py [DIR] [--over N]
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def long_functions(root: Path, over: int) -> list[tuple[int, str, str]]:
    rows = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                length = (node.end_lineno or node.lineno) - first + 1
                if length > over:
                    rows.append((length, f"{path}:{first}", node.name))
    return sorted(rows, reverse=True)


def main(argv: list[str]) -> None:
    over = int(argv[argv.index("--over") + 1]) if "--over" in argv else 80
    dirs = [a for a in argv if not a.startswith("--") and a != str(over)]
    rows = long_functions(Path(dirs[0] if dirs else "src"), over)
    for length, where, name in rows:
        print(f"{length:5d}  {name}  {where}")
    print(f"{len(rows)} functions over {over} lines")


if __name__ == "__main__":
    main(sys.argv[1:])
