"""Help a newcomer can read: every option explained, value names instead of type names, flags as
flags, the overview for a bare command, ConvRe's settings table, errors never broken inside a
path, nothing cut at 80 columns."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer

from relreason import benchmarks
from relreason.cli import main
from relreason.cli.app import build_app
from relreason.cli.helptext import readable_metavars

LEAKED = re.compile(r"<(bool|str|int|float|path|list\[[^>]*\]|int range|float range)>")


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run the command line as the installed script does; return (exit code, stdout, stderr)."""
    code = 0
    try:
        main(args)
    except SystemExit as done:
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def _tree() -> Any:
    command = typer.main.get_command(build_app())
    readable_metavars(command)
    return command


def test_every_option_and_argument_has_help() -> None:
    missing = [
        f"{' '.join(path)} {param.name}"
        for path, command in _commands(_tree())
        for param in command.params
        if not (getattr(param, "help", None) or "").strip()
    ]
    assert missing == []


@pytest.fixture()
def columns_80(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


@pytest.mark.usefixtures("columns_80")
def test_help_pages_fit_80_columns_and_name_values_not_types(
    capsys: pytest.CaptureFixture[str],
) -> None:
    paths = [list(path) for path, _ in _commands(_tree())]
    assert len(paths) > 10
    for path in paths:
        code, out, _ = run_cli([*path, "--help"], capsys)
        assert code == 0, path
        where = " ".join(path) or "relreason"
        assert not LEAKED.findall(out), where
        assert "…" not in out, where
        assert all(len(line) <= 80 for line in out.splitlines()), where
    _, out, _ = run_cli(["run", "convre", "--help"], capsys)
    assert "  --logprob-fallback / --no-logprob-fallback" in out
    assert re.search(r"^  --subset\s+The paper's 328-triple subset\.$", out, re.M)  # a flag
    assert re.search(r"^  --base-url URL\s", out, re.M)
    assert re.search(r"^  --max-new-tokens N\s", out, re.M)


@pytest.mark.parametrize("args", [[], ["prompts"], ["score"], ["run"]])
def test_a_bare_command_shows_its_overview(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(args, capsys)
    assert code == 0 and err == ""
    assert out.startswith(f"Usage: relreason {' '.join(args)}".rstrip() + " ")
    assert "Commands:" in out or "Options:" in out


@pytest.mark.parametrize("command", ["run", "prompts", "score"])
def test_convre_help_has_the_settings_table(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run_cli([command, "convre", "--help"], capsys)
    settings = benchmarks.get("convre").listing()["settings"]
    rows = {m.group(1): m.group(2).split() for m in re.finditer(r"^  (\d+) +(.+)$", out, re.M)}
    assert sorted(rows, key=int) == [str(i) for i in range(1, 13)]
    for setting_id, cells in rows.items():
        re2text, text2re = settings["re2text"][setting_id], settings["text2re"][setting_id]
        for cell, knob in zip(cells, re2text, strict=True):
            a, b = str(re2text[knob]), str(text2re[knob])
            assert cell == (a if a == b else f"{a}/{b}"), (setting_id, knob)


@pytest.mark.usefixtures("columns_80")
def test_an_error_never_breaks_a_long_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "run-folder-that-does-not-exist"
    code, _, err = run_cli(["run", "--resume", str(deep)], capsys)
    assert code == 2
    assert str(deep) in err.replace("\n", "") and str(deep) in err  # one piece, on one line


def test_list_fits_80_columns_and_shows_the_settings_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(["list"], capsys)
    assert code == 0
    assert all(len(line) <= 80 for line in out.splitlines())
    assert re.search(r"^  8 +hint\+cot +converse +3 +hard +hard$", out, re.M)
    for backend in ("smollm2", "random[:SEED]", "openai:MODEL"):
        assert re.search(rf"^  {re.escape(backend)}: ", out, re.M)


def test_python_dash_m_runs_the_same_command_line() -> None:
    """``python -m relreason`` is the ``relreason`` script: same version line, same exit code
    for a bad command (a real subprocess, the package as installed or on ``sys.path``)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    version = subprocess.run(
        [sys.executable, "-m", "relreason", "--version"], capture_output=True, text=True, env=env
    )
    assert version.returncode == 0, version.stderr
    import relreason

    assert relreason.__version__ in version.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "relreason", "no-such-command"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert bad.returncode == 2 and "no-such-command" in bad.stderr + bad.stdout
