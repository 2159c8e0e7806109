"""The viewer's pages through Starlette's test client (the real application, in process) and its
filters and pairing as properties: a damaged run is listed with why, a record without a prompt
gets it rebuilt from the data, hostile text is escaped everywhere, a filter splits the items
into the kept and the rest, two runs' pairing loses and doubles no item, and the command says
what is wrong (exit 2) with a folder that is not one or a port that is taken."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from analysis_runs import answers, mcr_description, write_run
from relreason.records import STATUSES, Record
from relreason.records.record import AltReading
from relreason.view import LOOPBACK, make_app
from relreason.view.items import Filters, facets, pair_records, readings_differ

HOSTILE = "<script>alert(1)</script>"


def _client(root: Path, data: Path | None = None) -> TestClient:
    return TestClient(make_app(root, data))


def test_pages_escape_and_list_damaged_runs(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    records = answers("ABAB", "ABBA", categories=[HOSTILE])
    records[1] = dict(records[1], output=HOSTILE, alt={"reader": "paper", "answer": "A"})
    records[1]["sent_as"] = [{"role": "user", "content": HOSTILE}]
    write_run(runs, "good", HOSTILE, mcr_description("en", "zs"), records)
    bad = write_run(runs, "bad", "m", mcr_description("en", "zs"), answers("A", "A"))
    with open(bad / "records.jsonl", "a", encoding="utf-8") as file:
        file.write('{"index": "x"}\n{"index": 1, "item_id": "1", "gold": "A"}\n')
    client = _client(runs)
    home = client.get("/")
    assert (
        home.status_code == 200 and "script-src 'self'" in home.headers["content-security-policy"]
    )
    assert "records.jsonl" in home.text and "line 2" in home.text  # why the bad run is unread
    for url in ("/", "/run?id=good", "/item?run=good&index=1", "/compare?a=good&b=good"):
        page = client.get(url)
        assert page.status_code == 200, url
        assert "<script>alert" not in page.text and "&lt;script&gt;" in page.text, url
    page = client.get("/run?id=good&differ=1")
    assert ">1 of 4 items<" in page.text  # the one record whose readings differ
    assert client.get("/run?id=nothing").status_code == 404
    assert client.get("/item?run=good&index=99").status_code == 404
    assert client.get("/run?id=good&page=x&status=bogus").status_code == 200
    assert "sent-as" in client.get("/item?run=good&index=1").text


def test_only_this_machine_is_answered(tmp_path: Path) -> None:
    write_run(tmp_path, "one", "m", mcr_description("en", "zs"), answers("A", "A"))
    app = make_app(tmp_path, hosts=LOOPBACK)
    assert TestClient(app, base_url="http://127.0.0.1:8765").get("/").status_code == 200
    assert TestClient(app, base_url="http://localhost:8765").get("/").status_code == 200
    assert TestClient(app, base_url="http://rebound.example:8765").get("/").status_code == 400


def test_prompt_rebuilt_for_old_records(tmp_path: Path, shared_data: Path) -> None:
    runs = tmp_path / "runs"
    description = {**mcr_description("en", "zs"), "params": {"language": "en", "method": "zs"}}
    write_run(runs, "old", "m", description, answers("A", "A"))  # records without a prompt
    command = [sys.executable, "-m", "relreason", "prompts", "mcr", "--language", "en"]
    command += ["--method", "zs", "--limit", "1", "--data-dir", str(shared_data)]
    printed = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    prompt = json.loads(printed.stdout.splitlines()[0])["prompt"]
    page = _client(runs, shared_data).get("/item?run=old&index=0")
    text = page.text.replace("&#39;", "'").replace("&#34;", '"').replace("&amp;", "&")
    assert prompt.strip() in text
    elsewhere = _client(runs, tmp_path / "no-data").get("/item?run=old&index=0")
    assert "prompt not rebuilt" in elsewhere.text


def test_view_command_errors(tmp_path: Path) -> None:
    def view(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "relreason", "view", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    missing = view(str(tmp_path / "nothing"))
    assert missing.returncode == 2 and "is not a folder" in missing.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        busy = view(str(tmp_path), "--port", str(taken.getsockname()[1]))
    assert busy.returncode == 2 and "cannot listen" in busy.stderr
    assert "Traceback" not in missing.stderr + busy.stderr


_STATUS = st.sampled_from(STATUSES)
_RECORDS = st.lists(
    st.builds(
        lambda index, status, answer, alt, relation: Record(
            index=index,
            item_id=f"i{index}",
            gold="A",
            answer=answer,
            status=status,
            alt=alt,
            labels={"relation": relation, "categories": [relation, "x"]},
        ),
        st.integers(0, 50),
        _STATUS,
        st.sampled_from([None, "A", "B"]),
        st.none() | st.builds(AltReading, answer=st.sampled_from(["A", "B"]), status=_STATUS),
        st.sampled_from(["r1", "r2", "<r3>"]),
    ),
    max_size=30,
    unique_by=lambda r: r.item_id,
)


@given(_RECORDS, st.sampled_from(["status", "correct", "differ", "relation"]))
def test_a_filter_splits_the_items(records: list[Record], name: str) -> None:
    values = {"status": list(STATUSES), "correct": ["1", "0"], "differ": ["1", "0"]}
    names = facets(records)
    choices = values.get(name) or names.get("relation", [])
    key = "label_relation" if name == "relation" else name
    kept = [
        sum(Filters.from_query({key: value}, names).keep(r) for r in records) for value in choices
    ]
    if choices:
        assert sum(kept) == len(records)  # every item in exactly one value's share
    assert sum(Filters.from_query({}, names).keep(r) for r in records) == len(records)
    assert sum(map(readings_differ, records)) <= sum(r.alt is not None for r in records)


@given(_RECORDS, _RECORDS)
def test_pairing_keeps_every_item_once(a: list[Record], b: list[Record]) -> None:
    pairs = pair_records(a, b)
    assert sorted(p.key for p in pairs) == sorted({r.item_id for r in a} | {r.item_id for r in b})
    assert [p.a for p in pairs if p.a is not None] == a  # in the first run's order
    assert sorted(p.b.index for p in pairs if p.b is not None) == sorted(r.index for r in b)
    assert all(p.differ for p in pairs if p.a is None or p.b is None)


@pytest.mark.parametrize("value", ["<b>", "x" * 3])
def test_facets_leave_out_labels_with_one_value_per_item(value: str) -> None:
    records = [
        Record(index=i, item_id=str(i), gold="A", labels={"head": f"{value}{i}", "l": 1})
        for i in range(3)
    ]
    assert facets(records) == {"l": ["1"]}


def test_the_html_report_names_the_viewer(tmp_path: Path) -> None:
    from relreason.report import render_html

    runs = tmp_path / "my runs"
    write_run(runs, "one", "m", mcr_description("en", "zs"), answers("AB", "AA"))
    page = render_html(runs, tmp_path / "report.html", texts=False).read_text("utf-8")
    assert f"relreason view &#x27;{runs}&#x27;" in page  # the folder quoted for a shell
