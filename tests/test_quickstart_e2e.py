"""The quickstart's own commands, end to end, on the baselines, with COLUMNS=80 and no terminal:
what a new user's log shows holds the numbers and their context.

The commands are read from ``scripts/quickstart.sh`` (so the test follows the script); the data
is a small set of files in the official formats written here (no official data needed).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from relreason.records import load_records
from relreason.records.context import label_sort_key

REPO = Path(__file__).resolve().parents[1]
RELATIONS = {
    "hypernym": "hypernym",
    "has part": "part",
}
CATEGORIES = ["Personal", "Positional", "Comparative"]


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def _convre_files(root: Path) -> int:
    triples = {
        key: [
            {
                "head": f"{word} head {i}",
                "relation": key,
                "tail": f"{word} tail {i}",
                "answer": "AB"[(i * 5 + len(key)) % 3 % 2],
            }
            for i in range(7)
        ]
        for key, word in RELATIONS.items()
    }
    _write_json(root / "convre" / "triple_subset.json", triples)
    _write_json(root / "convre" / "triple_dataset.json", triples)
    templates = {
        key: {
            "normal": f"(x, {key}, y) indicates that y is the {word} of x.",
            "converse": f"(x, {key}, y) indicates that x is the {word} of y.",
            "normal-regular": f"Find an entity so that [N] is the {word} of it.",
            "normal-hard": f"Find an entity so that [N] is bigger than it ({word}).",
            "converse-regular": f"Find an entity that is the {word} of [N].",
            "converse-hard": f"Find an entity bigger than [N] ({word}).",
        }
        for key, word in RELATIONS.items()
    }
    _write_json(root / "convre" / "re2text_relations.json", templates)
    examples = {
        k: [f"Example {i} ({k})." for i in range(10)]
        for k in ("hard", "regular", "hard-cot", "regular-cot")
    }
    _write_json(root / "convre" / "re2text_examples.json", examples)
    return sum(len(v) for v in triples.values())


def _mcr_files(root: Path) -> list[int]:
    questions = []
    sizes = []
    for i in range(12):
        n = 3 + i % 3
        options = [f"Option {j} of {i}" for j in range(n)]
        questions.append(
            {
                "question": f"Who is {i} to {i + 1}?",
                "correct": options[(i * 7) % n],
                "options": options,
                "category": [CATEGORIES[i % 3]],
            }
        )
        sizes.append(n)
    _write_json(root / "mcr" / "composition_english.json", questions)
    blocks = ["english", "chinese", "french", "japanese", "korean", "multilingual"]
    _write_json(root / "mcr" / "exemplars_official.json", {k: f"Q: ... ({k})\n" for k in blocks})
    return sizes


def _quickstart_runs() -> list[list[str]]:
    """The ``relreason run`` commands of scripts/quickstart.sh, as argument lists, with the
    script's defaults (``NAME=${QUICKSTART_NAME:-VALUE}``: sample sizes, model, folder) put in."""
    script = (REPO / "scripts" / "quickstart.sh").read_text(encoding="utf-8")
    defaults = dict(re.findall(r"^(\w+)=\$\{\w+:-([^}]+)\}$", script, re.M))
    return [
        [re.sub(r"\$(\w+)", lambda m: defaults[m[1]], a) for a in shlex.split(line)[1:]]
        for line in script.splitlines()
        if line.strip().startswith("relreason run ")
    ]


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from relreason.cli import main; sys.argv[0] = 'relreason'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("model", ["first", "random"])
def test_the_quickstart_explains_its_numbers(tmp_path: Path, model: str) -> None:
    data = tmp_path / "data"
    n_convre = _convre_files(data)
    sizes = _mcr_files(data)
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TERM")}
    env.update(
        COLUMNS="80",
        RELREASON_DATA_DIR=str(data),
        RELREASON_CACHE_DIR=str(tmp_path / "cache"),
        PYTHONPATH=os.pathsep.join(sys.path),
    )
    runs = _quickstart_runs()
    assert [r[:2] for r in runs] == [["run", "compose"], ["run", "convre"], ["run", "mcr"]]
    for args, chance, n_task in (
        (runs[0], 0.25, 150),  # the shipped generated set: 150 questions, 4 options each
        (runs[1], 0.5, n_convre),
        (runs[2], None, len(sizes)),
    ):
        assert "--sample" in args, "the quickstart runs stratified samples"
        n = min(n_task, int(args[args.index("--sample") + 1]))
        done = _run([*args, "--model", model], env, tmp_path)
        assert done.returncode == 0, done.stderr
        out, err = done.stdout, done.stderr
        folder = tmp_path / args[args.index("--out") + 1]
        summary = json.loads((folder / "summary.json").read_text())
        # the numbers
        assert f"accuracy {summary['accuracy']:.4f} ({summary['correct']}/{n};" in out
        # their context: chance, the baselines on the same items (the run is one of them)
        context = summary["context"]
        if chance is None:  # MCR: the mean of 1/options over the items run
            ran = load_records(folder)
            chance = sum(1 / sizes[i] for i in ran) / len(ran)
        assert context["chance"] == pytest.approx(chance)
        assert context["baselines"][model] == summary["accuracy"]
        assert f"chance {chance:.3f}" in out
        baseline = {"first": "always-first baseline", "random": "random baseline"}[model]
        assert f"{baseline} {summary['accuracy']:.3f}" in out.replace("\n    ", " ")
        # the paper's figures for the same cell (re2text setting 1; MCR English zero-shot); the
        # generated set has no paper
        if args[1] == "compose":
            assert not (context.get("paper") or {}).get("figures")
        else:
            assert context["paper"]["figures"]
            cell = "(re2text, 1)" if args[1] == "convre" else "(en, zs)"
            assert f" {cell}: " in out
        # the whole breakdown, as a sorted table
        for name, values in summary["by_label"].items():
            header = next(
                i for i, line in enumerate(out.splitlines()) if line.split()[:2] == ["by", name]
            )
            rows = out.splitlines()[header + 1 : header + 1 + len(values)]
            assert [r.strip().rsplit(None, 3)[0] for r in rows] == list(values)
            assert list(values) == sorted(values, key=label_sort_key)
        # the one-letter habit of "first" is pointed out
        habit = "note: the model answered 'A' to"
        assert (habit in out) == (model == "first")
        # a log, not a terminal: plain progress lines on stderr, no \r, no library bars
        assert re.search(
            rf": {n}/{n} \(100%\) [\d.k]+/s [\d.k-]+ tok/s ETA 0s acc [\d.]+ failed 0$", err, re.M
        )
        assert all(len(line) <= 80 for line in err.splitlines())
        assert "\r" not in out + err and "\x1b[" not in out + err
        # 80 columns (a folder path may be longer: it is never broken)
        assert all(len(line) <= 80 for line in out.splitlines() if not line.startswith("  folder:"))


def test_without_network_the_quickstart_says_how_to_go_on(tmp_path: Path) -> None:
    """The script itself, offline (the data mirror is a closed local port), on a baseline:
    the download fails naming the ways out, ConvRe and MCR are skipped, and the script still
    ends with the result of the run that needs no download, exit 0."""
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TERM")}
    env.pop("RELREASON_DATA_DIR", None)
    env.update(
        COLUMNS="80",
        QUICKSTART_SKIP_INSTALL="1",
        QUICKSTART_MODEL="first",
        QUICKSTART_OUT=str(tmp_path / "runs"),
        RELREASON_MIRROR=f"http://127.0.0.1:{port}",
        RELREASON_CACHE_DIR=str(tmp_path / "cache"),
        PYTHONPATH=os.pathsep.join(sys.path),
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    )
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "quickstart.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    err = " ".join(done.stderr.split())
    assert "download failed" in err and "RELREASON_DATA_DIR" in err and "--mirror" in err
    out = done.stdout
    assert "RELREASON_DATA_DIR=DIR bash scripts/quickstart.sh" in " ".join(out.split())
    assert not (tmp_path / "runs" / "quickstart-convre").exists()
    summary = json.loads((tmp_path / "runs" / "quickstart-compose" / "summary.json").read_text())
    tail = out[out.rindex("The run that needed no download") :].splitlines()
    header = next(line for line in tail if "accuracy" in line and "benchmark" in line)
    row = next(line for line in tail if "quickstart-compose" in line)
    assert tail.index(header) < tail.index(row), tail
    assert f"{summary['accuracy']:.3f}" in row and "compose" in row, tail
