"""The embedded default set: rebuilt byte for byte, proved, loadable offline."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from relreason.generate.compose import DOMAINS, FIRST_DOMAINS
from relreason.generate.default import (
    DEFAULT_COUNT,
    PART_COUNT,
    default_path,
    default_text,
    load_default,
    rebuild_default,
)
from relreason.generate.lexicon import LANGUAGES
from relreason.generate.verify import verify


@pytest.mark.parametrize("language", LANGUAGES)
def test_shipped_file_is_what_the_generator_builds(language: str) -> None:
    assert default_path(language).read_bytes() == default_text(language).encode("utf-8")


@pytest.mark.parametrize("language", LANGUAGES)
def test_shipped_file_is_proved_and_loads(language: str) -> None:
    assert verify(default_path(language)) == []
    records = load_default(language)
    assert len(records) == DEFAULT_COUNT == 300
    assert {r.domain for r in records} == set(DOMAINS)  # MCR's six categories
    assert {r.domain for r in records[:PART_COUNT]} == set(FIRST_DOMAINS)  # as shipped before
    assert Counter(r.domain for r in records) == dict.fromkeys(DOMAINS, 50)
    assert set(Counter(r.hops for r in records)) == {2, 3, 4, 5, 6}


def test_rebuild_writes_every_language(tmp_path: Path) -> None:
    written = rebuild_default(tmp_path)
    assert sorted(p.name for p in written) == sorted(f"compose_{c}.json" for c in LANGUAGES)
    assert written[0].read_bytes() == default_path(LANGUAGES[0]).read_bytes()


def test_shipped_files_stay_small() -> None:
    total = sum(default_path(code).stat().st_size for code in LANGUAGES)
    assert total < 1_800_000  # 300 questions per language (filler premises since 2026-12)
