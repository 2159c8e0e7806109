"""Write docs/cli.md, the command reference, from the command line's own declarations: every
command's ``--help`` exactly as ``relreason ... --help`` prints it at 100 columns.

    python scripts/cli_reference.py           # rewrite docs/cli.md
    python scripts/cli_reference.py --check   # exit 1 when docs/cli.md is stale

tests/test_docs_site.py fails when the committed page differs from what this writes.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
WIDTH = "100"


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for name in getattr(command, "commands", {}):  # in the order the overview lists them
        yield from _commands(command.commands[name], (*path, name))


def _help(path: tuple[str, ...]) -> str:
    from relreason.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main([*path, "--help"])
    return out.getvalue().rstrip() + "\n"


def render() -> str:
    """The whole page."""
    from relreason.cli.app import build_app

    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH  # the same wrapping on every machine
    try:
        return _render(build_app())
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def _render(app: Any) -> str:
    import typer

    parts = [
        "# Command reference\n\n"
        "Every command's `--help`, as `relreason ... --help` prints it. This page is generated "
        "from the command line's declarations by `python scripts/cli_reference.py`; a test fails "
        "when it is stale.\n"
    ]
    for path in _commands(typer.main.get_command(app)):
        title = " ".join(("relreason", *path))
        parts.append(f"\n## `{title}`\n\n```text\n{_help(path)}```\n")
    return "".join(parts)


def main() -> int:
    text = render()
    if "--check" in sys.argv[1:]:
        if PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE} is stale: run python scripts/cli_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
