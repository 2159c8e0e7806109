"""The README is a front page and the rest of the documentation a site that cannot go stale: it
builds with ``mkdocs build --strict`` (a broken link, a page outside the nav or any warning is an
error), its command reference is what the command line declares, and every ``relreason`` command
the README and the pages show is parsed by the real command line (those that need no model, data
or network are run)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer._click import ClickException  # typer's own click, vendored

from relreason.cli import main
from relreason.cli.app import build_app

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
sys.path.insert(0, str(ROOT / "scripts"))
import cli_reference  # noqa: E402


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs is in the dev extra: pip install -e '.[dev]'")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "cli" / "index.html").is_file()


def test_the_command_reference_is_what_the_command_line_declares() -> None:
    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert committed == cli_reference.render(), (
        "docs/cli.md is stale: python scripts/cli_reference.py"
    )


def test_the_readme_is_a_front_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 250, f"README.md has {len(lines)} lines: move material into docs/"
    linked = set(re.findall(r"\]\((docs/[^)#]+)", README.read_text(encoding="utf-8")))
    assert linked and not [p for p in linked if not (ROOT / p).is_file()]


def commands(path: Path) -> Iterator[str]:
    """Each ``relreason`` command line in the file's bash and console blocks, continuation lines
    joined, comments and a ``$`` prompt removed."""
    block = False
    pending = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            block = line[3:].strip() in ("bash", "console", "sh")
            continue
        if not block:
            continue
        text = pending + line.strip().removeprefix("$ ")
        if text.endswith("\\"):
            pending = text[:-1] + " "
            continue
        pending = ""
        text = re.sub(r"\s+#\s.*$", "", text).strip()
        if (text == "relreason" or text.startswith("relreason ")) and "..." not in text:
            yield text  # (a line with "..." stands for any command)


DOCUMENTED = sorted(
    {(p.relative_to(ROOT).as_posix(), c) for p in [README, *PAGES] for c in commands(p)}
)


def parse(args: list[str]) -> None:
    """Parse ``relreason ARGS`` as the command line does, down to the command, running nothing
    (raises click's error for an unknown command or option, or a value it refuses)."""
    command: Any = typer.main.get_command(build_app())
    context = command.make_context("relreason", list(args), resilient_parsing=False)
    while hasattr(command, "commands"):  # a group: on to its command
        rest = [*context._protected_args, *context.args]
        if not rest:
            return
        name, command, rest = command.resolve_command(context, rest)
        assert command is not None, name
        context = command.make_context(name, rest, parent=context)


def test_the_pages_show_commands() -> None:
    assert len(DOCUMENTED) > 50


@pytest.mark.parametrize(("page", "line"), DOCUMENTED)
def test_every_documented_command_parses(page: str, line: str) -> None:
    args = shlex.split(line)[1:]
    try:
        parse(args)
    except typer.Exit:  # --help, --version
        pass
    except typer.BadParameter as error:  # a file the example names, which is not here
        if not re.search(r"does not exist|not found|No such file", str(error.format_message())):
            raise AssertionError(f"{page}: {line}: {error.format_message()}") from error
    except ClickException as error:
        raise AssertionError(f"{page}: {line}: {error.format_message()}") from error


RUNNABLE = re.compile(
    r"^relreason( --help| --version| list( --json)?| [\w-]+( [\w-]+)? --help|"
    r" generate (compose|verify|audit) .*| cache info)?$"
)
"""Commands that need no model, no official data and no network: these are run."""


def test_the_commands_that_need_nothing_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    ran = []
    made_first = sorted(DOCUMENTED, key=lambda pl: "generate compose" not in pl[1])
    for page, line in made_first:  # the set the page makes, then the commands that read it
        if not RUNNABLE.match(line):
            continue
        args = [a.replace("src/relreason/", f"{ROOT}/src/relreason/") for a in shlex.split(line)]
        code = 0
        try:
            main(args[1:])
        except SystemExit as done:
            code = int(done.code or 0)
        out, err = capsys.readouterr()
        assert code == 0, f"{page}: {line}: exit {code}\n{out[-1000:]}{err[-1000:]}"
        ran.append(line)
    print("ran:", *ran, sep="\n  ")
    assert any("generate compose" in line for line in ran) and any("list" in line for line in ran)
