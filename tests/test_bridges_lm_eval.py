"""lm-evaluation-harness bridge, with the real ``lm-eval`` package: exported tasks load in
lm-eval and build relreason's exact requests; ``lm_eval`` runs them on the bundled SmolLM2 and
its accuracy and answers equal relreason's own run of the same items; its samples file reads
back into a run folder; malformed or foreign samples are refused naming file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relreason.bridges.cells import Cell, parse_cell
from relreason.bridges.imported import write_imported_run
from relreason.bridges.lm_eval_export import export_lm_eval, task_name
from relreason.bridges.lm_eval_log import read_lm_eval_samples
from relreason.cli import main
from relreason.errors import DataError, UsageError
from relreason.records import load_manifest, load_records

lm_eval = pytest.importorskip("lm_eval", reason="lm-eval is in the dev extra")

CELL = "convre-re2text-s01"
LIMIT = 3


def test_cells_by_run_name_and_by_keys() -> None:
    by_name = parse_cell("convre-text2re-s09")
    by_keys = parse_cell("convre:task=text2re,setting=9")
    assert by_name.name == by_keys.name == "convre-text2re-s09"
    assert parse_cell("mcr:language=fr,method=fs").name == "mcr-fr-fs"
    for bad in ("convre-nope-s01", "convre:task", "convre:colour=red", "nobench:x=1"):
        with pytest.raises(UsageError):
            parse_cell(bad)


@pytest.fixture(scope="module")
def exported(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Cell]:
    out = tmp_path_factory.mktemp("lm-eval-tasks")
    cells = [parse_cell(CELL), parse_cell("mcr-en-zsc"), parse_cell("compose-en-zs")]
    export_lm_eval(cells, out, shared_data)
    return out, cells[0]


def _lm_eval_task(folder: Path, name: str) -> Any:
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(folder), include_defaults=False)
    return manager.load([name])["tasks"][name]


def test_lm_eval_builds_relreason_requests(exported: tuple[Path, Cell], shared_data: Path) -> None:
    """lm-eval's own task code sends relreason's prompt and continuations, byte for byte."""
    folder, cell = exported
    task = cell.task(shared_data)
    lm_task = _lm_eval_task(folder, task_name(cell.name, "mc"))
    docs = list(lm_task.test_docs())
    assert len(docs) == len(task.items)
    for doc, item in zip(docs[:20], task.items[:20], strict=True):
        context = lm_task.fewshot_context(doc, 0)
        assert context == item.prompt
        requests = lm_task.construct_requests(doc, context, metadata=(None, None, None))
        pairs = [tuple(r.arguments) for r in requests]
        assert pairs == [(item.prompt, task.continuations(item)[c]) for c in item.choices]
        assert docs[0] is not None and lm_task.doc_to_target(doc) == item.choices.index(item.gold)
    gen = _lm_eval_task(folder, task_name(cell.name, "gen"))
    kwargs = gen.config.generation_kwargs
    assert kwargs["max_gen_toks"] == task.max_new_tokens and kwargs["until"] == []
    assert not (folder / f"{task_name('mcr-en-zsc', 'gen')}.yaml").exists()  # two questions
    assert (folder / f"{task_name('mcr-en-zsc', 'mc')}.yaml").is_file()


def _sample(doc: dict[str, Any], scores: list[float]) -> dict[str, Any]:
    """A samples line in lm-eval's written form (arguments as gen_args, values as strings)."""
    return {
        "doc_id": doc["index"],
        "doc": doc,
        "target": str(doc["gold_index"]),
        "arguments": {
            f"gen_args_{i}": {"arg_0": doc["prompt"], "arg_1": c}
            for i, c in enumerate(doc["continuations"])
        },
        "resps": [[[str(s), "False"]] for s in scores],
        "filtered_resps": [[str(s), "False"] for s in scores],
        "filter": "none",
        "metrics": ["acc"],
    }


def _docs(folder: Path, cell: str) -> list[dict[str, Any]]:
    lines = (folder / f"{cell}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@given(st.lists(st.floats(max_value=0.0, allow_nan=False, width=32), min_size=2, max_size=2))
def test_choice_samples_read_back_as_their_argmax(
    exported: tuple[Path, Cell], shared_data: Path, scores: list[float]
) -> None:
    folder, cell = exported
    doc = _docs(folder, cell.name)[3]
    path = folder / "prop-samples.jsonl"
    path.write_text(json.dumps(_sample(doc, scores)) + "\n", encoding="utf-8")
    run = read_lm_eval_samples(path, data_dir=shared_data)
    response = run.answers[3].response
    assert response.choice_logprobs is not None
    assert list(response.choice_logprobs.values()) == [float(str(s)) for s in scores]
    item = run.task.items[3]
    reading = run.task.scorer(item, response)
    best = max(scores)
    assert reading.answer == item.choices[scores.index(best)]


@given(st.text(max_size=200))
def test_any_line_parses_or_names_file_and_line(
    exported: tuple[Path, Cell], shared_data: Path, line: str
) -> None:
    folder, _ = exported
    path = folder / "junk-samples.jsonl"
    path.write_text("\n" + line.replace("\n", " ") + "\n", encoding="utf-8")
    try:
        read_lm_eval_samples(path, data_dir=shared_data)
    except DataError as error:
        assert str(path) in str(error)
        assert "line 2" in str(error) or "no samples" in str(error)


def test_foreign_and_edited_samples_are_refused(
    exported: tuple[Path, Cell], shared_data: Path, tmp_path: Path, capsys: Any
) -> None:
    folder, cell = exported
    docs = _docs(folder, cell.name)
    good = json.dumps(_sample(docs[0], [-1.0, -2.0]))
    edited = dict(docs[1], prompt_sha256="0" * 64)
    cases = {
        "foreign": json.dumps({"doc_id": 0, "doc": {"question": "?"}, "resps": []}),
        "edited": json.dumps(_sample(edited, [-1.0, -2.0])),
        "twice": json.dumps(_sample(docs[0], [-3.0, -2.0])),
        "positive": json.dumps(_sample(docs[2], [1.5, -2.0])),
        "torn": good[:40],
    }
    for name, bad in cases.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text(good + "\n" + bad + "\n", encoding="utf-8")
        out = tmp_path / f"run-{name}"
        with pytest.raises(SystemExit) as stop:
            main(
                ["import", "lm-eval", str(path), "--out", str(out), "--data-dir", str(shared_data)]
            )
        assert stop.value.code == 2
        message = capsys.readouterr().err
        assert str(path) in message and "line 2" in message, (name, message)
        assert not out.exists() and not list(tmp_path.glob(f".run-{name}*")), name


def _generated(doc: dict[str, Any], text: str) -> dict[str, Any]:
    """A samples line of a generate_until task in lm-eval's written form."""
    return {
        "doc_id": doc["index"],
        "doc": doc,
        "target": doc["gold"],
        "arguments": {"gen_args_0": {"arg_0": doc["prompt"], "arg_1": {"until": []}}},
        "resps": [[text]],
        "filtered_resps": [text],
        "filter": "none",
        "metrics": ["acc"],
    }


def test_a_run_whose_every_response_is_empty_is_refused(
    exported: tuple[Path, Cell], shared_data: Path, tmp_path: Path, capsys: Any
) -> None:
    """lm-eval records an empty text for a request that failed after its retries
    (``LMEVAL_MODEL_NONE_ANSWER_PLACEHOLDER``, '' by default, in lm_eval/models/api_models.py)
    and ends the run as usual: a samples file whose every response is empty is refused (exit
    2, the file, how many), one with a single answer is imported, the empty ones as no
    answer."""
    folder, _ = exported
    docs = _docs(folder, "compose-en-zs")[:3]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("".join(json.dumps(_generated(d, "")) + "\n" for d in docs))
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as stop:
        main(["import", "lm-eval", str(empty), "--out", str(out), "--data-dir", str(shared_data)])
    assert stop.value.code == 2
    message = capsys.readouterr().err
    assert str(empty) in message and "every sample failed (3 of 3)" in message, message
    assert not out.exists()
    one = tmp_path / "one.jsonl"
    texts = ["", "A) Uncle", " "]
    one.write_text(
        "".join(json.dumps(_generated(d, t)) + "\n" for d, t in zip(docs, texts, strict=True))
    )
    main_ok(["import", "lm-eval", str(one), "--out", str(out), "--data-dir", str(shared_data)])
    assert [r["output"] for _, r in sorted(load_records(out).items())] == texts


def _lm_eval_run(folder: Path, out: Path, tasks: list[str]) -> dict[str, Any]:
    """lm-eval's evaluator and sample writer, as its ``lm_eval --log_samples`` command calls
    them (in this process, indexing only the exported folder, not lm-eval's own tasks)."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from relreason.models.smollm2 import converted_dir

    tracker = EvaluationTracker(output_path=str(out))
    results: dict[str, Any] = simple_evaluate(
        model="hf",
        model_args=f"pretrained={converted_dir()},dtype=float32",
        tasks=tasks,
        task_manager=TaskManager(include_path=str(folder), include_defaults=False),
        device="cpu",
        batch_size=8,
        limit=LIMIT,
        log_samples=True,
        evaluation_tracker=tracker,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for name in results["configs"]:
        tracker.save_results_samples(task_name=name, samples=samples[name])
    return results


def _relreason_runs(cell: Cell, data: Path, out: Path) -> dict[str, dict[int, dict[str, Any]]]:
    """relreason's own runs of the first items, by scoring mode; generation keeps no
    first-token alternatives (``--top-logprobs 0``), as lm-eval's ``generate_until`` returns
    only the text."""
    from relreason.models.smollm2 import load_smollm2
    from relreason.run.options import RunOptions
    from relreason.run.runner import run_task
    from relreason.types import GenerationParams

    task = cell.task(data)
    backend = load_smollm2(batch_size=8)
    runs = {}
    for scoring in ("logprob", "generate"):
        options = RunOptions(
            scoring=scoring,  # type: ignore[arg-type]
            limit=LIMIT,
            use_cache=False,
            params=GenerationParams(max_new_tokens=task.max_new_tokens, top_logprobs=0),
        )
        run_task(task, backend, out / scoring, options, close_backend=False)
        runs[scoring] = load_records(out / scoring)
    return runs


@pytest.mark.model
def test_lm_eval_run_equals_relreason_run(
    exported: tuple[Path, Cell], shared_data: Path, tmp_path: Path
) -> None:
    """The real ``lm_eval`` on SmolLM2: the same log-likelihood accuracy and answers as
    relreason's ``--scoring logprob``; byte-identical generations, which lm-eval (through the
    exported reader) and ``relreason import`` read as relreason's own run does."""
    folder, cell = exported
    mc, gen = task_name(cell.name, "mc"), task_name(cell.name, "gen")
    results = _lm_eval_run(folder, tmp_path / "lm", [mc, gen])
    runs = _relreason_runs(cell, shared_data, tmp_path / "ours")
    ours_lp, ours_gen = runs["logprob"], runs["generate"]
    accuracy = sum(bool(r["correct"]) for r in ours_lp.values()) / LIMIT
    assert results["results"][mc]["acc,none"] == pytest.approx(accuracy)
    gen_accuracy = sum(bool(r["correct"]) for r in ours_gen.values()) / LIMIT
    assert results["results"][gen]["acc,none"] == pytest.approx(gen_accuracy)
    for name, ours, scoring in ((mc, ours_lp, "logprob"), (gen, ours_gen, "generate")):
        samples = next((tmp_path / "lm").rglob(f"samples_{name}_*.jsonl"))
        out = tmp_path / f"imported-{name}"
        main_ok(
            ["import", "lm-eval", str(samples), "--out", str(out), "--data-dir", str(shared_data)]
        )
        imported = load_records(out)
        assert sorted(imported) == sorted(ours)
        for index, record in imported.items():
            for key in ("answer", "status", "method", "alt"):
                assert record[key] == ours[index][key], (name, index, key)
            if scoring == "generate":
                assert record["output"] == ours[index]["output"], (name, index)
            else:
                for letter, value in record["choice_logprobs"].items():
                    assert value == pytest.approx(ours[index]["choice_logprobs"][letter], abs=1e-3)
        manifest = load_manifest(out)
        assert manifest.scoring == scoring and manifest.model_extra is not None
        assert manifest.model_extra["source"]["harness"] == "lm-eval"
        assert manifest.model_extra["source"]["file"] == str(samples.resolve())


def main_ok(argv: list[str]) -> None:
    """Run the command line and expect it to succeed."""
    try:
        main(argv)
    except SystemExit as stop:
        assert stop.code in (0, None), stop.code


def test_write_imported_run_refuses_a_used_folder(
    exported: tuple[Path, Cell], shared_data: Path, tmp_path: Path
) -> None:
    folder, cell = exported
    doc = _docs(folder, cell.name)[0]
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(_sample(doc, [-1.0, -0.5])) + "\n", encoding="utf-8")
    run = read_lm_eval_samples(path, data_dir=shared_data)
    out = tmp_path / "run"
    summary = write_imported_run(run, out)
    assert summary.n == 1 and summary.partial
    assert load_records(out)[0]["answer"] == "B"
    with pytest.raises(UsageError):
        write_imported_run(run, out)
