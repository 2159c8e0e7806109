"""The HTML page's embedded items, decoded as the page's script does (base64, gzip, JSON):
every prompt comes back whole from its run's common prefix/suffix and the shared text pool."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path

from analysis_runs import answers, convre_description, write_run
from relreason.report import render_html


def _block(page: str, element_id: str) -> object:
    found = re.search(rf'<script [^>]*id="{element_id}">(.*?)</script>', page, flags=re.S)
    assert found is not None
    return json.loads(gzip.decompress(base64.b64decode(found.group(1))))


def test_prompts_round_trip_and_are_stored_once(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    questions = ["Q: (x, hypernym, cat)?", "Q: (y, hypernym, dog)?", "Q: (z, part of, </script>)?"]
    for model in ("m1", "m2"):
        records = [
            dict(r, prompt=f"Instruction.\n{questions[r['index']]}\nAnswer:", output="x" * 5000)
            for r in answers("ABA", "AAA", relation="hypernym")
        ]
        write_run(runs, model, model, convre_description("re2text", 1), records)
    page = render_html(runs, tmp_path / "r.html", texts=False).read_text("utf-8")
    index = json.loads(re.search(r'id="runs-index">(.*?)</script>', page).group(1))
    pool = _block(page, "texts")
    middles = ["x, hypernym, cat", "y, hypernym, dog", "z, part of, </script>"]
    assert sorted(pool) == middles  # what differs between items, once for both runs
    data = _block(page, f"run-{index['m2']}")
    assert (data["prefix"], data["suffix"]) == ("Instruction.\nQ: (", ")?\nAnswer:")
    column = data["cols"].index("prompt")
    rebuilt = [data["prefix"] + pool[row[column]] + data["suffix"] for row in data["rows"]]
    assert rebuilt == [f"Instruction.\n{q}\nAnswer:" for q in questions]
    output = data["rows"][0][data["cols"].index("output")]
    assert output.startswith("x" * 4000) and output.endswith("[cut: 1000 more characters]")
