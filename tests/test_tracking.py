"""``--log-to``: a finished run, and each cell of a sweep under its sweep, logged to a real
MLflow file store (read back with MLflow's own client) or to W&B offline (read back from the
run file W&B writes); a tracker's failure warns and keeps the run; the option is recorded in
the manifest but not in the fingerprint. Sweep files' model ``roles``."""

from __future__ import annotations

import glob
import json
import os
import re
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.errors import DataError, UsageError
from relreason.records import wilson_interval
from relreason.run.options import RunOptions
from relreason.run.sweep import load_sweep, run_sweep
from relreason.run.tracking import parse_target

REPO = Path(__file__).resolve().parents[1]
STATUSES = ("correct", "wrong", "unparseable", "no_answer", "failed")


def relreason(tmp: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The real command line, with its own cache folder under ``tmp``."""
    environ = {**os.environ, "RELREASON_CACHE_DIR": str(tmp / "cache"), **env}
    environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH")) if p
    )
    return subprocess.run(
        [sys.executable, "-m", "relreason", *args],
        capture_output=True,
        text=True,
        env=environ,
        timeout=600,
        check=False,
    )


def mlflow_runs(store: Path) -> list[Any]:
    """Every run of the ``relreason`` experiment in the MLflow file store ``store``, read with
    MLflow's own client."""
    os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=store.as_uri())
    experiment = client.get_experiment_by_name("relreason")
    assert experiment is not None, f"no relreason experiment in {store}"
    return list(client.search_runs([experiment.experiment_id]))


def test_a_run_is_logged_to_a_local_mlflow_store(tmp_path: Path) -> None:
    store, out = tmp_path / "mlruns", tmp_path / "run"
    done = relreason(
        tmp_path,
        *("run", "compose", "--language", "en", "--method", "zs", "--model", "random"),
        *("--limit", "8", "--no-progress", "--out", str(out), "--log-to", store.as_uri()),
    )
    assert done.returncode == 2 and "log_to" in done.stderr  # no tracker named: refused
    done = relreason(
        tmp_path,
        *("run", "compose", "--language", "en", "--method", "zs", "--model", "random"),
        *("--limit", "8", "--no-progress", "--out", str(out)),
        *("--log-to", f"mlflow:{store.as_uri()}"),
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["options"]["log_to"] == f"mlflow:{store.as_uri()}"
    assert "log_to" not in json.dumps(manifest["config"])  # not in the fingerprint

    from mlflow.tracking import MlflowClient

    (run,) = mlflow_runs(store)
    params, metrics = run.data.params, run.data.metrics
    assert params["benchmark"] == "compose" and params["model"] == "random"
    assert params["reader"] == manifest["config"]["reader"]
    assert params["seed"] == str(manifest["options"]["seed"])
    cell = manifest["description"]["params"]
    assert {k: params[f"cell.{k}"] for k in ("language", "method", "mode")} == {
        k: cell[k] for k in ("language", "method", "mode")
    }
    assert metrics["accuracy"] == pytest.approx(summary["accuracy"])
    low, high = wilson_interval(summary["correct"], summary["n"])
    assert (metrics["accuracy_low"], metrics["accuracy_high"]) == pytest.approx((low, high))
    assert low <= metrics["accuracy"] <= high
    assert {s: metrics[f"status.{s}"] for s in STATUSES} == {
        s: summary["statuses"].get(s, 0) for s in STATUSES
    }
    assert sum(metrics[f"status.{s}"] for s in STATUSES) == metrics["n"] == 8
    assert run.data.tags["relreason.folder"] == str(out.resolve())
    client = MlflowClient(tracking_uri=store.as_uri())
    names = sorted(a.path for a in client.list_artifacts(run.info.run_id))
    assert names == ["manifest.json", "records.jsonl", "summary.json"]
    got = client.download_artifacts(run.info.run_id, "records.jsonl", str(tmp_path))
    assert Path(got).read_bytes() == (out / "records.jsonl").read_bytes()


def test_logging_changes_no_fingerprint_and_a_failure_keeps_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from relreason import evaluate

    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    out, store = tmp_path / "run", tmp_path / "mlruns"
    args: dict[str, Any] = {"language": "en", "method": "zs", "limit": 4, "out": out}
    first = evaluate("compose", "random", **args)
    again = evaluate("compose", "random", log_to=f"mlflow:{store.as_uri()}", **args)
    assert again.accuracy == first.accuracy  # the same run folder, not "another configuration"
    (run,) = mlflow_runs(store)
    assert run.data.tags["relreason.sessions"] == "2"

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    other = tmp_path / "other"
    kept = evaluate(
        "compose",
        "random",
        log_to=f"mlflow:{(blocked / 'mlruns').as_uri()}",
        **{**args, "out": other},
    )
    said = capsys.readouterr().err
    assert f"could not log {other}" in said and "the run itself is kept" in said
    assert kept.accuracy == first.accuracy and (other / "summary.json").is_file()


def test_a_missing_tracker_is_refused_before_the_run_with_its_install_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "mlflow", None)  # as Python marks a module not importable
    with pytest.raises(UsageError, match=r"--log-to mlflow needs the 'mlflow' extra: pip"):
        RunOptions(log_to="mlflow").validate()
    path, out = tmp_path / "sweep.yaml", tmp_path / "out"
    path.write_text(
        f"out: {out}\nmodels: [random]\nruns: [{{benchmark: compose, language: en, method: zs}}]"
        "\noptions: {log_to: mlflow}\n"
    )
    with pytest.raises(UsageError, match="'mlflow' extra"):
        run_sweep(path, show_progress=False)
    assert not out.exists()  # refused before any cell ran
    with pytest.raises(UsageError, match=re.escape("mlflow | mlflow:URI | wandb")):
        RunOptions(log_to="neptune").validate()


def test_the_forms_of_log_to(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("WANDB_PROJECT", raising=False)
    monkeypatch.chdir(tmp_path)
    assert parse_target("mlflow").where == (tmp_path / "mlruns").as_uri()
    assert parse_target("mlflow:http://127.0.0.1:5000").where == "http://127.0.0.1:5000"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "file:///elsewhere")
    assert parse_target("mlflow").where == "file:///elsewhere"
    assert (parse_target("wandb").kind, parse_target("wandb").where) == ("wandb", "relreason")
    assert parse_target("wandb:mine").where == "mine"


SWEEP = """\
out: {out}
models: [random, oracle]
roles: {{cleanup: first}}
runs:
  - {{benchmark: mcr, language: en, method: zs, mode: paper}}
  - {{benchmark: compose, language: en, method: zs, mode: paper, cleanup_model: oracle}}
  - {{benchmark: convre, task: re2text, setting: 1}}
options: {{limit: 4, log_to: "mlflow:{store}"}}
"""


def test_a_sweep_logs_each_cell_under_its_parent_and_fills_in_its_roles(
    tmp_path: Path, shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from relreason.run.plan import PARAMS_KEY

    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    out, store = tmp_path / "out", tmp_path / "mlruns"
    path = tmp_path / "sweep.yaml"
    path.write_text(SWEEP.format(out=out, store=store.as_uri()))
    result = run_sweep(path, data_dir=shared_data, show_progress=False)
    assert len(result.rows) == 6
    cleanup = {
        f"{folder.parent.parent.name}/{folder.parent.name}": json.loads(folder.read_text())[
            "description"
        ]
        for folder in out.glob("*/*/manifest.json")
    }
    by_cell = {
        cell.split("/")[1]: d.get(PARAMS_KEY, {}).get("cleanup_model")
        for cell, d in cleanup.items()
    }
    assert by_cell["mcr-en-zs"] == "first"  # the role, declared once
    assert by_cell["compose-en-zs"] == "oracle"  # the cell's own setting wins
    assert not any("cleanup" in k for k in cleanup["random/convre-re2text-s01"][PARAMS_KEY])

    runs = mlflow_runs(store)
    (parent,) = [r for r in runs if r.data.tags.get("relreason.kind") == "sweep"]
    cells = [r for r in runs if r.data.tags.get("relreason.kind") == "run"]
    assert len(cells) == 6
    assert {r.data.tags["mlflow.parentRunId"] for r in cells} == {parent.info.run_id}
    assert {r.data.tags["relreason.sweep"] for r in [parent, *cells]} == {str(out.resolve())}
    assert {r.data.params["model"] for r in cells} == {"random", "oracle"}


def test_an_unknown_role_is_refused_naming_file_line_and_key(tmp_path: Path) -> None:
    path = tmp_path / "sweep.yaml"
    path.write_text(
        "out: x\nmodels: [random]\nroles:\n  cleanup: first\n  translator: oracle\n"
        "runs: [{benchmark: mcr}]\n"
    )
    with pytest.raises(DataError) as caught:
        load_sweep(path)
    said = str(caught.value)
    assert str(path) in said and "line 5" in said and "roles.translator" in said
    assert "cleanup (mcr.cleanup_model, compose.cleanup_model)" in said


def wandb_records(path: Path) -> list[Any]:
    """The records of a W&B offline run file (W&B 0.31 ships no Python reader of its own: the
    file is LevelDB's log format, 32 KiB blocks of CRC, length, kind and data, after a 7-byte
    header, holding W&B's own protobuf ``Record`` messages, parsed by W&B's classes)."""
    from wandb.proto import wandb_internal_pb2

    data, position, chunks, found = path.read_bytes(), 7, b"", []
    assert data[:4] == b":W&B"
    while position + 7 <= len(data):
        left = 32768 - position % 32768
        if left < 7:
            position += left
            continue
        _, length, kind = struct.unpack("<IHB", data[position : position + 7])
        if (kind, length) == (0, 0):
            break
        chunks += data[position + 7 : position + 7 + length]
        position += 7 + length
        if kind in (1, 4):  # a whole record, or the last piece of one
            record = wandb_internal_pb2.Record()
            record.ParseFromString(chunks)
            found.append(record)
            chunks = b""
    return found


def test_a_run_is_logged_to_wandb_offline(tmp_path: Path) -> None:
    out, home = tmp_path / "run", tmp_path / "wandb-home"
    places = {k: str(home / k) for k in ("WANDB_DIR", "WANDB_CACHE_DIR", "WANDB_CONFIG_DIR")}
    for place in places.values():
        Path(place).mkdir(parents=True)
    done = relreason(
        tmp_path,
        *("run", "compose", "--language", "en", "--method", "zs", "--model", "oracle"),
        *("--limit", "8", "--no-progress", "--out", str(out), "--log-to", "wandb:tests"),
        **places,
        WANDB_DATA_DIR=str(home / "data"),
        WANDB_MODE="offline",
        WANDB_SILENT="true",
    )
    assert done.returncode == 0, done.stderr
    (run_file,) = glob.glob(str(home / "WANDB_DIR" / "wandb" / "offline-run-*" / "run-*.wandb"))
    records = wandb_records(Path(run_file))
    kinds = [r.WhichOneof("record_type") for r in records]
    (run,) = [r.run for r in records if r.WhichOneof("record_type") == "run"]
    config = {u.key: json.loads(u.value_json) for u in run.config.update}
    assert (
        run.project == "tests" and config["benchmark"] == "compose" and config["model"] == "oracle"
    )
    history = {
        (i.key or "/".join(i.nested_key)): json.loads(i.value_json)
        for r in records
        if r.WhichOneof("record_type") == "history"
        for i in r.history.item
    }
    assert history["accuracy"] == 1.0 and history["status.correct"] == 8
    (artifact,) = [r.artifact for r in records if r.WhichOneof("record_type") == "artifact"]
    assert sorted(e.path for e in artifact.manifest.contents) == [
        "manifest.json",
        "records.jsonl",
        "summary.json",
    ]
    assert kinds[-1] == "exit"


def test_a_ray_sweep_is_logged_by_its_driver_once_per_cell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a real local Ray cluster: the workers (which share this disk) do not log, the driver
    logs each cell once its folder is written back, under the sweep's parent."""
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RELREASON_CACHE_DIR", str(tmp_path / "cache"))
    out, store = tmp_path / "out", tmp_path / "mlruns"
    path = tmp_path / "sweep.yaml"
    path.write_text(
        f"out: {out}\nmodels: [random, oracle]\n"
        "runs: [{benchmark: compose, language: en, method: zs}]\n"
        f'options: {{limit: 4, log_to: "mlflow:{store.as_uri()}"}}\n'
    )
    started = not ray.is_initialized()
    if started:
        env = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": env},
        )
    try:
        result = run_sweep(path, show_progress=False, ray="local")
    finally:
        if started:
            ray.shutdown()
    assert len(result.rows) == 2
    runs = mlflow_runs(store)
    (parent,) = [r for r in runs if r.data.tags.get("relreason.kind") == "sweep"]
    cells = [r for r in runs if r.data.tags.get("relreason.kind") == "run"]
    assert sorted(r.data.params["model"] for r in cells) == ["oracle", "random"]
    assert {r.data.tags["mlflow.parentRunId"] for r in cells} == {parent.info.run_id}


@given(st.text(max_size=40))
def test_log_to_is_one_of_its_forms_or_refused(text: str) -> None:
    try:
        target = parse_target(text)
    except UsageError as error:
        assert "mlflow | mlflow:URI | wandb | wandb:PROJECT" in str(error)
        assert text.strip().partition(":")[0] not in ("mlflow", "wandb")
        return
    kind, _, where = text.strip().partition(":")
    assert target.kind == kind
    assert target.where == where or (not where and target.where)


@given(
    st.dictionaries(st.sampled_from(["cleanup", "translator"]), st.sampled_from(["first", "x"])),
    st.dictionaries(
        st.sampled_from(["language", "method", "mode", "cleanup_model"]),
        st.none() | st.sampled_from(["en", "zs", "oracle"]),
    ),
)
def test_roles_fill_in_only_what_a_cell_leaves_out(
    roles: dict[str, str], cell: dict[str, Any]
) -> None:
    from relreason.benchmarks import get
    from relreason.run.sweep_roles import with_roles

    for name in ("mcr", "convre"):
        filled = with_roles(get(name), roles, cell)
        assert {k: filled[k] for k in cell} == cell  # a cell's own setting wins
        added = set(filled) - set(cell)
        takes = name == "mcr" and "cleanup" in roles and "cleanup_model" not in cell
        assert added == ({"cleanup_model"} if takes else set())
        if takes:
            assert filled["cleanup_model"] == roles["cleanup"]
