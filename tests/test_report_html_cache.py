"""The HTML page's item blocks (each run's items, the prompts' texts) are kept in the report cache:
a second page over unchanged runs takes them from there and is byte for byte the page made
afresh; a change to a run's records or manifest, to the options or to relreason's version makes
them again."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import relreason
from relreason.report import build_report, html, render_html


@pytest.fixture()
def runs(shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    for model in ("first", "random"):  # real runs: MCR's questions come from the data
        relreason.evaluate(
            "mcr", model, language="en", method="zs", limit=6, data_dir=shared_data,
            out=tmp_path / "runs" / model, use_cache=False,
        )  # fmt: skip
    return tmp_path / "runs"


def _page(runs: Path, shared_data: Path, out: Path, **options: Any) -> bytes:
    report = build_report(runs, data_dir=shared_data, **options)
    render_html(report, out)
    return out.read_bytes()


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count each run's item block made (not taken from the cache)."""
    made: list[int] = []
    payload = html.run_payload

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        made.append(1)
        return payload(*args, **kwargs)

    monkeypatch.setattr(html, "run_payload", counted)
    return made


def _fresh(runs: Path, shared_data: Path, tmp_path: Path, **options: Any) -> bytes:
    """The page made with an empty cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "empty"))
        return _page(runs, shared_data, tmp_path / "fresh.html", **options)


def test_a_second_page_takes_the_blocks_and_is_the_fresh_page(
    runs: Path, shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _page(runs, shared_data, tmp_path / "first.html")
    assert len(list((tmp_path / "cache" / "report-html").iterdir())) == 1
    made = _counting(monkeypatch)
    assert _page(runs, shared_data, tmp_path / "second.html") == first
    assert not made, "the item blocks were made again"
    assert _fresh(runs, shared_data, tmp_path) == first


def _records(runs: Path) -> None:
    path = runs / "first" / "records.jsonl"
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    lines[0]["output"] = "B) another answer"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")


def _manifest(runs: Path) -> None:
    path = runs / "random" / "manifest.json"
    path.write_text(json.dumps(json.loads(path.read_text("utf-8")), indent=4), "utf-8")


def _version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html, "__version__", "0.0.0+changed")


CHANGES: dict[str, tuple[Callable[[Path, pytest.MonkeyPatch], None], dict[str, Any]]] = {
    "records": (lambda runs, _: _records(runs), {}),
    "manifest": (lambda runs, _: _manifest(runs), {}),
    "options": (lambda runs, _: None, {"texts": False}),
    "version": (lambda _, patch: _version(patch), {}),
}


@pytest.mark.parametrize("change", CHANGES)
def test_a_change_makes_the_blocks_again(
    change: str, runs: Path, shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _page(runs, shared_data, tmp_path / "first.html")
    make, options = CHANGES[change]
    make(runs, monkeypatch)
    made = _counting(monkeypatch)
    after = _page(runs, shared_data, tmp_path / "second.html", **options)
    assert made, "the item blocks were taken from the cache"
    assert after == _fresh(runs, shared_data, tmp_path, **options)
    assert (after != before) == (change in ("records", "options"))


def test_the_key_holds_the_texts_rebuilt_from_the_data(runs: Path, shared_data: Path) -> None:
    loaded = build_report(runs, data_dir=shared_data).runs
    assert "question" in loaded.items  # MCR's questions: from the data, not the run folders
    key = html._blocks_key(loaded, [None, None], ())
    assert key is not None and key == html._blocks_key(loaded, [None, None], ())
    loaded.items.loc[0, "question"] = "Another question from another data file?"
    assert html._blocks_key(loaded, [None, None], ()) != key
    del loaded.stamps["first"]  # e.g. its prompts rebuilt from the data: made afresh
    assert html._blocks_key(loaded, [None, None], ()) is None
