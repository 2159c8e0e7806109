"""The README states no figure a commit must keep re-editing: no test count, and the measured
timings it refers to are in perf/ records that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_states_no_test_count() -> None:
    counts = re.findall(r"\b\d[\d,]* (?:tests?|passed|test cases)\b", README)
    assert not counts, f"README hard-codes a test count: {counts}"


def test_every_perf_record_the_readme_links_exists() -> None:
    linked = set(re.findall(r"perf/[\w.-]+\.(?:md|py)", README))
    assert "perf/RESULTS-readme.md" in linked
    missing = sorted(p for p in linked if not (ROOT / p).is_file())
    assert not missing, f"README links missing perf files: {missing}"
