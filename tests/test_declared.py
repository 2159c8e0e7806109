"""One declaration per option: every field of a benchmark's params, of ``RunSettings`` and of
``ModelOptions`` is a command-line option with the field's description as help, a sweep key and
an ``evaluate`` keyword; the params a run folder stores are validated back as they were."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st

from clihelp import run_cli
from relreason import benchmarks
from relreason.cli.app import build_app
from relreason.declare import cli_of
from relreason.models.options import ModelOptions
from relreason.run.plan import PARAMS_KEY, build_recorded, task_from_description
from relreason.run.settings import RunSettings
from relreason.run.sweep_file import ModelEntry, SweepOptions


def _command(*path: str) -> Any:
    command = typer.main.get_command(build_app())
    for name in path:
        command = command.commands[name]
    return command


def _options(command: Any) -> dict[str, Any]:
    return {param.name: param for param in command.params}


def _declared(model: Any) -> Iterator[tuple[str, Any]]:
    for name, info in model.model_fields.items():
        if not cli_of(info).hidden:
            yield name, info


@pytest.mark.parametrize("name", ["convre", "mcr", "compose"])
def test_every_benchmark_parameter_is_an_option_with_its_description(name: str) -> None:
    bench = benchmarks.get(name)
    run = _options(_command("run", name))
    prompts = _options(_command("prompts", name))
    score = _options(_command("score", name))
    for field, info in _declared(bench.params_model):
        assert run[field].help == info.description, field
        assert field in score
        assert (field in prompts) != cli_of(info).reading, field  # prompts: no reading options


def test_choices_and_bounds_come_from_the_declaration(capsys: pytest.CaptureFixture[str]) -> None:
    mode = _options(_command("run", "convre"))["mode"]
    assert [str(c) for c in mode.type_descriptor.choices] == ["auto", "strict"]
    setting = _options(_command("prompts", "convre"))["setting"]
    assert (setting.min, setting.max) == (1, 12)
    code, _, err = run_cli(["prompts", "convre", "--task", "re2text", "--mode", "x"], capsys)
    assert code == 2 and "--mode" in err  # a reading option: not one of prompts'
    args = ["score", "mcr", "--language", "en", "--method", "zs", "--mode", "lenient"]
    code, _, err = run_cli([*args, "--responses", "r", "--out", "o"], capsys)
    assert code == 2 and "robust" in err and "paper" in err


def test_run_and_model_options_are_generated_from_their_declarations() -> None:
    run = _options(_command("run", "compose"))
    for field, info in _declared(RunSettings):
        assert run[field].help == info.description, field
    for field, info in _declared(ModelOptions):
        extra = cli_of(info).extra_help
        assert run[field].help == " ".join(t for t in (info.description, extra) if t), field
    assert run["seed"].default == 0 and RunSettings().seed is None  # the CLI's own default
    assert {"timeout"} <= set(ModelOptions.model_fields) - set(run)  # from --request-timeout


def test_sweep_schemas_are_the_declarations() -> None:
    swept = {n for n, info in RunSettings.model_fields.items() if cli_of(info).sweep}
    assert set(SweepOptions.model_fields) == set(RunSettings.model_fields)
    for name in swept:
        SweepOptions.model_validate({name: RunSettings.model_fields[name].default})
    for name in set(RunSettings.model_fields) - swept:
        with pytest.raises(ValueError, match=f"{name} is not a sweep option"):
            SweepOptions.model_validate({name: True})
    entry = ModelEntry.model_validate(
        {"spec": "hf:x", "base_url": "http://127.0.0.1:1/v1", "batch_size": 2, "size": 1e9}
    )
    assert entry.options() == {"base_urls": ["http://127.0.0.1:1/v1"], "batch_size": 2}
    assert set(ModelEntry.model_fields) == {*ModelOptions.model_fields, "spec", "size"}
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        ModelEntry.model_validate({"spec": "hf:x", "batch_size": 0})


def test_stored_params_are_validated_back_as_passed(shared_data: Path) -> None:
    bench = benchmarks.get("convre")
    params = bench.params(task="text2re", setting=3, mode="strict", reader="official:qwen")
    task = build_recorded(bench, params, shared_data)
    stored = task.description[PARAMS_KEY]
    assert bench.params(**stored) == params
    again = task_from_description(task.description, shared_data)
    assert again.strict and again.description == task.description
    legacy = {k: v for k, v in task.description.items() if k != PARAMS_KEY}
    assert not task_from_description(legacy, shared_data).strict  # older folders: no mode


_convre_params = st.fixed_dictionaries(
    {"task": st.sampled_from(["re2text", "text2re"])},
    optional={
        "setting": st.none() | st.integers(1, 12),
        "subset": st.booleans(),
        "neutral": st.booleans(),
        "prompt": st.none() | st.sampled_from(["normal", "hint", "hint+cot"]),
        "n_shot": st.none() | st.integers(0, 10),
        "mode": st.sampled_from(["auto", "strict"]),
        "logprob_fallback": st.booleans(),
        "reader": st.sampled_from(["sound", "official", "official:qwen"]),
        "family": st.none() | st.sampled_from(["claude", "flan-t5"]),
    },
)
_mcr_params = st.fixed_dictionaries(
    {"language": st.sampled_from(["en", "ja"]), "method": st.sampled_from(["zs", "fs"])},
    optional={
        "exemplars": st.none() | st.text(alphabet="abc/._", min_size=1).map(Path),
        "mode": st.sampled_from(["robust", "paper", " Paper "]),
        "cleanup_model": st.none() | st.sampled_from(["first", "openai:gpt-4o-mini"]),
    },
)


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(_convre_params.map(lambda v: ("convre", v)), _mcr_params.map(lambda v: ("mcr", v)))
)
def test_params_stored_as_json_are_validated_back_equal(case: tuple[str, dict[str, Any]]) -> None:
    name, values = case
    bench = benchmarks.get(name)
    params = bench.params(**values)
    stored = json.loads(json.dumps(params.model_dump(mode="json")))  # as a manifest holds them
    assert bench.params(**stored) == params
