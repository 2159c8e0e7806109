"""Adding a benchmark is one package and one registry line: a tiny benchmark defined here,
registered at run time, goes through ``prompts``, ``run --model oracle``, ``score``,
``--resume``, a sweep and ``report`` without any change to relreason; the report section it
declares is in the terminal, markdown and HTML reports, its drill-down included."""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import pytest
from pydantic import Field

from relreason import benchmarks
from relreason.analysis import Drill, NotPossible, ReportInput, ReportSection, Table
from relreason.benchmarks.base import Benchmark, BenchmarkParams
from relreason.cli import main
from relreason.types import EvalItem, Extraction, Response, Task


class TinyParams(BenchmarkParams):
    """How many sums to ask: the one declaration of ``--n`` (and of a sweep's ``n``)."""

    n: Annotated[int, Field(ge=1, description="Number of questions.")] = 3


def _read(item: EvalItem, response: Response) -> Extraction:
    text = (response.text or "").strip()
    if not text:
        return Extraction(None, "no_answer", "none")
    letter = text[0]
    if letter not in item.choices:
        return Extraction(None, "unparseable", "none")
    return Extraction(letter, "correct" if letter == item.gold else "wrong", "first_letter")


def _by_parity(given: ReportInput) -> Table:
    """One row per tiny run and parity: how many items, how many right (drill: those items)."""
    part = given.runs.of("tiny")
    if part.runs.empty:
        raise NotPossible("no tiny run in the folder")
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    for run_id in part.runs["run_id"]:
        mine = part.items_of(run_id)
        for parity, group in mine.groupby("label_parity", sort=True):
            drill[(len(rows), "right")] = Drill((run_id,), (("label_parity", parity),))
            rows.append(
                {
                    "run": run_id,
                    "parity": parity,
                    "n": len(group),
                    "right": int(group["correct"].sum()),
                }
            )
    return Table("tiny_parity", "Tiny: right answers by parity", pd.DataFrame(rows), drill=drill)


class Tiny(Benchmark[TinyParams]):
    """Sums with two options: 'What is i + i?' A) 2i B) 2i + 1."""

    name = "tiny"
    title = "tiny: sums (a test benchmark)"
    params_model = TinyParams
    drill_label = "parity"

    def build_task(self, params: TinyParams, data_dir: Path | None = None) -> Task:
        assert isinstance(params, TinyParams)
        items = tuple(
            EvalItem(
                index=i,
                item_id=f"sum/{i}",
                prompt=f"What is {i} + {i}? A) {2 * i} B) {2 * i + 1}\nAnswer:",
                gold="A" if i % 2 == 0 else "B",
                choices=("A", "B"),
                choice_texts=(str(2 * i), str(2 * i + 1)),
                labels={"parity": "even" if i % 2 == 0 else "odd"},
            )
            for i in range(params.n)
        )
        return Task(
            benchmark="tiny",
            name=f"tiny/n{params.n}",
            description={"benchmark": "tiny", "n": params.n},
            items=items,
            scorer=_read,
            group_by=("parity",),
            max_new_tokens=4,
        )

    def grid(self) -> dict[str, list[Any]]:
        return {"n": [2]}

    def run_name(self, params: TinyParams) -> str:
        assert isinstance(params, TinyParams)
        return f"tiny-n{params.n}"

    def report_sections(self) -> Sequence[ReportSection]:
        return (ReportSection("Tiny parity", _by_parity),)


def cli(args: list[str]) -> None:
    """Run ``relreason ARGS``; fail the test unless it exits 0."""
    try:
        main(args)
    except SystemExit as done:
        assert not done.code, f"relreason {' '.join(args)} exited {done.code}"


@pytest.fixture()
def tiny() -> Iterator[Tiny]:
    benchmark = Tiny()
    benchmarks.register(benchmark)
    yield benchmark
    benchmarks.unregister("tiny")


def test_tiny_benchmark_end_to_end(
    tiny: Tiny, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(["prompts", "tiny", "--n", "4"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["gold"] for r in rows] == ["A", "B", "A", "B"]
    assert rows[3]["prompt"].startswith("What is 3 + 3?")

    out = tmp_path / "run"
    cli(["run", "tiny", "--n", "4", "--model", "oracle", "--out", str(out), "--no-progress"])
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["correct"] * 4
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accuracy"] == 1.0 and set(summary["by_label"]["parity"]) == {"even", "odd"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format_version"] == 2 and manifest["description"] == {
        "benchmark": "tiny",
        "n": 4,
        "params": {"n": 4},  # every parameter, read back by --resume
    }

    (out / "records.jsonl").write_text(
        "".join(x + "\n" for x in (out / "records.jsonl").read_text().splitlines()[:2])
    )
    cli(["run", "--resume", str(out)])
    assert len((out / "records.jsonl").read_text().splitlines()) == 4

    responses = tmp_path / "responses.jsonl"
    responses.write_text('{"index": 0, "output": "A"}\n{"index": 1, "output": "A"}\n')
    scored = tmp_path / "scored.jsonl"
    cli(["score", "tiny", "--n", "4", "--responses", str(responses), "--out", str(scored)])
    statuses = [json.loads(x)["status"] for x in scored.read_text().splitlines()]
    assert statuses == ["correct", "wrong"]

    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        f"out: {tmp_path / 'sweep'}\nmodels: [oracle, first]\n"
        "runs:\n  - {benchmark: tiny, n: [2, 3]}\n"
    )
    cli(["sweep", str(sweep), "--no-progress"])
    folders = sorted(
        p.parent.relative_to(tmp_path / "sweep")
        for p in (tmp_path / "sweep").rglob("manifest.json")
    )
    assert [str(f) for f in folders] == [
        "first/tiny-n2",
        "first/tiny-n3",
        "oracle/tiny-n2",
        "oracle/tiny-n3",
    ]
    capsys.readouterr()
    cli(["report", str(tmp_path / "sweep"), "--json"])
    report = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    first = {r["folder"].rsplit("/", 1)[-1]: r["accuracy"] for r in report if r["model"] == "first"}
    assert first == {"tiny-n2": 0.5, "tiny-n3": pytest.approx(2 / 3)}

    # The section the tiny benchmark declares, in every form of the report.
    cli(["report", str(tmp_path / "sweep"), "--format", "markdown"])
    markdown = capsys.readouterr().out
    table = markdown[markdown.index("### Tiny: right answers by parity") :].split("\n\n")[1]
    assert "| first/tiny-n3 | even | 2 | 2 |" in table  # first answers A: right on even sums
    assert "| oracle/tiny-n3 | odd | 1 | 1 |" in table
    assert "ConvRe Table 9: not possible (no ConvRe run in the folder)" in markdown
    cli(["report", str(tmp_path / "sweep")])
    assert "Tiny: right answers by parity" in capsys.readouterr().out
    page = tmp_path / "report.html"
    cli(["report", str(tmp_path / "sweep"), "--html", str(page)])
    text = page.read_text("utf-8")
    assert '<section id="tiny_parity"><h2>Tiny: right answers by parity</h2>' in text
    drills = re.search(r'<script type="application/json" id="drills">(.*?)</script>', text)
    assert drills and {"runs": ["first/tiny-n2"], "where": {"label_parity": "odd"}} in json.loads(
        drills[1]
    )
    packed = re.search(r'id="run-0">(.*?)</script>', text)  # the items of first/tiny-n2
    assert packed
    payload = json.loads(gzip.decompress(base64.b64decode(packed[1])))
    assert payload["label"] == "label_parity" and "label_parity" in payload["cols"]


def test_unknown_benchmark_lists_the_registered_ones(tiny: Tiny) -> None:
    with pytest.raises(Exception, match="convre, mcr, compose, tiny"):
        benchmarks.get("glue")
