"""Property tests of reading one record line: any JSON value in any field gives either a typed
record or a ``DataError`` naming the file, line and field (never another exception), and the
one-pass reading of a line (``record_from_line``) agrees with the slower one whenever it gives a
record."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from relreason.errors import DataError
from relreason.records.record import RECORD_FIELDS, Record, check_record, record_from_line

BASE = Record(index=4, item_id="x/4", gold="A", answer="B", status="wrong", labels={"k": [1]})

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(field=st.sampled_from((*RECORD_FIELDS, "unknown")), value=json_values, drop=st.booleans())
def test_any_value_in_any_field_is_read_or_refused_by_name(
    field: str, value: Any, drop: bool
) -> None:
    data = BASE.to_json()
    if drop:
        data.pop(field, None)
    else:
        data[field] = value
    try:
        record = check_record(data, "records.jsonl", 7)
    except DataError as error:
        assert "records.jsonl, item line 7" in str(error)
        assert error.field is not None and error.field.split(".")[0] in RECORD_FIELDS
        return
    assert isinstance(record, Record)
    line = json.dumps(data).encode()
    fast = record_from_line(line)
    if fast is not None:
        assert fast == Record.from_json(json.loads(line))
