"""load_runs: one row per run and per record, tolerant of missing fields."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis_runs import answers, convre_description, mcr_description, record, write_run
from relreason.analysis import load_runs
from relreason.analysis.load import official_reading, size_from_spec
from relreason.errors import UsageError
from relreason.records import Record
from relreason.records.record import AltReading


def test_runs_and_items_frames(tmp_path: Path) -> None:
    write_run(
        tmp_path,
        "a",
        "hf:org/Model-135M",
        convre_description("re2text", 3),
        answers("AB", "AA", relation="hypernym"),
    )
    write_run(
        tmp_path,
        "b",
        "random",
        mcr_description("en", "zs"),
        [record(0, "A", "B", categories=["Personal", "Identity"], n_options=4)],
        limit=1,
        n_items=1,
    )
    runs = load_runs(tmp_path)
    assert list(runs.runs["run_id"]) == ["a", "b"]
    a, b = runs.runs.iloc[0], runs.runs.iloc[1]
    assert (a["benchmark"], a["task"], a["setting"], a["relation"]) == (
        "convre",
        "re2text",
        3,
        "converse",
    )
    assert a["size"] == pytest.approx(135e6)
    assert not a["partial"] and b["partial"]  # b ran with a limit
    assert (b["language"], b["method"]) == ("en", "zs")
    assert list(runs.items["correct"]) == [True, False, False]
    assert runs.items.loc[2, "label_categories"] == ["Personal", "Identity"]
    assert runs.items["answer_official"].isna().all()
    joined = runs.items_with_runs()
    assert list(joined["model"]) == ["hf:org/Model-135M"] * 2 + ["random"]


def test_official_reading_is_the_second_reading() -> None:
    wrong = Record(0, "q", "A", alt=AltReading("official", "B", "wrong"))
    assert official_reading(wrong) == {
        "answer_official": "B",
        "status_official": "wrong",
        "correct_official": False,
        "reader_official": "official",
    }
    right = Record(0, "q", "A", alt=AltReading(answer="A", status="correct"))
    assert official_reading(right)["correct_official"] is True
    assert official_reading(Record(0, "q", "A"))["status_official"] is None


@pytest.mark.parametrize(
    ("spec", "size"),
    [
        ("hf:Qwen2.5-0.5B", 0.5e9),
        ("smollm2-135M", 135e6),
        ("openai:gpt-4", None),
        ("llama-2-13b-chat", 13e9),
    ],
)
def test_size_from_spec(spec: str, size: float | None) -> None:
    assert size_from_spec(spec) == (pytest.approx(size) if size else None)


def test_not_a_runs_folder(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no run folder"):
        load_runs(tmp_path)
    with pytest.raises(UsageError, match="not a folder"):
        load_runs(tmp_path / "missing")
