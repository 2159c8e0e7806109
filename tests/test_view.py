"""``relreason view`` in a real headless Chromium (Debian's ``chromium``, driven by Playwright):
the viewer runs as a real ``relreason view`` child process on a free 127.0.0.1 port over real
runs (baseline models, which need no weights, on the official data), and the test browses it:
the runs table, a run's items filtered, one item, two runs side by side; a record appended to a
run's ``records.jsonl`` shows up on reload, and an output holding ``<script>`` is shown as text.
The expected counts are read from the runs' own records, never written down here. Skips only
when Chromium is absent; CI installs it (``apt-get install chromium``)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from clihelp import free_port
from test_report_html import ARGS, CHROMIUM

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason=f"no Chromium at {CHROMIUM}")

RUNS = {
    "mcr-random": ["mcr", "--language", "en", "--method", "zs", "--model", "random"],
    "mcr-first": ["mcr", "--language", "en", "--method", "zs", "--model", "first"],
    "compose-random": ["compose", "--model", "random"],
}


def _records(folder: Path) -> list[dict]:
    lines = (folder / "records.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture(scope="module")
def runs(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("view") / "runs"
    env = {**os.environ, "RELREASON_CACHE_DIR": str(root.parent / "cache")}
    for name, args in RUNS.items():
        command = [sys.executable, "-m", "relreason", "run", *args, "--limit", "12"]
        command += ["--no-progress", "--data-dir", str(shared_data), "--out", str(root / name)]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
    return root


@pytest.fixture()
def viewer(runs: Path) -> Iterator[str]:
    """``relreason view`` as a child process; its address; stopped (and waited for) after."""
    port = free_port()
    command = [sys.executable, "-m", "relreason", "view", str(runs), "--port", str(port)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert child.poll() is None, child.communicate()[0].decode()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the viewer did not start in 120 s"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        child.terminate()
        try:
            child.wait(30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(10)
        if child.stdout is not None:
            child.stdout.close()


def _count(page: Page) -> str:
    return page.inner_text("#count")


def test_view_in_chromium(runs: Path, viewer: str) -> None:
    records = _records(runs / "mcr-random")
    first = _records(runs / "mcr-first")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on(
                "request",
                lambda r: None if r.url.startswith(viewer) else errors.append(f"request {r.url}"),
            )
            # the runs table: one row per run, with its accuracy over the records
            page.goto(viewer + "/")
            rows = page.locator("#runs tbody tr")
            assert rows.count() == len(RUNS)
            row = page.locator("#runs tr[data-run='mcr-random']")
            right = sum(r["status"] == "correct" for r in records)
            assert f"{right / len(records):.3f}" in row.inner_text()
            assert "complete" in row.inner_text()

            # the item browser: filters apply as they are chosen
            row.locator("a").click()
            page.wait_for_selector("body[data-ready='1']")
            assert _count(page) == f"{len(records)} of {len(records)} items"
            with page.expect_navigation():
                page.select_option("#f-correct", "0")
            wrong = [r for r in records if r["status"] != "correct"]
            assert _count(page) == f"{len(wrong)} of {len(records)} items"
            category = wrong[0]["labels"]["categories"][0]
            with page.expect_navigation():
                page.select_option("#f-label-categories", category)
            kept = [r for r in wrong if category in r["labels"]["categories"]]
            assert _count(page) == f"{len(kept)} of {len(records)} items"

            # one item: its prompt, output and both readings
            page.locator("#items tbody tr a").first.click()
            page.wait_for_selector("#prompt")
            item = kept[0]
            assert page.inner_text("#prompt").strip() == item["prompt"].strip()
            assert page.inner_text("#output") == item["output"]
            readings = page.inner_text("#readings")
            assert item["reader"] in readings and item["alt"]["reader"] in readings
            # next: the next item the filters keep
            if len(kept) > 1:
                page.click("#next")
                page.wait_for_selector("#prompt")
                assert page.inner_text("h1").startswith(f"Item {kept[1]['index']} ")
            assert page.locator("#next").count() == 0 or len(kept) > 2

            # two runs side by side, where they differ
            page.goto(viewer + "/")
            page.select_option("#compare select[name='a']", "mcr-random")
            page.select_option("#compare select[name='b']", "mcr-first")
            page.click("#compare button")
            page.wait_for_selector("#pairs")
            by_id = {r["item_id"]: r for r in first}
            differ = [
                r
                for r in records
                if (r["answer"], r["status"])
                != (by_id[r["item_id"]]["answer"], by_id[r["item_id"]]["status"])
            ]
            assert page.locator("#pairs tbody tr").count() == len(differ)
            assert _count(page) == f"{len(differ)} items"

            # a run in progress: a record appended shows up on reload; its output is text
            hostile = "<script>window.pwned = 1</script><b>B</b>"
            added = dict(records[0], index=len(records), item_id="en/appended", output=hostile)
            added["answer"], added["status"] = "B", "unparseable"
            with open(runs / "mcr-random" / "records.jsonl", "a", encoding="utf-8") as file:
                file.write(json.dumps(added) + "\n")
            page.goto(viewer + "/run?id=mcr-random&differ=1")
            assert _count(page).endswith(f"of {len(records) + 1} items")
            page.locator("#items tr[data-index] a").last.click()
            page.wait_for_selector("#output")
            assert page.inner_text("#output") == hostile
            assert page.evaluate("window.pwned") is None
            assert page.locator("#output b").count() == 0
            assert not errors, errors
        finally:
            browser.close()
