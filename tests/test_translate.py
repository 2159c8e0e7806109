"""``relreason translate`` against a SCRIPTED local backend: a real HTTP server on 127.0.0.1
speaking the OpenAI chat API (tests/servers/fault_server.py, no faults) whose replies are canned
here, one per source question: good translations, and replies that break each check. The
translations are therefore not a model's; the test checks the plumbing and the checks."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.cli import main
from relreason.generate import ComposeOptions, compose, write_items
from relreason.translate.prompt import build_prompt, read_reply
from servers.fault_server import FaultServer


def _source(tmp_path: Path) -> tuple[Path, list[dict]]:
    items = compose(ComposeOptions(language="en", hops=(2,), n_options=4, seed=11, count=6))
    return write_items(items, tmp_path / "en.json"), items


def _script(items: list[dict]) -> dict[str, str]:
    """Source question -> the canned reply (cases 1, 2, 3, 5 must be flagged)."""
    replies: dict[str, str] = {}
    for i, item in enumerate(items):
        fr = {
            k: f"option {k} en français ({o})" for k, o in zip("ABCD", item["options"], strict=True)
        }
        good = {"question": f"[fr] {item['question']}", "options": fr}
        if i == 1:
            good["options"] = dict(list(fr.items())[:3])
        if i == 2:
            good["options"] = {k: "Même chose" for k in fr}
        reply = json.dumps(good, ensure_ascii=False)
        if i == 3:
            reply = "Désolé, je ne peux pas."
        if i == 4:
            reply = "Voici la traduction :\n```json\n" + reply + "\n```"
        if i == 5:
            reply = json.dumps({"question": item["question"], "options": fr})
        replies[item["question"].strip()] = reply
    return replies


def _reply_for(replies: dict[str, str]):  # type: ignore[no-untyped-def]
    def reply(prompt: str) -> str:
        found = re.search(r"\nQuestion: (.*)\nOptions:\n", prompt)
        return replies[found.group(1)] if found else "no question found"

    return reply


def test_translate_with_a_scripted_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, items = _source(tmp_path)
    out = tmp_path / "fr" / "compose_fr.json"
    with FaultServer(fault_rate=0.0, reply=_reply_for(_script(items))) as server:
        args = ["translate", str(source), "--to", "fr", "--out", str(out)]
        args += ["--model", "openai:scripted", "--base-url", server.url]
        try:
            main(args)
        except SystemExit as done:
            assert not done.code
    written = json.loads(out.read_text("utf-8"))
    assert [w["id"] for w in written] == [items[0]["id"], items[4]["id"]]
    for w in written:
        source_item = next(i for i in items if i["id"] == w["id"])
        gold = source_item["options"].index(source_item["correct"])
        assert w["options"].index(w["correct"]) == gold and len(w["options"]) == 4
        assert w["correct"].endswith(f"({source_item['correct']})")
        assert w["language"] == "fr" and w["premises"] == source_item["premises"]
    flagged_file = tmp_path / "fr" / "compose_fr.json.flagged.jsonl"
    flagged = [json.loads(x) for x in flagged_file.read_text().splitlines()]
    reasons = {row["index"]: " ".join(row["flags"]) for row in flagged}
    assert set(reasons) == {1, 2, 3, 5}
    assert "option count" in reasons[1] and "not distinct" in reasons[2]
    assert "no JSON" in reasons[3] and "untranslated" in reasons[5]
    meta = json.loads((tmp_path / "fr" / "compose_fr.json.meta.json").read_text())
    assert meta["model"]["spec"] == "openai:scripted" and "{target}" in meta["prompt_template"]
    assert (meta["n_items"], meta["written"], meta["flagged"]) == (6, 2, 4)
    assert "2/6 item(s) translated" in capsys.readouterr().out

    run = tmp_path / "run"
    main_args = ["run", "compose", "--file", str(out), "--model", "oracle", "--out", str(run)]
    try:
        main([*main_args, "--no-progress"])
    except SystemExit as done:
        assert not done.code
    assert json.loads((run / "summary.json").read_text())["n"] == 2


def test_the_prompt_names_the_languages_and_every_option() -> None:
    prompt = build_prompt(" Who? ", ["a", "b", "c"], "en", "ja")
    assert "from English into Japanese" in prompt and "\nA) a\nB) b\nC) c\n" in prompt
    assert '"C": "..."' in prompt and "Question: Who?\n" in prompt


@given(st.text(max_size=200))
def test_any_reply_is_read_without_raising(reply: str) -> None:
    reading = read_reply(reply, "q", ["x", "y"], same_language=False)
    assert reading.flags or (reading.options is not None and len(reading.options) == 2)


@given(st.lists(st.text(min_size=1, max_size=12).filter(str.strip), min_size=2, max_size=6))
def test_a_list_reply_keeps_count_and_distinctness(options: list[str]) -> None:
    reply = json.dumps({"question": "traduit", "options": options})
    reading = read_reply(reply, "q", ["o"] * len(options), same_language=False)
    keys = {" ".join(unicodedata.normalize("NFKC", o).casefold().split()) for o in options}
    if len(keys) == len(options) and all(o.strip() == o for o in options):
        assert reading.flags == () and reading.options == tuple(options)
    cut = json.dumps({"question": "t", "options": options[:-1]})
    short = read_reply(cut, "q", options, same_language=False)
    assert any("count" in flag for flag in short.flags)
