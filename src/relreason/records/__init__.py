"""Run folders and what they hold: typed records and manifests, crash-safe record files, and
summaries. Public face: ``Record``, ``make_record``, ``Manifest``, ``FORMAT_VERSION``,
``load_records`` (the JSON objects), ``load_typed_records``, ``read_manifest``,
``load_manifest``, ``RecordWriter``, ``summarize``, ``RunSummary``, ``format_summary``."""

from relreason.records.folder import (
    MANIFEST,
    RECORDS,
    SUMMARY,
    RecordWriter,
    comparable,
    is_run_folder,
    load_manifest,
    load_records,
    load_typed_records,
    read_manifest,
    record_line,
    write_sorted_records,
)
from relreason.records.manifest import Manifest, utc_now
from relreason.records.record import (
    FORMAT_VERSION,
    RECORD_FIELDS,
    VOLATILE_RECORD_FIELDS,
    Record,
    make_record,
)
from relreason.records.summary import (
    STATUSES,
    RunSummary,
    format_summary,
    summarize,
    wilson_interval,
)

__all__ = [
    "FORMAT_VERSION",
    "MANIFEST",
    "RECORDS",
    "RECORD_FIELDS",
    "STATUSES",
    "SUMMARY",
    "VOLATILE_RECORD_FIELDS",
    "Manifest",
    "Record",
    "RecordWriter",
    "RunSummary",
    "comparable",
    "format_summary",
    "is_run_folder",
    "load_manifest",
    "load_records",
    "load_typed_records",
    "make_record",
    "read_manifest",
    "record_line",
    "summarize",
    "utc_now",
    "wilson_interval",
    "write_sorted_records",
]
