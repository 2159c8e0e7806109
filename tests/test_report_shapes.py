"""The report copes with every shape a run can have: each section, format and figure over
folders of 1-3 runs of 0-3 items each, of one relation or category, all unreadable, all
failed, partial, option-permuted, with and without ``--compare``.

The run folders are written with the real records writer (``make_record``, ``RecordWriter``,
``Manifest``) from the items of real runs of the bundled baselines on the official data, so
every label, prompt and description is one a run writes."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

import relreason
from relreason.analysis import load_runs
from relreason.cli import main
from relreason.errors import UsageError
from relreason.files import atomic_write_json
from relreason.records import MANIFEST, Manifest, RecordWriter, load_manifest, make_record
from relreason.report import build_report, render_html
from relreason.run.folder import resume_task
from relreason.types import EvalItem, Extraction, Response

STATUSES = ("correct", "wrong", "unparseable", "no_answer", "failed")
MODELS = ("first", "random", "oracle")
TEMPLATES = ("mcr", "mcr-permuted", "convre", "compose")
COMPARE = {"mcr": "GPT-4", "mcr-permuted": "GPT-4", "convre": "gpt-4", "compose": "GPT-4"}


@pytest.fixture(scope="module", autouse=True)
def own_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The report's caches (runs read, figures drawn) in a folder of this module's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RELREASON_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture(scope="module")
def templates(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real small run of each benchmark (and a permuted one), with the items it asked."""
    root = tmp_path_factory.mktemp("templates")
    common: dict[str, Any] = {"use_cache": False, "data_dir": shared_data}
    relreason.evaluate(
        "mcr", "first", language="en", method="zs", limit=12, out=root / "mcr", **common
    )
    relreason.evaluate(
        "mcr", "first", language="en", method="zs", limit=3, permute="cyclic",
        out=root / "mcr-permuted", **common,
    )  # fmt: skip
    relreason.evaluate(
        "convre", "first", task="re2text", setting=1, limit=12, out=root / "convre", **common
    )
    relreason.evaluate(
        "compose", "first", language="en", method="zs", limit=12, use_cache=False,
        out=root / "compose",
    )  # fmt: skip
    found = {}
    for name in TEMPLATES:
        manifest = load_manifest(root / name)
        task = resume_task(manifest, shared_data)
        found[name] = (manifest, list(task.items))
    return found


def _extraction(item: EvalItem, status: str) -> tuple[Extraction | None, str | None]:
    other = next(letter for letter in (*item.choices, "A", "B") if letter != item.gold)
    return {
        "correct": (Extraction(item.gold, "correct", "clean"), item.gold),
        "wrong": (Extraction(other, "wrong", "clean"), other),
        "unparseable": (Extraction(None, "unparseable", "none"), "I cannot say."),
        "no_answer": (Extraction(None, "no_answer", "none"), ""),
        "failed": (None, None),
    }[status]


def write_shaped_run(
    folder: Path, manifest: Manifest, items: list[EvalItem], statuses: list[str], *, model: str,
    partial: bool,
) -> None:  # fmt: skip
    """A run folder of ``items`` read as ``statuses`` by the real writer."""
    folder.mkdir(parents=True)
    writer = RecordWriter(folder)
    for item, status in zip(items, statuses, strict=True):
        extraction, text = _extraction(item, status)
        response = None if text is None else Response(text=text)
        record = make_record(
            item, extraction, [response], scored=response, attempts=1,
            error="HTTP 500 from the server" if extraction is None else None,
            reader="robust", prompts=[item.prompt],
        )  # fmt: skip
        writer.append(record)
    writer.close()
    shaped = manifest.model_copy(deep=True)
    shaped.model = shaped.model.model_copy(update={"spec": model})
    shaped.n_items = len(items) + (2 if partial else 0)
    shaped.status = "interrupted" if partial else "complete"
    atomic_write_json(folder / MANIFEST, shaped.to_json())


run_shapes = st.lists(
    st.fixed_dictionaries(
        {
            "template": st.sampled_from(TEMPLATES),
            "size": st.integers(0, 3),
            "same_label": st.booleans(),  # one relation / category / domain
            "statuses": st.one_of(
                st.sampled_from(STATUSES).map(lambda s: [s] * 3),  # all of one status
                st.lists(st.sampled_from(STATUSES), min_size=3, max_size=3),
            ),
            "partial": st.booleans(),
            "start": st.integers(0, 8),
        }
    ),
    min_size=1,
    max_size=3,
)


def _pick(items: list[EvalItem], shape: dict[str, Any]) -> list[EvalItem]:
    start = shape["start"] % max(1, len(items))
    chosen = items[start:] + items[:start]
    if shape["same_label"] and chosen:
        labels = chosen[0].labels
        key = next((k for k in ("relation", "categories", "domain") if k in labels), None)
        if key is not None:
            chosen = [i for i in chosen if i.labels.get(key) == labels[key]]
    return chosen[: shape["size"]]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(shapes=run_shapes, compare=st.booleans())
def test_every_section_and_format_copes_with_any_run_shape(
    templates: dict[str, Any], shared_data: Path, tmp_path: Path, shapes: list[dict[str, Any]],
    compare: bool,
) -> None:  # fmt: skip
    root = Path(tempfile.mkdtemp(dir=tmp_path)) / "runs"
    for number, shape in enumerate(shapes):
        manifest, items = templates[shape["template"]]
        chosen = _pick(items, shape)
        write_shaped_run(
            root / f"run{number}", manifest, chosen, shape["statuses"][: len(chosen)],
            model=MODELS[number], partial=shape["partial"],
        )  # fmt: skip
    runs = load_runs(root)
    mapping = {MODELS[0]: COMPARE[shapes[0]["template"]]} if compare else {}
    report = build_report(runs, mapping, data_dir=shared_data)
    assert [s.title for s in report.sections], "every section is there, made or not"
    for section in report.sections:
        assert (section.table is None) != (section.reason is None), section.title
    report.print(Console(file=io.StringIO(), width=100))
    for fmt in ("markdown", "latex", "json"):
        assert report.format(fmt)
    long = pd.read_csv(io.StringIO(report.format("csv")))
    assert "table" in long.columns
    report.write_csv(root.parent / f"{root.name}-csv")
    page = render_html(report, root.parent / f"{root.name}.html").read_text(encoding="utf-8")
    for table in report.tables():  # each figure drawn (or none: nothing to draw), labelled
        svg = table.figure_svg()
        assert svg is None or svg.startswith("<svg"), table.key
        assert svg is None or svg in page


def cli(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as done:
        return int(done.code or 0)
    return 0


def test_a_folder_without_runs_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no run folder"):
        load_runs(tmp_path)


def test_report_cli_over_tiny_mcr_and_compose_runs_exits_0(
    shared_data: Path, tmp_path: Path
) -> None:
    """The issue's case: MCR runs of ``--sample 24`` and ``--limit 20`` (no point of the
    relations figure has 20 items) beside compose runs, through every output of ``report``."""
    runs = tmp_path / "runs"
    for args in (
        ["mcr", "--language", "en", "--model", "first", "--sample", "24"],
        ["mcr", "--language", "zh", "--model", "random", "--limit", "20"],
        ["compose", "--language", "en", "--model", "oracle", "--limit", "9"],
    ):
        out = runs / "-".join(args[::2])
        run = ["run", *args, "--method", "zs", "--data-dir", str(shared_data), "--out", str(out)]
        assert cli(run) == 0, run
    base = ["report", str(runs), "--data-dir", str(shared_data)]
    for extra in (
        [],
        ["--format", "markdown"],
        ["--format", "csv", "--out", str(tmp_path / "csv")],
        ["--format", "latex", "--out", str(tmp_path / "report.tex")],
        ["--html", str(tmp_path / "report.html")],
        ["--figures", str(tmp_path / "figures")],
        ["--compare", "first=GPT-4", "--html", str(tmp_path / "compared.html")],
    ):
        assert cli([*base, *extra]) == 0, extra
    assert sorted(p.suffix for p in (tmp_path / "figures").glob("mcr_relations.*")) == [
        ".pdf", ".png", ".svg",
    ]  # fmt: skip
