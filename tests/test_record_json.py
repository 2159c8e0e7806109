"""A record's JSON object reads back as the same typed value, whichever version wrote it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from relreason.records import RECORD_FIELDS, Record
from relreason.records.record import AltReading

text = st.none() | st.text(max_size=20)
records = st.builds(
    Record,
    index=st.integers(0, 10**6),
    item_id=st.text(max_size=10),
    gold=st.sampled_from(["A", "B", "C"]),
    answer=text,
    status=st.sampled_from(["correct", "wrong", "unparseable", "no_answer", "failed"]),
    correct=st.booleans(),
    output=text,
    usage=st.fixed_dictionaries(
        {"prompt_tokens": st.integers(0, 999), "completion_tokens": st.integers(0, 99)}
    ),
    latency_s=st.floats(0, 100),
    labels=st.dictionaries(st.sampled_from(["relation", "order"]), st.text(max_size=5)),
    alt=st.none() | st.builds(AltReading, reader=text, answer=text, status=st.just("wrong")),
)


@given(records)
def test_a_record_reads_back_as_itself(record: Record) -> None:
    data = record.to_json()
    assert list(data) == list(RECORD_FIELDS)
    again = Record.from_json(data)
    assert again == record and again.to_json() == data


@given(records, st.sets(st.sampled_from(RECORD_FIELDS[3:])))
def test_a_record_without_later_fields_takes_their_defaults(
    record: Record, missing: set[str]
) -> None:
    data = {k: v for k, v in record.to_json().items() if k not in missing}
    again = Record.from_json(data)
    defaults = Record(record.index, record.item_id, record.gold)
    for name in RECORD_FIELDS:
        expected = getattr(defaults if name in missing else record, name)
        assert getattr(again, name) == expected, name
