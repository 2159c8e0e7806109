"""Write the report as ONE self-contained HTML file: styles, script, figures (inline SVG) and the
items (compact JSON, parsed by the inline script only when a drill-down opens) all in the page.

Each run's items are one gzip-compressed, base64-encoded JSON block (decompressed by the
browser's ``DecompressionStream`` when a drill-down needs it): column names once, then
one array per item; the prompt text common to all of a run's items (start and end) is stored
once, and the rest of each prompt once per page. Outputs longer than ``MAX_OUTPUT`` characters
are cut (the cut is said in the text). The blocks are kept in the report cache
(``<cache root>/report-html/``, one entry per folder of runs) and reused while their key holds
(:func:`_blocks_key`: the runs' folder stamps, the texts not read from the folders, the
version, the code); a page made from them is the fresh page byte for byte.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import html
import json
import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from relreason import benchmarks
from relreason.analysis import table as table_module
from relreason.analysis.item_columns import ITEM_FIELDS
from relreason.analysis.load import Runs
from relreason.analysis.table import Table, cell_text, plain_deep
from relreason.benchmarks.mcr import relations as relations_module
from relreason.benchmarks.mcr.relations import count_relations
from relreason.errors import UsageError
from relreason.files import atomic_write_bytes, atomic_write_text
from relreason.paths import cache_root
from relreason.report.html_assets import SCRIPT, STYLE
from relreason.report.report import Report, build_report
from relreason.version import __version__

MAX_OUTPUT = 4000
_ITEM_COLUMNS = (
    *ITEM_FIELDS[: ITEM_FIELDS.index("error") + 1],
    *("answer_official", "status_official", "answer_sound"),
)
"""The items frame's columns a drill-down shows."""
_READ = {"run_id", *ITEM_FIELDS}
"""The items frame's columns read from the run folders (with the ``label_`` ones)."""
_BLOCKS_VERSION = 1


def _json_script(element_id: str, data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("</", "<\\/").replace("<!--", "<\\!--")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def _gzip_script(element_id: str, data: Any) -> str:
    """Embed ``data`` as gzip-compressed JSON in base64 (decompressed in the page by the
    browser's own ``DecompressionStream``, on demand). Level 3: 3% larger than level 6 on
    perf/bench_report_ratio.py's runs, in less than half its time."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    packed = base64.b64encode(gzip.compress(raw, compresslevel=3, mtime=0)).decode("ascii")
    return (
        f'<script type="application/octet-stream" data-z="gzip" id="{element_id}">{packed}</script>'
    )


_SIMPLE = {str, int, bool, type(None)}


def _column(items: pd.DataFrame, name: str) -> list[Any]:
    """One column as plain JSON-ready values (NaN and missing as None)."""
    if name not in items:
        return [None] * len(items)
    values: list[Any] = items[name].tolist()
    if items[name].dtype.kind in "fc":
        return [None if v != v else v for v in values]
    if items[name].dtype == object:
        return [v if type(v) in _SIMPLE else _plain_list(v) for v in values]
    return values


def _plain_list(value: Any) -> Any:
    """``plain_deep``, with a quick way for the commonest case: a list of texts (a label)."""
    if type(value) is list and all(type(v) in _SIMPLE for v in value):
        return value
    return plain_deep(value)


def _cut(text: Any) -> Any:
    if isinstance(text, str) and len(text) > MAX_OUTPUT:
        return text[:MAX_OUTPUT] + f"... [cut: {len(text) - MAX_OUTPUT} more characters]"
    return text


def _common_affixes(texts: list[str]) -> tuple[str, str]:
    if not texts:
        return "", ""
    prefix = os.path.commonprefix(texts)  # noqa: RUF071 - characters are what we want
    rests = [t[len(prefix) :] for t in texts]
    suffix = os.path.commonprefix([r[::-1] for r in rests])[::-1]  # noqa: RUF071
    return prefix, suffix


def run_payload(
    items: pd.DataFrame,
    pool: dict[str, int],
    label: str | None = None,
    extra: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Return one run's items as the compact JSON the page embeds: ``cols``, ``rows``, the
    ``prefix`` and ``suffix`` common to every prompt, and ``label`` (the column the drill-down
    panel filters on, e.g. ``label_relation``; None when ``items`` lacks it). ``extra`` names
    the other columns the drill-downs select on (``n_relations`` is counted from the
    ``question`` column). The rest of each prompt is a number into ``pool`` (text -> number,
    shared by all runs, so a question is stored once)."""
    label = label if label in items else None
    wanted = [*([label] if label else []), *extra]
    shown = [c for c in dict.fromkeys(wanted) if c in items and c not in _ITEM_COLUMNS]
    shown = [c for c in shown if c != "n_relations"]
    prompts = [p for p in items.get("prompt_text", pd.Series(dtype=object)) if isinstance(p, str)]
    prefix, suffix = _common_affixes(prompts) if len(prompts) == len(items) else ("", "")
    cut = len(suffix)
    cols = [*_ITEM_COLUMNS, *shown, "n_relations", "prompt"]
    columns = [_column(items, c) for c in (*_ITEM_COLUMNS, *shown)]
    for position, name in enumerate(_ITEM_COLUMNS):
        if name in ("output", "second_output", "error"):
            columns[position] = [_cut(v) for v in columns[position]]
    questions = _column(items, "question")
    columns.append([count_relations(q) if isinstance(q, str) else None for q in questions])
    texts = [
        p[len(prefix) : len(p) - cut] if isinstance(p, str) else None
        for p in _column(items, "prompt_text")
    ]
    columns.append([None if t is None else pool.setdefault(t, len(pool)) for t in texts])
    rows = list(zip(*columns, strict=True))  # tuples: the same JSON arrays as lists
    return {"cols": cols, "rows": rows, "prefix": prefix, "suffix": suffix, "label": label}


def _drill_label(benchmark: Any) -> str | None:
    """The ``label_...`` column a run's benchmark filters its drill-down on (None: none)."""
    name = str(benchmark)
    if name not in benchmarks.names():
        return None
    label = benchmarks.get(name).drill_label
    return None if label is None else f"label_{label}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _key_value(value: Any) -> Any:
    """A NumPy value as Python's; else TypeError."""
    if hasattr(value, "tolist"):  # NumPy scalars and arrays
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not hashed")


def _read(path: Path) -> str:
    """The text kept at ``path`` ("" when there is none or it cannot be read)."""
    try:
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _blocks_key(runs: Runs, labels: list[str | None], extra: tuple[str, ...]) -> str | None:
    """What the page's item blocks are made from, hashed: relreason's version, this module's
    code and the code it calls, each run's id, folder stamp (its records, manifest and summary,
    and the reading code) and drill label, ``extra``, and every column not read from the folders
    (e.g. MCR's questions, from the data). None when a run has no stamp: made afresh."""
    stamps = [runs.stamps.get(run_id) for run_id in runs.runs["run_id"]]
    if any(stamp is None for stamp in stamps):
        return None
    added = [c for c in runs.items.columns if c not in _READ and not c.startswith("label_")]
    code = [_read(Path(m)) for m in (__file__, table_module.__file__, relations_module.__file__)]
    parts = [_BLOCKS_VERSION, __version__, code, list(runs.runs["run_id"]), stamps, labels, extra]
    parts += [sorted(added), *(runs.items[c].tolist() for c in sorted(added))]
    try:
        return _digest(json.dumps(parts, ensure_ascii=False, allow_nan=True, default=_key_value))
    except (TypeError, ValueError):  # a value it cannot write: no key
        return None


def _table_html(table: Table, drills: list[dict[str, Any]]) -> str:
    frame = table.display
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = []
    for position, row in enumerate(frame.itertuples(False, name=None)):
        cells = []
        for column, value in zip(frame.columns, row, strict=True):
            drill = table.drill.get((position, str(column)))
            text = html.escape(cell_text(value, column=column))
            if drill is None:
                cells.append(f"<td>{text}</td>")
            else:
                drills.append(drill.to_json())
                cells.append(f'<td class="drill" data-d="{len(drills) - 1}">{text}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _page(report: Report, title: str) -> str:
    drills: list[dict[str, Any]] = []
    sections, nav = [], []
    for number, section in enumerate(report.sections):
        anchor = section.table.key if section.table is not None else f"s{number}"
        nav.append(f'<a href="#{anchor}">{html.escape(section.title)}</a>')
        if section.table is None:
            sections.append(
                f'<section id="{anchor}"><h2>{html.escape(section.title)}</h2>'
                f'<p class="reason">Not possible: {html.escape(section.reason or "")}'
                "</p></section>"
            )
            continue
        table = section.table
        svg = table.figure_svg()
        figure = f'<div class="fig">{svg}</div>' if svg else ""
        note = f'<p class="note">{html.escape(table.note)}</p>' if table.note else ""
        sections.append(
            f'<section id="{anchor}"><h2>{html.escape(table.title)}</h2>'
            f'<div class="row"><div class="tbl">{_table_html(table, drills)}</div>'
            f"{figure}</div>{note}</section>"
        )
    runs = report.runs
    index = {run_id: n for n, run_id in enumerate(runs.runs["run_id"])}
    wheres = {k for t in report.tables() for d in t.drill.values() for k, _ in d.where}
    labels = [_drill_label(benchmark) for benchmark in runs.runs["benchmark"]]
    extra = tuple(sorted(wheres))
    key = _blocks_key(runs, labels, extra)
    path = cache_root() / "report-html" / f"{_digest(str(runs.root.resolve()))[:32]}.html"
    kept, _, blocks = _read(path).partition("\n")
    if key is None or kept != key:
        pool: dict[str, int] = {}
        blocks = "".join(
            _gzip_script(f"run-{n}", run_payload(runs.items_of(run_id), pool, label, extra))
            for (run_id, n), label in zip(index.items(), labels, strict=True)
        ) + _gzip_script("texts", list(pool))
        if key is not None:  # one entry per folder of runs; an unwritable cache costs time
            with contextlib.suppress(UsageError, ValueError, OSError):
                atomic_write_bytes(path, f"{key}\n{blocks}".encode(), make_parents=True)
    partial = runs.runs[runs.runs["partial"]]
    notes = [f"{len(runs.runs)} runs, {len(runs.items)} items, folder {runs.root}"]
    if not partial.empty:
        notes.append(f"{len(partial)} partial runs (marked *): " + ", ".join(partial["run_id"]))
    notes.append(
        "for an item browser (filters, prompts and readings, two runs side by side): "
        f"relreason view {shlex.quote(str(runs.root))}"
    )
    notes += report.notes[:20]
    panel = (
        '<div id="panel" hidden><div class="bar"><b id="p-title"></b>'
        '<button id="p-close">close</button></div><div class="bar">'
        '<select id="f-status"></select><select id="f-label"></select>'
        '<select id="f-correct"><option value="">correct: all</option>'
        '<option value="1">right</option><option value="0">wrong</option></select>'
        '<span id="p-count"></span></div><table><thead><tr><th>run</th><th>item</th>'
        "<th>relation/category</th><th>gold</th><th>answer</th><th>status</th>"
        '<th>official</th><th>output</th></tr></thead><tbody id="p-body"></tbody></table>'
        '<button id="p-more" hidden>more</button></div>'
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<header><h1>{html.escape(title)}</h1></header><nav>{''.join(nav)}</nav><main>"
        + "".join(f'<p class="note">{html.escape(n)}</p>' for n in notes)
        + "".join(sections)
        + f"</main>{panel}"
        + _json_script("drills", drills)
        + _json_script("runs-index", index)
        + blocks
        + f"<script>{SCRIPT}</script></body></html>"
    )


def render_html(
    runs: Report | Runs | Path | str,
    out_path: Path | str,
    paper: Mapping[str, str] | None = None,
    *,
    title: str = "relreason report",
    **options: Any,
) -> Path:
    """Write the self-contained HTML report of ``runs`` (a built ``Report``, loaded ``Runs`` or
    a folder) to ``out_path`` and return it. ``paper`` maps model specs to paper models (see
    ``build_report``, which also takes ``options``)."""
    report = runs if isinstance(runs, Report) else build_report(runs, paper, **options)
    out = Path(out_path)
    atomic_write_text(out, _page(report, title))
    return out
