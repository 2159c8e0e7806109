"""The HTML report in a real browser: headless Chromium (Debian's ``chromium``) driven by
Playwright. Skips only when Chromium is absent; CI installs it (``apt-get install chromium``)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from analysis_runs import answers, convre_description, mcr_description, write_run
from relreason.report import render_html

CHROMIUM = os.environ.get("RELREASON_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason=f"no Chromium at {CHROMIUM}")


def _with_prompts(records: list[dict], prefix: str) -> list[dict]:
    return [dict(r, prompt=f"{prefix}\nQuestion {r['index']}</script>?") for r in records]


@pytest.fixture()
def page_file(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    relations = ["hypernym", "hypernym", "has part", "has part"]

    def labelled(given: str) -> list[dict]:
        return [
            dict(r, labels={"relation": relations[r["index"]], "source": "WN"})
            for r in answers("ABAB", given)
        ]

    # under 3# m1 answers BBAA: item 0 is right under 1# only; m2 answers the same under both
    for model, given, converse in (("m1", "ABAA", "BBAA"), ("m2", "AAAA", "AAAA")):
        records = labelled(given)
        write_run(
            runs,
            f"{model}/s1",
            model,
            convre_description("re2text", 1),
            _with_prompts(records, "Read the instruction."),
        )
        write_run(runs, f"{model}/s3", model, convre_description("re2text", 3), labelled(converse))
    write_run(
        runs,
        "m1/mcr",
        "m1",
        mcr_description("en", "zs"),
        answers("ABC", "ABA", categories=["Other"], n_options=3),
    )
    return render_html(runs, tmp_path / "report.html", texts=False)


def test_page_in_chromium(page_file: Path) -> None:
    text = page_file.read_text("utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)  # nothing to fetch
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on(
                "request",
                lambda r: (
                    errors.append(f"request {r.url}")
                    if not r.url.startswith(("file:", "data:"))
                    else None
                ),
            )
            page.goto(page_file.as_uri(), wait_until="load")
            page.wait_for_selector("body[data-ready='1']", timeout=10_000)

            # figures: inline SVGs drawn with a real size
            figures = page.locator(".fig svg")
            assert figures.count() >= 2
            box = figures.first.bounding_box()
            assert box is not None and box["width"] > 100 and box["height"] > 50

            # the drill-down of Table 9's cell m1 / 1#: 4 items, 3 right (ABAA vs ABAB)
            row = page.locator("#convre_table9 tr", has_text="m1")
            row.locator("td.drill").first.click()
            page.wait_for_selector("#panel:not([hidden])")
            assert page.inner_text("#p-count") == "4 items"
            page.select_option("#f-correct", "0")
            assert page.inner_text("#p-count") == "1 items"
            page.select_option("#f-correct", "")
            page.select_option("#f-status", "correct")
            assert page.inner_text("#p-count") == "3 items"
            page.select_option("#f-label", "has part")
            assert page.inner_text("#p-count") == "1 items"  # item 2 (right); item 3 wrong

            # an item's details: the prompt (with its "</script>" intact) and the output
            page.locator("#p-body tr[data-k]").first.click()
            detail = page.inner_text("#p-body tr.detail")
            assert "Read the instruction." in detail and "Question 2</script>?" in detail

            # a filtered cell: status counts -> wrong of m2/s1 (AAAA vs ABAB: 2 wrong)
            page.click("#p-close")
            status_row = page.locator("#status_counts tr", has_text="m2/s1")
            status_row.locator("td.drill").nth(1).click()  # correct, wrong, ... -> wrong
            page.wait_for_selector("#panel:not([hidden])")  # shown once its items are read
            assert page.inner_text("#p-count") == "2 items"
            # a discordant cell: triples right under 1# and wrong under 3# for m1, both runs
            page.click("#p-close")
            contrast = page.locator("#convre_contrasts tr", has_text="m1")
            contrast.locator("td.drill").nth(2).click()  # from, to, only_from
            page.wait_for_selector("#panel:not([hidden])")
            assert page.inner_text("#p-count") == "2 items"  # item 0 of m1/s1 and of m1/s3
            assert page.locator("#p-body tr[data-k]").nth(1).inner_text().startswith("m1/s3")
            assert errors == []
        finally:
            browser.close()
