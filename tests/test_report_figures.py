"""Every figure of the HTML report, as headless Chromium shows it at 1400 px: a legend (lines)
or a labelled colour bar (grids), no text under 8 pt (10 px at that width), no two text boxes
over each other, and no wider than a printed page (7 in). Runs of the bundled baselines on the
official data (real backends, no model). Skips only when Chromium is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

import relreason
from relreason.report import build_report, render_html
from test_report_html import ARGS, CHROMIUM

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason=f"no Chromium at {CHROMIUM}")

LINES = ("convre_table9", "mcr_relations")
"""Figures of lines: they need a legend."""

_MEASURE = """svg => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const rotated = el => { for (let e = el; e && e !== svg; e = e.parentElement) {
      if ((e.getAttribute('transform') || '').includes('rotate')) return true; } return false; };
  const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim());
  return {
    width_pt: svg.viewBox.baseVal.width,
    legend: svg.querySelectorAll('g.legend').length,
    labels: texts.map(t => t.textContent.trim()),
    texts: texts.map(t => {
      const r = t.getBoundingClientRect();
      return {text: t.textContent.trim(), px: parseFloat(getComputedStyle(t).fontSize) * scale,
              rotated: rotated(t), box: [r.left, r.top, r.right, r.bottom]};
    }),
  };
}"""


@pytest.fixture(scope="module")
def page_file(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("figures")
    runs = root / "runs"
    common = {"use_cache": False, "data_dir": shared_data}
    for model in ("random", "first", "oracle"):
        for setting in (1, 3):
            relreason.evaluate(
                "convre", model, task="re2text", setting=setting, subset=True, limit=60,
                out=runs / model / f"convre-s{setting}", **common,
            )  # fmt: skip
        relreason.evaluate(
            "mcr", model, language="en", method="zs", limit=120,
            out=runs / model / "mcr-en-zs", **common,
        )  # fmt: skip
        relreason.evaluate(
            "compose", model, language="en", method="zs", limit=60, use_cache=False,
            out=runs / model / "compose-en-zs",
        )  # fmt: skip
    relreason.evaluate(
        "compose", "first", language="en", method="zs", limit=10, permute="cyclic",
        use_cache=False, out=runs / "first" / "compose-permute",
    )  # fmt: skip
    report = build_report(runs, data_dir=shared_data)
    return render_html(report, root / "report.html")


def _overlapping(texts: list[dict]) -> list[tuple[str, str]]:
    boxes = [t for t in texts if not t["rotated"]]
    found = []
    for n, a in enumerate(boxes):
        for b in boxes[n + 1 :]:
            (l1, t1, r1, b1), (l2, t2, r2, b2) = a["box"], b["box"]
            width, height = min(r1, r2) - max(l1, l2), min(b1, b2) - max(t1, t2)
            smaller = min((r1 - l1) * (b1 - t1), (r2 - l2) * (b2 - t2))
            if width > 0 and height > 0 and width * height > 0.2 * smaller:
                found.append((a["text"], b["text"]))
    return found


def test_figures_are_legible(page_file: Path) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(page_file.as_uri(), wait_until="load")
            page.wait_for_selector("body[data-ready='1']", timeout=20_000)
            sections = page.locator("section:has(.fig svg)")
            keys = [sections.nth(i).get_attribute("id") for i in range(sections.count())]
            assert {"convre_table9", "mcr_relations", "compose_breakdown"} <= set(keys)
            assert {"permute_positions", "convre_scaling", "mcr_table4"} <= set(keys)
            problems = []
            for key in keys:
                found = page.locator(f"#{key} .fig svg").evaluate(_MEASURE)
                if found["width_pt"] > 7 * 72:  # wider than a printed page
                    problems.append((key, "width", found["width_pt"]))
                small = [(t["text"], round(t["px"], 1)) for t in found["texts"] if t["px"] < 10]
                if small:
                    problems.append((key, "small text", small[:5]))
                if _overlapping(found["texts"]):
                    problems.append((key, "overlap", _overlapping(found["texts"])[:5]))
                if key in LINES and found["legend"] != 1:
                    problems.append((key, "no legend"))
                colour = {"accuracy", "chosen", "accuracy (cells: %)"} & set(found["labels"])
                if key not in LINES and not colour:  # a grid: its colour bar says what it is
                    problems.append((key, "no colour bar label"))
            assert problems == []
        finally:
            browser.close()
