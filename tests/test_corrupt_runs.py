"""A run folder damaged in ~60 ways (wrong types, huge numbers, NaN, torn and non-UTF-8 lines,
wrong nesting, a damaged manifest or summary): ``run --resume``, ``report``, ``export`` and
``score`` each either go on (exit 0) or refuse with a message naming the file (and the line and
field of a bad record) with exit 2, never a traceback; a resume never leaves the manifest saying
``running``; a report or export over a folder of runs skips the damaged run with a warning
naming it and reports the rest.

The run folder is a real one, made once with the ``random`` baseline on 12 MCR items.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from clihelp import run_cli

RECORDS = "records.jsonl"
MANIFEST = "manifest.json"
LINE = 3  # the record damaged (1-based line of records.jsonl)


def _set_field(name: str, value: str) -> Callable[[Path], None]:
    """Write ``value`` (JSON text, as is) as field ``name`` of the record on line LINE."""

    def damage(folder: Path) -> None:
        lines = (folder / RECORDS).read_text("utf-8").splitlines(keepends=True)
        data = json.loads(lines[LINE - 1])
        data[name] = "\x00PLACEHOLDER\x00"
        text = json.dumps(data, ensure_ascii=False).replace('"\\u0000PLACEHOLDER\\u0000"', value)
        lines[LINE - 1] = text + "\n"
        (folder / RECORDS).write_text("".join(lines), "utf-8")

    return damage


def _drop_field(name: str) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        lines = (folder / RECORDS).read_text("utf-8").splitlines(keepends=True)
        data = json.loads(lines[LINE - 1])
        del data[name]
        lines[LINE - 1] = json.dumps(data) + "\n"
        (folder / RECORDS).write_text("".join(lines), "utf-8")

    return damage


def _line(raw: bytes, where: int = LINE - 1) -> Callable[[Path], None]:
    """Replace the record line at 0-based ``where`` (-1: the last, without its newline)."""

    def damage(folder: Path) -> None:
        lines = (folder / RECORDS).read_bytes().split(b"\n")[:-1]
        if where == -1:
            (folder / RECORDS).write_bytes(b"\n".join([*lines[:-1], raw]))
            return
        lines[where] = raw
        (folder / RECORDS).write_bytes(b"\n".join(lines) + b"\n")

    return damage


def _cut_line(folder: Path) -> None:
    lines = (folder / RECORDS).read_bytes().split(b"\n")
    lines[LINE - 1] = lines[LINE - 1][: len(lines[LINE - 1]) // 2]
    (folder / RECORDS).write_bytes(b"\n".join(lines))


def _cut_last(folder: Path) -> None:
    raw = (folder / RECORDS).read_bytes()
    (folder / RECORDS).write_bytes(raw[: len(raw) - 40])


def _manifest_text(text: bytes) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        (folder / MANIFEST).write_bytes(text)

    return damage


def _manifest_field(path: str, value: object) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        data = json.loads((folder / MANIFEST).read_text("utf-8"))
        *parents, last = path.split(".")
        target = data
        for part in parents:
            target = target[part]
        if value is _DROP:
            del target[last]
        else:
            target[last] = value
        (folder / MANIFEST).write_text(json.dumps(data), "utf-8")

    return damage


_DROP = object()


def _records_dir(folder: Path) -> None:
    (folder / RECORDS).unlink()
    (folder / RECORDS).mkdir()


# (name, damage, what a refusal must name besides the file: a field, or None)
CASES: list[tuple[str, Callable[[Path], None], str | None]] = [
    ("usage-text", _set_field("usage", '"x"'), "usage"),
    ("usage-huge", _set_field("usage", "1e999"), "usage"),
    ("usage-list", _set_field("usage", "[1, 2]"), "usage"),
    ("usage-negative", _set_field("usage", '{"prompt_tokens": -5}'), "usage.prompt_tokens"),
    ("usage-count-text", _set_field("usage", '{"prompt_tokens": "x"}'), "usage.prompt_tokens"),
    ("usage-count-huge", _set_field("usage", '{"prompt_tokens": 1e999}'), "usage.prompt_tokens"),
    ("usage-count-nan", _set_field("usage", '{"completion_tokens": NaN}'), "usage"),
    ("labels-text", _set_field("labels", '"x"'), "labels"),
    ("labels-huge", _set_field("labels", "1e999"), "labels"),
    ("labels-list", _set_field("labels", "[1]"), "labels"),
    ("index-text", _set_field("index", '"x"'), "index"),
    ("index-negative", _set_field("index", "-1"), "index"),
    ("index-fraction", _set_field("index", "1.5"), "index"),
    ("index-null", _set_field("index", "null"), "index"),
    ("index-huge", _set_field("index", "1e999"), "index"),
    ("index-missing", _drop_field("index"), "index"),
    ("index-out-of-task", _set_field("index", "99999"), None),
    ("item-id-number", _set_field("item_id", "5"), "item_id"),
    ("gold-null", _set_field("gold", "null"), "gold"),
    ("status-unknown", _set_field("status", '"bogus"'), "status"),
    ("status-number", _set_field("status", "5"), "status"),
    ("correct-text", _set_field("correct", '"maybe"'), "correct"),
    ("latency-nan", _set_field("latency_s", "NaN"), "latency_s"),
    ("latency-infinite", _set_field("latency_s", "Infinity"), "latency_s"),
    ("latency-negative", _set_field("latency_s", "-1"), "latency_s"),
    ("latency-text", _set_field("latency_s", '"slow"'), "latency_s"),
    ("attempts-negative", _set_field("attempts", "-3"), "attempts"),
    ("attempts-huge", _set_field("attempts", "1e999"), "attempts"),
    ("logprobs-text", _set_field("choice_logprobs", '"x"'), "choice_logprobs"),
    ("logprobs-value-text", _set_field("choice_logprobs", '{"A": "x"}'), "choice_logprobs.A"),
    ("logprobs-nan", _set_field("choice_logprobs", '{"A": NaN}'), "choice_logprobs.A"),
    ("top-logprobs-list", _set_field("top_logprobs", "[1, 2]"), "top_logprobs"),
    ("output-number", _set_field("output", "5"), "output"),
    ("output-object", _set_field("output", '{"a": 1}'), "output"),
    ("prompt-number", _set_field("prompt", "5"), "prompt"),
    ("error-number", _set_field("error", "5"), "error"),
    ("cached-text", _set_field("cached", '"x"'), "cached"),
    ("alt-text", _set_field("alt", '"x"'), "alt"),
    ("alt-list", _set_field("alt", "[1]"), "alt"),
    ("labels-nested", _set_field("labels", '{"language": {"deep": [1, {"x": [null]}]}}'), None),
    ("sent-as-nested", _set_field("sent_as", '[[{"role": [1]}]]'), None),
    ("extra-field", _set_field("zzz_unknown", '{"a": [1, 2]}'), None),
    ("record-list", _line(b"[1, 2, 3]"), None),
    ("record-number", _line(b"5"), None),
    ("record-text", _line(b'"a record"'), None),
    ("record-null", _line(b"null"), None),
    ("line-cut", _cut_line, None),
    ("last-line-cut", _cut_last, None),
    ("line-not-utf8", _line(b'{"index": 2, "item_id": "\xff\xfe", "gold": "A"}'), None),
    ("last-line-not-utf8", _line(b"\xff\xfe\xfd", where=-1), None),
    ("line-nul-bytes", _line(b"\x00\x00\x00"), None),
    ("line-nested-deep", _line(b"[" * 100_000 + b"]" * 100_000), None),
    ("line-huge-integer", _line(b'{"index": ' + b"9" * 5000 + b"}"), None),
    ("line-empty", _line(b""), None),
    ("records-folder", _records_dir, None),
    ("manifest-not-json", _manifest_text(b"{not json"), None),
    ("manifest-list", _manifest_text(b"[1, 2]"), None),
    ("manifest-not-utf8", _manifest_text(b'{"kind": "\xff"}'), None),
    ("manifest-empty", _manifest_text(b""), None),
    ("manifest-status", _manifest_field("status", "bogus"), "status"),
    ("manifest-model", _manifest_field("model", "x"), "model"),
    ("manifest-model-spec", _manifest_field("model.spec", _DROP), "model.spec"),
    ("manifest-model-options", _manifest_field("model.options", [1]), "model.options"),
    ("manifest-benchmark", _manifest_field("benchmark", _DROP), "benchmark"),
    ("manifest-description", _manifest_field("description", [1]), "description"),
    ("manifest-usage", _manifest_field("usage", "x"), "usage"),
    ("manifest-options", _manifest_field("options", "x"), "options"),
    ("summary-not-json", lambda f: (f / "summary.json").write_text("{", "utf-8"), None),
]


@pytest.fixture(scope="module")
def made_run(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run folder: the random baseline on 12 MCR fr items (made once)."""
    out = tmp_path_factory.mktemp("corrupt") / "run"
    args = ["run", "mcr", "--language", "fr", "--method", "zs", "--model", "random:3"]
    args += ["--limit", "12", "--no-cache", "--no-progress", "--out", str(out)]
    args += ["--data-dir", str(shared_data)]
    from relreason.cli.app import main

    main_code = 0
    try:
        main(args)
    except SystemExit as done:
        main_code = int(done.code or 0)
    assert main_code == 0
    return out


def _check(code: int, err: str, damaged: Path, field: str | None, command: str) -> None:
    assert code in (0, 2), f"{command}: exit {code}\n{err}"
    assert "Traceback" not in err, f"{command}:\n{err}"
    if code == 2:
        named = [RECORDS, MANIFEST, "summary.json"]
        assert any(n in err for n in named), f"{command} names no file:\n{err}"
        if field is not None:
            assert f"'{field}'" in err or field in err, f"{command} names no {field}:\n{err}"


@pytest.mark.parametrize(("name", "damage", "field"), CASES, ids=[c[0] for c in CASES])
def test_a_damaged_run_is_refused_or_read_never_a_traceback(
    name: str,
    damage: Callable[[Path], None],
    field: str | None,
    made_run: Path,
    shared_data: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "runs"
    good, bad = root / "good", root / "bad"
    shutil.copytree(made_run, good)
    shutil.copytree(made_run, bad)
    damage(bad)
    data = ["--data-dir", str(shared_data)]

    code, _, err = run_cli(["report", str(root), *data], capsys)
    _check(code, err, bad, field, "report")
    assert code == 0, err  # the good run is reported
    if code == 0 and "skipped the run bad" in err:
        assert any(n in err for n in (RECORDS, MANIFEST, "summary.json")), err
    code, _, err = run_cli(["export", str(root), "--out", str(tmp_path / "x.csv")], capsys)
    _check(code, err, bad, field, "export")
    assert code == 0, err

    code, _, err = run_cli(["report", str(bad), *data], capsys)
    _check(code, err, bad, field, "report of the damaged run alone")

    score = ["score", "mcr", "--language", "fr", "--method", "zs", *data]
    score += ["--responses", str(bad / RECORDS), "--out", str(tmp_path / "scored.jsonl")]
    code, _, err = run_cli(score, capsys)
    _check(code, err, bad, None, "score")

    code, _, err = run_cli(["run", "--resume", str(bad), *data], capsys)
    _check(code, err, bad, field, "resume")
    try:
        status = json.loads((bad / MANIFEST).read_text("utf-8")).get("status")
    except (ValueError, AttributeError, OSError):
        status = None  # a damaged manifest stays as it was
    assert status != "running" or name.startswith("manifest"), err
