"""Measure the HTML report on a large folder: 50 runs of ~1,600 items (MCR, 5 languages x 5
methods x 2 baselines; no model needed), optionally with every output padded to N characters to
stand in for real models' longer outputs. Reports the time to load, analyse and render, the file
size, and in headless Chromium the time to load the page and to open drill-downs.

    python perf/bench_report_html.py --data-dir ../shared/data [--pad 600] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync"]  # fmt: skip
SWEEP = """out: {out}
models: [random, first]
runs:
  - {{benchmark: mcr, language: [en, zh, fr, ja, ko],
     method: [zs, fs, zsc, fs-english, fs-multilingual]}}
options: {{scoring: generate}}
"""


def make_runs(folder: Path, data_dir: Path, pad: int) -> None:
    """Run the 50-run sweep into ``folder`` and pad every output to ``pad`` characters."""
    from relreason.run.sweep import run_sweep

    sweep = folder.parent / "sweep.yaml"
    sweep.write_text(SWEEP.format(out=folder), "utf-8")
    run_sweep(sweep, data_dir=data_dir, show_progress=False)
    if pad:  # text-like filler: words of the English questions, a different draw per item
        questions = json.loads((data_dir / "mcr" / "composition_english.json").read_text("utf-8"))
        words = sorted({w for q in questions for w in q["question"].split()})
        draw = random.Random(0)
        for records in sorted(folder.rglob("records.jsonl")):
            lines = [json.loads(line) for line in records.read_text("utf-8").splitlines()]
            for record in lines:
                filler = " ".join(draw.choice(words) for _ in range(pad // 5))[:pad]
                record["output"] = filler + " " + str(record["output"])
            records.write_text("".join(json.dumps(r) + "\n" for r in lines), "utf-8")


def browser(page_file: Path, chromium: str) -> dict[str, float]:
    """Open the page in headless Chromium; return load and drill-down timings (seconds)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chrome = playwright.chromium.launch(executable_path=chromium, args=ARGS)
        page = chrome.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        start = time.perf_counter()
        page.goto(page_file.as_uri(), wait_until="load")
        page.wait_for_selector("body[data-ready='1']")
        loaded = time.perf_counter() - start
        nav = page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd")
        out = {"load_s": loaded, "load_event_ms": nav}
        row = page.locator("#mcr_table4 tbody tr").first
        for name, cell in (("drill_one_run_s", 1), ("drill_avg_5_runs_s", 0)):  # EN, AVG
            page.evaluate("() => { document.getElementById('panel').hidden = true; }")
            start = time.perf_counter()
            row.locator("td.drill").nth(cell).click()
            page.wait_for_selector("#panel:not([hidden])")
            out[name] = time.perf_counter() - start
            out[name.replace("_s", "_items")] = float(page.inner_text("#p-count").split()[0])
        start = time.perf_counter()
        page.select_option("#f-correct", "0")
        out["filter_s"] = time.perf_counter() - start
        heap = "() => performance.memory ? performance.memory.usedJSHeapSize / 1e6 : -1"
        out["memory_mb"] = page.evaluate(heap)
        chrome.close()
        if errors:
            raise SystemExit(f"page errors: {errors}")
        return out


def main() -> None:
    """Build the folder, the report, and print the measurements as JSON."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--pad", type=int, default=0, help="pad outputs to N characters")
    parser.add_argument("--keep", type=Path, help="make the runs here (reused when present)")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    from relreason.analysis import load_runs
    from relreason.report import build_report, render_html

    base = args.keep or Path(tempfile.mkdtemp(prefix="relreason-bench-"))
    folder = base / "runs"
    if not folder.exists():
        base.mkdir(parents=True, exist_ok=True)
        make_runs(folder, args.data_dir, args.pad)
    timings: dict[str, float] = {}
    start = time.perf_counter()
    runs = load_runs(folder)
    timings["load_runs_s"] = time.perf_counter() - start
    start = time.perf_counter()
    report = build_report(runs, data_dir=args.data_dir)
    timings["build_report_s"] = time.perf_counter() - start
    start = time.perf_counter()
    page = render_html(report, base / "report.html")
    timings["render_html_s"] = time.perf_counter() - start
    mean_output = float(runs.items["output"].fillna("").str.len().mean())
    result = {"runs": len(runs.runs), "items": len(runs.items), "mean_output_chars": mean_output,
              "html_bytes": page.stat().st_size, **timings,
              **browser(page, args.chromium)}  # fmt: skip
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
