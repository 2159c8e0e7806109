"""A wheel that installs and runs: built from this tree (``pip wheel --no-deps``), installed with
``pip install --no-deps`` into a fresh virtual environment that borrows only the core
dependencies from the test environment, it ships every data table and default set and runs
``relreason prompts`` and ``relreason run``; its install hints name what works.

The fresh environment reaches the test environment's packages through a ``.pth`` line (the
same effect as ``--system-site-packages``, which would see the base interpreter instead); the
wheel's own ``relreason`` comes first on its path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from relreason.install import extra_hint

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "relreason"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this tree (built once for the module)."""
    pytest.importorskip("hatchling")  # the build backend, from the dev extra (no download)
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(REPO),
        ],
        check=True,
        capture_output=True,
    )
    return next(dist.glob("relreason-*.whl"))


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed (``--no-deps``)."""
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    shared = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "borrowed-core-deps.pth").write_text("\n".join(sorted(shared)) + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "-q",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    return folder


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "RELREASON_CACHE_DIR": str(tmp / "cache")}


def test_the_wheel_ships_every_data_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    data = [
        p.relative_to(PACKAGE.parent).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file()
        and p.suffix in (".csv", ".json", ".md", ".html", ".css", ".js")
        and "__pycache__" not in p.parts
    ]
    assert data and [d for d in data if d not in names] == []
    assert any(n.endswith("compose_en.json") for n in names)
    assert any(n.endswith("paper_table9.csv") for n in names)
    assert any(n.endswith("view/templates/item.html") for n in names)


def test_the_installed_wheel_runs(venv: Path, tmp_path: Path) -> None:
    bindir = venv / "bin"
    env = _env(tmp_path)
    where = subprocess.run(
        [str(bindir / "python"), "-c", "import relreason; print(relreason.__file__)"],
        check=True, capture_output=True, text=True, env=env,
    ).stdout  # fmt: skip
    assert where.startswith(str(venv)), where  # the wheel's copy, not this tree's
    prompts = subprocess.run(
        [str(bindir / "relreason"), "prompts", "compose", "--limit", "3"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert prompts.returncode == 0, prompts.stderr
    rows = [json.loads(line) for line in prompts.stdout.splitlines()]
    assert len(rows) == 3 and all(r["prompt"] and r["gold"] for r in rows)
    out = tmp_path / "run"
    ran = subprocess.run(
        [str(bindir / "relreason"), "run", "compose", "--model", "first", "--limit", "3",
         "--no-progress", "--out", str(out)],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert len((out / "records.jsonl").read_text().splitlines()) == 3
    assert "paper" in ran.stdout or "chance" in ran.stdout  # the tables shipped and were read


def test_the_wheel_install_hint_names_the_wheel(venv: Path, wheel: Path, tmp_path: Path) -> None:
    hint = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "from relreason.install import extra_hint; print(extra_hint('openai'))"],
        check=True, capture_output=True, text=True, env=_env(tmp_path),
    ).stdout  # fmt: skip
    assert f'pip install "{wheel}[openai]"' in hint
    assert "'openai[aiohttp]" in hint  # and the packages themselves


def test_the_hint_of_this_install_is_a_command_that_works() -> None:
    hint = extra_hint("openai")
    assert "'relreason[openai]'" not in hint  # no index has it
    assert "[openai]" in hint or "openai" in hint.split("pip install", 1)[-1]
