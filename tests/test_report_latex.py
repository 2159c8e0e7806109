"""The report's LaTeX fits a page: compiled with pdflatex (booktabs, graphicx) on an article's
portrait page, the log holds no error, no box more than 10 pt too wide or tall and no float too
large for its page, over a folder whose tables are both wide (ConvRe Table 9 over twelve
settings, long model names) and long (60 runs). Skips, saying so, where pdflatex or booktabs
is missing (``scripts/test.sh`` installs them: texlive-latex-base and -recommended)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import relreason
from relreason.records import load_manifest
from relreason.report import build_report
from relreason.run.folder import resume_task
from test_report_shapes import write_shaped_run

PDFLATEX = shutil.which("pdflatex")
HAS_BOOKTABS = (
    PDFLATEX is not None
    and subprocess.run(["kpsewhich", "booktabs.sty"], capture_output=True).returncode == 0
)
pytestmark = pytest.mark.skipif(
    not HAS_BOOKTABS,
    reason="pdflatex with booktabs is not installed (apt-get install texlive-latex-base "
    "texlive-latex-recommended)",
)
DOCUMENT = r"""\documentclass{article}
\usepackage{booktabs}
\usepackage{graphicx}
\begin{document}
Tables of the report.
\input{report.tex}
\end{document}
"""
TOLERANCE_PT = 10.0


def problems(log: str) -> list[str]:
    """The log's lines saying something does not fit the page by more than the tolerance."""
    found = []
    for match in re.finditer(r"Overfull \\[hv]box \(([\d.]+)pt too (?:wide|high)\)[^\n]*", log):
        if float(match.group(1)) > TOLERANCE_PT:
            found.append(match.group(0))
    for match in re.finditer(r"Float too large for page by ([\d.]+)pt[^\n]*", log):
        if float(match.group(1)) > TOLERANCE_PT:
            found.append(match.group(0))
    return found


@pytest.fixture(scope="module")
def wide_and_long(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("latex") / "runs"
    common: dict[str, Any] = {"use_cache": False, "data_dir": shared_data, "limit": 3}
    for setting in range(1, 13):
        relreason.evaluate(
            "convre", "first", task="re2text", setting=setting,
            out=root / f"convre-{setting}", **common,
        )  # fmt: skip
    relreason.evaluate("mcr", "first", language="en", method="zs", out=root / "mcr", **common)
    manifest = load_manifest(root / "mcr")
    items = list(resume_task(manifest, shared_data).items)[:3]
    for number in range(60):  # a long runs table, long model names
        write_shaped_run(
            root / f"mcr-{number}", manifest, items, ["correct", "wrong", "failed"],
            model=f"openai:an-instruction-tuned-model-with-a-long-name-{number:02d}-preview",
            partial=number % 2 == 1,
        )  # fmt: skip
    return root


def test_every_table_fits_a_page_in_pdflatex(wide_and_long: Path, tmp_path: Path) -> None:
    report = build_report(wide_and_long, texts=False)
    latex = report.format("latex")
    assert r"\clearpage" in latex, "the long tables were split"
    (tmp_path / "report.tex").write_text(latex, encoding="utf-8")
    (tmp_path / "doc.tex").write_text(DOCUMENT, encoding="utf-8")
    assert PDFLATEX is not None
    done = subprocess.run(
        [PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (tmp_path / "doc.log").read_text(encoding="utf-8", errors="replace")
    assert done.returncode == 0, log[-3000:]
    assert problems(log) == []
    assert "Too many unprocessed floats" not in log


def test_the_log_check_finds_what_does_not_fit() -> None:
    log = (
        "Overfull \\hbox (71.2pt too wide) in paragraph at lines 3--9\n"
        "Overfull \\hbox (2.0pt too wide) in paragraph at lines 10--12\n"
        "LaTeX Warning: Float too large for page by 120.5pt on input line 40.\n"
    )
    assert len(problems(log)) == 2
