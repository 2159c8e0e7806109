"""The README and the documentation pages state no figure a commit must keep re-editing: no test
count, and the measured timings they refer to are in perf/ records that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_no_document_states_a_test_count(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    counts = re.findall(r"\b\d[\d,]* (?:tests?|passed|test cases)\b", text)
    assert not counts, f"{document.name} hard-codes a test count: {counts}"


def test_every_perf_record_the_documents_link_exists() -> None:
    assert "perf/RESULTS-readme.md" in README
    linked = {
        (document.name, path)
        for document in DOCUMENTS
        for path in re.findall(r"perf/[\w.-]+\.(?:md|py)", document.read_text(encoding="utf-8"))
    }
    missing = sorted((name, p) for name, p in linked if not (ROOT / p).is_file())
    assert not missing, f"documents link missing perf files: {missing}"
